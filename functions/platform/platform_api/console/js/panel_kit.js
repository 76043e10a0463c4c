// What the device's panels (Settings, Sending policy, Outbox, Webhooks, Groups, Contacts,
// Profile) share: calls on behalf of the panel's device, a live feedback area, times in the
// reader's own words, forms that save the device's fields.

import { api } from "./api.js";
import { el, pollMs, showError, showResult } from "./ui.js";

// The API through the panel's device: device-scoped routes name it by the X-Device-Id
// header (docs/devices.md), so a user with several devices acts on the one shown.
export function deviceApi(ctx) {
  return (method, path, options = {}) =>
    ctx.api(method, path, {
      ...options,
      headers: { ...(options.headers || {}), "X-Device-Id": ctx.device.id },
    });
}

// A region that announces what it is given: errors (role=alert, from ctx.showError) and results.
export function feedback() {
  return el("div", { class: "feedback", "aria-live": "polite" });
}

export function say(container, text) {
  container.replaceChildren(el("p", { class: "result", role: "status" }, text));
}

// An ISO 8601 time as the browser's locale shows it, with the exact value as a tooltip.
export function timeText(iso) {
  const shown = new Date(iso);
  const text = Number.isNaN(shown.getTime()) ? String(iso) : shown.toLocaleString();
  return el("time", { datetime: iso, title: iso }, text);
}

export function timeCell(iso) {
  return el("td", {}, iso ? timeText(iso) : "");
}

// A button that runs `action` once at a time: disabled while it runs, so a double click
// does not send the request twice.
export function actionButton(text, attrs, action) {
  const button = el("button", { type: "button", ...attrs }, text);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await action();
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

// A form whose submit runs `action` once at a time: its submit button is disabled while it
// runs, so a double click does not send the request twice.
export function onSubmit(form, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await action();
    } finally {
      button.disabled = false;
    }
  });
}

// A form of the device's own fields (PATCH /devices/{id}, a partial update): only what
// `changes(device)` finds different from the device as last read is sent, "Nothing to save"
// (`nothing`) when nothing is, and the answer is summed up ("Saved: " + `summary(device)`).
// The device's polling calls the returned update(device): `show` redraws what is read-only,
// and `fill` the fields, unless the user is editing them (then they are left alone until
// saved). Both are called once at the start.
export function deviceForm(device, form, feedback, { changes, show, fill, summary, nothing }) {
  let current = device;
  let edited = false;
  form.addEventListener("input", () => {
    edited = true;
  });
  onSubmit(form, async () => {
    const body = changes(current);
    if (!Object.keys(body).length) return showResult(feedback, nothing);
    const answer = await api("PATCH", `/devices/${current.id}`, { body });
    if (!answer.ok) return showError(feedback, answer);
    edited = false;
    update(answer.body.device);
    showResult(feedback, `Saved: ${summary(answer.body.device)}.`);
  });

  function update(next) {
    current = next;
    show(next);
    if (!edited) fill(next);
  }

  update(device);
  return update;
}

// One term of a <dl class="facts">: its name and its value, or `missing` when it has none.
export function fact(name, value, missing) {
  return [el("dt", {}, name), el("dd", { class: "wrap" }, value ?? missing)];
}

// A profile picture as a link, not an image: the network serves it, and the page's
// Content-Security-Policy loads images from the gateway only (which also keeps the network
// from learning who looks at it). Null when there is no picture.
export function pictureLink(url) {
  if (!url) return null;
  return el("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, "Open the profile picture");
}

// A device panel that opens on demand: its content, with the requests and the polling that
// come with it, exists only while it is open, so the device view stays light and quiet.
export function collapsible(container, title, build) {
  const body = el("div", { class: "panel-body", hidden: true });
  const toggle = el(
    "button",
    { type: "button", class: "secondary", "aria-expanded": "false" },
    `Show ${title.toLowerCase()}`,
  );
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    toggle.textContent = `${open ? "Hide" : "Show"} ${title.toLowerCase()}`;
    body.hidden = !open;
    if (open) build(body);
    else body.replaceChildren(); // detached, its polling ends at its next turn
  });
  container.replaceChildren(el("div", { class: "panel-head" }, el("h3", {}, title), toggle), body);
}

// Operations through the device's session answer 503 until it is connected: rather than
// asking in vain, follow the device's status (GET /devices/{id}) and call `onConnected` with
// the device once it is; meanwhile `waiting(status)` says what the panel waits for.
export function whenConnected(ctx, status, waiting, onConnected) {
  async function check() {
    if (!status.isConnected) return; // the panel was closed or replaced
    const answer = await ctx.api("GET", `/devices/${encodeURIComponent(ctx.device.id)}`);
    if (!answer.ok) return ctx.showError(status, answer);
    const device = answer.body.device;
    if (device.status === "connected") return onConnected(device);
    status.replaceChildren(el("p", { class: "hint", role: "status" }, waiting(device.status)));
    setTimeout(check, pollMs());
  }
  check();
}
