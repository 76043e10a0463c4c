// The Profile panel of a device: its own account as contacts see it (GET /profile), the push
// name and About text (PATCH /profile), the picture from a JPEG file (PUT /profile/picture)
// and whether the account shows online (PUT /presence); see docs/profile.md. Like the Groups
// panel it waits for the device to be connected: these routes go through its session.

import {
  actionButton,
  collapsible,
  deviceApi,
  fact,
  feedback,
  onSubmit,
  pictureLink,
  say,
  whenConnected,
} from "./panel_kit.js";
import { el, field } from "./ui.js";

// Contract of a device panel: render(container, ctx) with ctx = {device, api, showError}.
export function render(container, ctx) {
  collapsible(container, "Profile", (body) => openPanel(body, ctx));
}

function openPanel(container, ctx) {
  const call = deviceApi(ctx);
  const status = feedback();
  const facts = el("dl", { class: "facts", "aria-label": "Profile of this account" });
  const editor = profileForm(call, ctx, show);
  const content = el(
    "div",
    { hidden: true },
    facts,
    el("div", { class: "actions" }, actionButton("Refresh profile", { class: "secondary" }, load)),
    editor.node,
    pictureForm(call, ctx, load),
    presenceButtons(call, ctx),
  );
  container.replaceChildren(status, content);

  async function load() {
    const answer = await call("GET", "/profile");
    if (!answer.ok) return ctx.showError(status, answer);
    status.replaceChildren();
    show(answer.body.profile);
  }

  function show(profile) {
    const shown = (name, value) => fact(name, value, "not set");
    facts.replaceChildren(
      ...shown("Account", el("span", { class: "mono" }, profile.jid)),
      ...shown("Name", profile.name),
      ...shown("About", profile.about),
      ...shown("Picture", pictureLink(profile.picture_url)),
    );
    editor.fill(profile);
  }

  const waiting = (state) =>
    `The profile needs a connected device; this one is ${state}. It shows here once it connects.`;
  whenConnected(ctx, status, waiting, () => {
    content.hidden = false;
    return load();
  });
}

// PATCH /profile with what the user changed: a field left as it was is not sent, so saving
// the About text does not rename the account (the network shows a new push name on the
// account's next messages).
function profileForm(call, ctx, show) {
  let stored = { name: null, about: null };
  const name = el("input", { type: "text", maxlength: 25, autocomplete: "off" });
  const about = el("textarea", { rows: 2, maxlength: 139 });
  const status = feedback();
  const form = el(
    "form",
    { class: "panel", "aria-label": "Edit the profile" },
    el("h4", {}, "Name and About"),
    field("Push name (1 to 25 characters)", name),
    field("About (1 to 139 characters)", about),
    el("div", { class: "actions" }, el("button", { type: "submit" }, "Save profile")),
    status,
  );
  onSubmit(form, async () => {
    const body = {};
    if (name.value !== (stored.name ?? "")) body.name = name.value;
    if (about.value !== (stored.about ?? "")) body.about = about.value;
    if (!Object.keys(body).length) return say(status, "Nothing to save: the name and About are as shown.");
    const answer = await call("PATCH", "/profile", { body });
    if (!answer.ok) return ctx.showError(status, answer);
    say(status, "Profile saved.");
    show(answer.body.profile);
  });
  return {
    node: form,
    fill(profile) {
      stored = profile;
      name.value = profile.name ?? "";
      about.value = profile.about ?? "";
    },
  };
}

// PUT /profile/picture: a JPEG file of the user's, sent as base64; a preview as a data: image
// (the only images the page's policy loads besides its own).
function pictureForm(call, ctx, reload) {
  const file = el("input", { type: "file", accept: "image/jpeg", required: true });
  const preview = el("img", { class: "avatar", alt: "The chosen picture", hidden: true });
  const status = feedback();
  let chosen = null; // the file as a data: URL
  file.addEventListener("change", async () => {
    chosen = file.files.length ? await dataUrl(file.files[0]) : null;
    preview.hidden = !chosen;
    if (chosen) preview.src = chosen;
    else preview.removeAttribute("src");
  });
  const form = el(
    "form",
    { class: "panel", "aria-label": "Profile picture" },
    el("h4", {}, "Picture"),
    field("Picture file (JPEG; the network shows 640 × 640)", file),
    preview,
    el("div", { class: "actions" }, el("button", { type: "submit" }, "Set picture")),
    status,
  );
  onSubmit(form, async () => {
    if (!chosen) return;
    const answer = await call("PUT", "/profile/picture", {
      body: { image_base64: chosen.slice(chosen.indexOf(",") + 1) },
    });
    if (!answer.ok) return ctx.showError(status, answer);
    say(status, `Picture set (${answer.body.picture_id}).`);
    await reload();
  });
  return form;
}

function dataUrl(blob) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

// PUT /presence: the account shows online (available) or offline (unavailable) to those who
// follow its presence.
function presenceButtons(call, ctx) {
  const status = feedback();
  const set = (state) => async () => {
    const answer = await call("PUT", "/presence", { body: { state } });
    if (!answer.ok) return ctx.showError(status, answer);
    say(status, `Presence: ${answer.body.state}.`);
  };
  return el(
    "div",
    { class: "panel", role: "group", "aria-label": "Presence" },
    el("h4", {}, "Presence"),
    el(
      "div",
      { class: "actions" },
      actionButton("Show as available", {}, set("available")),
      actionButton("Show as unavailable", { class: "secondary" }, set("unavailable")),
    ),
    status,
  );
}
