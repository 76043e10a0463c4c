// The console's only way to the gateway: the public HTTP API on this origin, with the token
// of the signed-in user (or the master token) as the bearer header. Tokens live in
// sessionStorage only: gone when the tab closes, never in a URL, a cookie or localStorage.

const USER_KEY = "console.token";
const MASTER_KEY = "console.master";

export const tokens = {
  user: () => sessionStorage.getItem(USER_KEY),
  master: () => sessionStorage.getItem(MASTER_KEY),
  setUser: (token) => sessionStorage.setItem(USER_KEY, token),
  setMaster: (token) => sessionStorage.setItem(MASTER_KEY, token),
  forgetMaster: () => sessionStorage.removeItem(MASTER_KEY),
  clear: () => sessionStorage.clear(),
};

// One request with `token`: resolves to {ok, status, body}, never rejects. A request that
// never got an answer is status 0 with an envelope that says why.
export async function request(token, method, path, { body, headers, query } = {}) {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, value);
  }
  const sent = { ...(headers || {}) };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      credentials: "omit",
    });
  } catch (error) {
    return {
      ok: false,
      status: 0,
      body: { error: `the gateway did not answer (${error.message})`, error_code: "NETWORK_ERROR" },
    };
  }
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { error: text.slice(0, 200) || response.statusText };
  }
  return { ok: response.ok, status: response.status, body: parsed };
}

// The API as the signed-in user: what the panels get as ctx.api.
export function api(method, path, options = {}) {
  return request(tokens.user(), method, path, options);
}

// The API with the master token the simulator panel was given.
export function masterApi(method, path, options = {}) {
  return request(tokens.master(), method, path, options);
}
