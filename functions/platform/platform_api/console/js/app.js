// The console's entry point: sign-in, sign-out, and the view that fits the token.
//
// A user token opens the devices view; the master token opens the platform view (tenants).
// Which one a token is, is asked of the API itself: GET /status answers a user token,
// GET /tenants the master token; a token neither accepts is refused and nothing is stored.

import { request, tokens } from "./api.js";
import { renderDevices } from "./devices.js";
import { renderPlatform } from "./platform.js";
import { el, field, showError } from "./ui.js";

const main = document.getElementById("main");
const session = document.getElementById("session");
let stopView = () => {};

// A user token is a UUID v4 (docs/auth.md); the master token is not. The shape only says
// which question to ask first, so that a good token is never answered 401 on the way.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const PROBES = {
  user: (token) => request(token, "GET", "/status"),
  master: (token) => request(token, "GET", "/tenants", { query: { limit: 1 } }),
};

// Which kind of token this is, from the API's own answers: {kind: "user" | "master" | null},
// or {error: answer} when the gateway could not tell.
async function kindOf(token) {
  const order = UUID.test(token) ? ["user", "master"] : ["master", "user"];
  for (const kind of order) {
    const answer = await PROBES[kind](token);
    if (answer.ok) return { kind };
    if (answer.status !== 401 && answer.status !== 403) return { error: answer };
  }
  return { kind: null };
}

function signInForm(message) {
  // No `name`: even a form submitted without the script could not put the token in a URL.
  const input = el("input", {
    type: "password",
    autocomplete: "off",
    required: true,
    spellcheck: false,
  });
  const feedback = el("div", { class: "feedback", "aria-live": "polite" });
  const form = el(
    "form",
    { class: "card signin", "aria-labelledby": "signin-title" },
    el("h2", { id: "signin-title" }, "Sign in"),
    el("p", {}, "Paste a user token (from POST /register or POST /users) or the master token."),
    field("Token", input),
    el("button", { type: "submit" }, "Sign in"),
    feedback,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    const button = form.querySelector("button");
    button.disabled = true;
    const found = await kindOf(token);
    button.disabled = false;
    if (found.error) {
      showError(feedback, found.error);
    } else if (!found.kind) {
      showError(feedback, { error: "Invalid token" });
    } else {
      if (found.kind === "user") tokens.setUser(token);
      else tokens.setMaster(token);
      sessionStorage.setItem("console.kind", found.kind);
      show(found.kind);
    }
  });
  if (message) showError(feedback, { error: message });
  return form;
}

function signOut() {
  stopView();
  tokens.clear();
  show(null);
}

function show(kind, message) {
  stopView();
  stopView = () => {};
  session.replaceChildren();
  if (!kind) {
    main.replaceChildren(signInForm(message));
    main.querySelector("input").focus();
    return;
  }
  session.append(
    el("span", { class: "who" }, kind === "master" ? "Platform (master token)" : ""),
    el("button", { type: "button", class: "secondary", onclick: signOut }, "Sign out"),
  );
  // The token stopped working (a deactivated user): forget it, as signing out would.
  const onRefused = () => {
    tokens.clear();
    show(null, "Your session ended: sign in again.");
  };
  const view =
    kind === "master"
      ? renderPlatform(main, { onRefused })
      : renderDevices(main, { onRefused, who: session.querySelector(".who") });
  stopView = view.stop;
}

const kept = sessionStorage.getItem("console.kind");
show((kept === "user" && tokens.user()) || (kept === "master" && tokens.master()) ? kept : null);
