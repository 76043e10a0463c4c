// The Contacts panel of a device: whether numbers are on the network (POST /contacts/check),
// one person looked up with both identities (GET /contacts/{jid}), blocking and unblocking
// (PUT and DELETE /contacts/{jid}/block) and the blocklist (GET /contacts/blocklist); see
// docs/contacts.md. Every route goes through the device's session, so the panel waits for it
// to be connected, like the Groups panel.

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
  collapsible(container, "Contacts", (body) => openPanel(body, ctx));
}

function openPanel(container, ctx) {
  const call = deviceApi(ctx);
  const status = feedback();
  const blocklist = blocklistView(call, ctx, () => lookup.redraw());
  const lookup = lookupForm(call, ctx, blocklist);
  const check = checkForm(call, ctx, lookup.show);
  const content = el("div", { hidden: true }, check, lookup.node, blocklist.node);
  container.replaceChildren(status, content);
  const waiting = (state) =>
    `Contacts need a connected device; this one is ${state}. They show here once it connects.`;
  whenConnected(ctx, status, waiting, () => {
    status.replaceChildren();
    content.hidden = false;
    return blocklist.load();
  });
}

// POST /contacts/check: up to 50 numbers, one result each, in the order asked.
function checkForm(call, ctx, lookUp) {
  const numbers = el("textarea", {
    rows: 2,
    spellcheck: false,
    autocomplete: "off",
    placeholder: "4917000000001, 15551234567",
  });
  const results = el("div", { class: "scroll" });
  const status = feedback();
  const form = el(
    "form",
    { class: "panel", "aria-label": "Check numbers" },
    el("h4", {}, "Check numbers"),
    field("Phone numbers to check (one per line or comma separated)", numbers),
    el("div", { class: "actions" }, el("button", { type: "submit" }, "Check numbers")),
    status,
    results,
  );
  onSubmit(form, async () => {
    const asked = numbers.value.split(/[\s,;]+/).filter(Boolean);
    const answer = await call("POST", "/contacts/check", { body: { numbers: asked } });
    if (!answer.ok) {
      results.replaceChildren();
      return ctx.showError(status, answer);
    }
    const found = answer.body.results.filter((result) => result.on_network).length;
    say(status, `${found} of ${answer.body.results.length} on the network.`);
    results.replaceChildren(resultsTable(answer.body.results, lookUp));
  });
  return form;
}

function resultsTable(results, lookUp) {
  // data-label: the column's name where a narrow screen draws each row as a card (panels.css)
  const cell = (label, text, attrs = {}) => el("td", { "data-label": label, ...attrs }, text);
  const columns = ["Number", "On the network", "JID", "LID", ""];
  return el(
    "table",
    { class: "checks", "aria-label": "Number check results" },
    el(
      "thead",
      {},
      el("tr", {}, ...columns.map((name) => el("th", {}, name))),
    ),
    el(
      "tbody",
      {},
      ...results.map((result) =>
        el(
          "tr",
          {},
          cell("Number", result.number, { class: "mono" }),
          cell("On the network", result.on_network ? "yes" : "no"),
          cell("JID", result.jid || "none", { class: "mono wrap" }),
          cell("LID", result.lid || "none", { class: "mono wrap" }),
          cell(
            "",
            result.on_network
              ? el(
                  "button",
                  { type: "button", class: "secondary", onclick: () => lookUp(result.jid) },
                  `Look up ${result.number}`,
                )
              : null,
          ),
        ),
      ),
    ),
  );
}

// GET /contacts/{jid}: the person by phone digits, user JID or LID, with block and unblock.
function lookupForm(call, ctx, blocklist) {
  const person = el("input", {
    type: "text",
    autocomplete: "off",
    spellcheck: false,
    placeholder: "4917000000001 or …@s.whatsapp.net or …@lid",
  });
  const status = feedback();
  const card = el("div", { class: "contact" });
  let contact = null;

  async function show(who) {
    person.value = who;
    const answer = await call("GET", `/contacts/${encodeURIComponent(who.trim())}`);
    if (!answer.ok) {
      contact = null;
      card.replaceChildren();
      return ctx.showError(status, answer);
    }
    status.replaceChildren();
    contact = answer.body.contact;
    redraw();
  }

  function redraw() {
    if (!contact) return;
    const id = contact.jid || contact.lid;
    const blocked = blocklist.has(contact.jid) || blocklist.has(contact.lid);
    const known = (name, value) => fact(name, value, "none");
    card.replaceChildren(
      el(
        "dl",
        { class: "facts", "aria-label": `Contact ${id}` },
        known("JID", contact.jid && el("span", { class: "mono" }, contact.jid)),
        known("LID", contact.lid && el("span", { class: "mono" }, contact.lid)),
        known("Name", contact.name),
        known("About", contact.about),
        known("Business", contact.is_business ? "yes" : "no"),
        known("Picture", pictureLink(contact.picture_url)),
        known("Blocked", blocked ? "yes" : "no"),
      ),
      el(
        "div",
        { class: "actions" },
        blocked
          ? actionButton(`Unblock ${id}`, { class: "secondary" }, () => blocklist.set(id, false, status))
          : actionButton(`Block ${id}`, { class: "danger" }, () => blocklist.set(id, true, status)),
      ),
    );
  }

  const form = el(
    "form",
    { class: "panel", "aria-label": "Look up a contact" },
    el("h4", {}, "Look up a contact"),
    field("Person (phone number, JID or LID)", person),
    el("div", { class: "actions" }, el("button", { type: "submit" }, "Look up contact")),
    status,
    card,
  );
  onSubmit(form, () => show(person.value));
  return { node: form, show, redraw };
}

// GET /contacts/blocklist: whom the account blocks, from any of its devices or its phone;
// `set` blocks or unblocks one person and reads the list again, then `changed` is called.
function blocklistView(call, ctx, changed) {
  let jids = [];
  const list = el("ul", { class: "blocklist", "aria-label": "Blocklist" });
  const status = feedback();

  async function load() {
    const answer = await call("GET", "/contacts/blocklist");
    if (!answer.ok) return ctx.showError(status, answer);
    jids = answer.body.jids;
    list.replaceChildren(
      ...(jids.length
        ? jids.map((jid) =>
            el(
              "li",
              { class: "request" },
              el("span", { class: "mono wrap" }, jid),
              actionButton(`Unblock ${jid}`, { class: "secondary" }, () => set(jid, false, status)),
            ),
          )
        : [el("li", { class: "hint" }, "Nobody is blocked.")]),
    );
    changed();
  }

  async function set(id, block, where) {
    const answer = await call(block ? "PUT" : "DELETE", `/contacts/${encodeURIComponent(id)}/block`);
    if (!answer.ok) return ctx.showError(where, answer);
    say(where, `${block ? "Blocked" : "Unblocked"} ${answer.body.jid}.`);
    await load();
  }

  return {
    node: el(
      "section",
      { class: "panel", "aria-label": "Blocked contacts" },
      el("h4", {}, "Blocked contacts"),
      el("div", { class: "actions" }, actionButton("Refresh blocklist", { class: "secondary" }, load)),
      status,
      list,
    ),
    load,
    set,
    has: (jid) => Boolean(jid) && jids.includes(jid),
  };
}
