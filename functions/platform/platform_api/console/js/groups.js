// The Groups panel of a device: the groups it is in (GET /groups), creating one (POST
// /groups), and for the group opened its members, invite link and join requests
// (group_detail.js).
//
// Group operations go through the device's session, so they answer 503
// `device_disconnected` until it is connected; their errors use the lowercase envelope
// {error: {code, message}}, which ctx.showError puts in words like the standard one.

import { renderGroup } from "./group_detail.js";
import { actionButton, collapsible, deviceApi, feedback, say, whenConnected } from "./panel_kit.js";
import { el, field } from "./ui.js";

// Contract of a device panel: render(container, ctx) with ctx = {device, api, showError}.
export function render(container, ctx) {
  collapsible(container, "Groups", (body) => openPanel(body, ctx));
}

function openPanel(container, ctx) {
  const call = deviceApi(ctx);
  const list = el("ul", { class: "groups", "aria-label": "Groups of this device" });
  const status = feedback();
  const detail = el("div", { class: "group-detail" });
  let openJid = null;
  let groups = [];
  let device = ctx.device; // as last read: its messaging_jid is known once it is paired

  async function load() {
    const answer = await call("GET", "/groups");
    if (!answer.ok) {
      list.replaceChildren();
      ctx.showError(status, answer);
      if (answer.status === 503)
        status.append(el("p", { class: "hint" }, "Connect the device, then refresh the groups."));
      return;
    }
    status.replaceChildren();
    groups = answer.body.groups;
    draw();
  }

  function draw() {
    if (!groups.length) {
      list.replaceChildren(el("li", { class: "hint" }, "This device is in no group yet."));
      return;
    }
    list.replaceChildren(
      ...groups.map((group) => {
        const open = group.jid === openJid;
        return el(
          "li",
          {},
          el(
            "button",
            {
              type: "button",
              class: open ? "group current" : "group",
              "aria-expanded": open ? "true" : "false",
              "aria-label": `${group.name}, ${group.members_count} members`,
              onclick: () => toggle(group.jid),
            },
            el("span", { class: "name" }, group.name),
            " ",
            el("span", { class: "badge" }, `${group.members_count} members`),
          ),
        );
      }),
    );
  }

  function toggle(jid) {
    openJid = openJid === jid ? null : jid;
    draw();
    if (!openJid) return detail.replaceChildren();
    renderGroup(detail, jid, { call, ctx, ownJid: device.messaging_jid, onChanged: load });
  }

  container.replaceChildren(
    el("div", { class: "actions" }, actionButton("Refresh groups", { class: "secondary" }, load)),
    status,
    list,
    detail,
    createForm(call, ctx, async (group) => {
      await load();
      if (openJid !== group.jid) toggle(group.jid);
    }),
  );
  const waiting = (state) =>
    `Groups need a connected device; this one is ${state}. They show here once it connects.`;
  whenConnected(ctx, status, waiting, (connected) => {
    device = connected;
    return load();
  });
}

// POST /groups: a name, the people (phone numbers, user JIDs or LIDs, one per line or comma
// separated) and the group's settings; the answer says what became of each person asked for.
function createForm(call, ctx, onCreated) {
  const name = el("input", {
    type: "text",
    name: "name",
    maxlength: 100,
    autocomplete: "off",
    required: true,
  });
  const people = el("textarea", {
    name: "participants",
    rows: 2,
    spellcheck: false,
    placeholder: "15551234567, 4917000000001@s.whatsapp.net",
  });
  const options = {
    announcement: el("input", { type: "checkbox", name: "announcement" }),
    locked: el("input", { type: "checkbox", name: "locked" }),
    join_approval: el("input", { type: "checkbox", name: "join_approval" }),
  };
  const status = feedback();
  const form = el(
    "form",
    { class: "panel", "aria-label": "Create a group" },
    el("h4", {}, "Create a group"),
    field("Group name", name),
    field("Participants (phone numbers or JIDs, one per line or comma separated)", people),
    el("label", { class: "check" }, options.announcement, "Only admins send messages"),
    el("label", { class: "check" }, options.locked, "Only admins edit the group's info"),
    el("label", { class: "check" }, options.join_approval, "New members need an admin's approval"),
    el("div", { class: "actions" }, el("button", { type: "submit" }, "Create group")),
    status,
  );

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const body = {
        name: name.value.trim(),
        participants: people.value.split(/[\s,;]+/).filter(Boolean),
        options: Object.fromEntries(Object.entries(options).map(([key, input]) => [key, input.checked])),
      };
      const answer = await call("POST", "/groups", { body });
      if (!answer.ok) return ctx.showError(status, answer);
      const { group, participants } = answer.body;
      const refused = participants.filter((person) => person.status !== "ok");
      say(
        status,
        `Created ${group.name} (${group.jid}).` +
          (refused.length
            ? ` Not added: ${refused.map((person) => `${person.jid} (${person.status})`).join(", ")}.`
            : ""),
      );
      form.reset();
      await onCreated(group);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
