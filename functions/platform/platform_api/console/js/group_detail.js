// One group of the Groups panel: its members with their admin flags (GET /groups/{jid}),
// its invite link (copy, reset) and its join requests (approve, reject).
//
// The admin-only parts are offered when the device's account is an admin of the group, as
// its record says; the network has the last word and its refusal (403 not_group_admin)
// is shown as any error.

import { actionButton, feedback, say, timeText } from "./panel_kit.js";
import { el, field } from "./ui.js";

export function renderGroup(container, jid, { call, ctx, ownJid, onChanged }) {
  const path = `/groups/${encodeURIComponent(jid)}`;
  const heading = el("h4", {}, jid);
  const facts = el("dl", { class: "facts" });
  const members = el("tbody");
  const status = feedback();
  const invite = inviteLink(call, ctx, path);
  const requests = joinRequests(call, ctx, path, async () => {
    await loadGroup();
    await onChanged();
  });

  async function loadGroup() {
    const answer = await call("GET", path);
    if (!answer.ok) {
      ctx.showError(status, answer);
      return null;
    }
    const group = answer.body.group;
    heading.textContent = group.name;
    invite.name(group.name);
    facts.replaceChildren(
      el("dt", {}, "JID"),
      el("dd", { class: "mono" }, group.jid),
      el("dt", {}, "Description"),
      el("dd", {}, group.topic || "none"),
      el("dt", {}, "Settings"),
      el("dd", {}, settings(group)),
    );
    members.replaceChildren(
      ...group.participants.map((person) =>
        el(
          "tr",
          {},
          el(
            "th",
            { scope: "row", class: "mono wrap" },
            person.jid,
            person.jid === ownJid ? " (this device)" : "",
          ),
          el("td", {}, person.is_admin ? "yes" : "no"),
          el("td", {}, person.is_super_admin ? "yes" : "no"),
        ),
      ),
    );
    const me = group.participants.find((person) => person.jid === ownJid);
    const admin = !me || me.is_admin; // unknown (a LID): offer, and let the network answer
    invite.node.hidden = !admin;
    requests.show(admin, group.join_approval);
    return group;
  }

  container.replaceChildren(
    el(
      "section",
      { class: "card group", "aria-label": "Group" },
      heading,
      facts,
      el(
        "div",
        { class: "actions" },
        actionButton("Refresh group", { class: "secondary" }, async () => {
          if (await loadGroup()) say(status, "Group refreshed.");
        }),
      ),
      status,
      el(
        "div",
        { class: "scroll", role: "region", "aria-label": "Members", tabindex: "0" },
        el(
          "table",
          { class: "members" },
          el("caption", { class: "hint" }, "Members"),
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              el("th", { scope: "col" }, "Member"),
              el("th", { scope: "col" }, "Admin"),
              el("th", { scope: "col" }, "Super admin"),
            ),
          ),
          members,
        ),
      ),
      invite.node,
      requests.node,
    ),
  );
  loadGroup();
}

function settings(group) {
  const said = [
    group.is_announce ? "only admins send" : "everyone sends",
    group.is_locked ? "only admins edit the info" : "everyone edits the info",
  ];
  if (group.join_approval !== null)
    said.push(group.join_approval ? "joining needs approval" : "joining needs no approval");
  if (group.is_community) said.push("a community");
  return said.join(", ");
}

// The invite link: shown in a read-only field (the fallback when the clipboard is refused),
// copied, and reset (the old link stops working).
function inviteLink(call, ctx, path) {
  const link = el("input", {
    type: "text",
    readOnly: true,
    placeholder: "not read yet",
    spellcheck: false,
    class: "mono",
  });
  const linkField = field("Invite link", link);
  const label = linkField.querySelector("label");
  const status = feedback();

  async function read() {
    const answer = await call("GET", `${path}/invite`);
    if (!answer.ok) {
      ctx.showError(status, answer);
      return false;
    }
    link.value = answer.body.invite_link;
    return true;
  }

  async function copy() {
    if (!link.value && !(await read())) return;
    try {
      await navigator.clipboard.writeText(link.value);
      say(status, "Invite link copied.");
    } catch {
      link.focus();
      link.select();
      say(
        status,
        "The browser did not allow copying: the link is selected in the field above, copy it from there.",
      );
    }
  }

  async function reset() {
    const answer = await call("POST", `${path}/invite/reset`);
    if (!answer.ok) return ctx.showError(status, answer);
    link.value = answer.body.invite_link;
    say(
      status,
      `Invite link reset at ${new Date(answer.body.reset_at).toLocaleString()}: the old one no longer works.`,
    );
  }

  const node = el(
    "section",
    { class: "panel", "aria-label": "Invite link" },
    el("h4", {}, "Invite link"),
    linkField,
    el(
      "div",
      { class: "actions" },
      actionButton("Show invite link", { class: "secondary" }, async () => {
        if (await read()) status.replaceChildren();
      }),
      actionButton("Copy invite link", { class: "secondary" }, copy),
      actionButton("Reset invite link", { class: "secondary" }, reset),
    ),
    status,
  );
  return {
    node,
    name: (name) => {
      label.textContent = `Invite link of ${name}`;
    },
  };
}

// The join requests waiting for an admin (GET /groups/{jid}/requests), oldest first, each
// with Approve and Reject (POST /groups/{jid}/requests).
function joinRequests(call, ctx, path, onAnswered) {
  const list = el("ul", { class: "requests", "aria-label": "Join requests" });
  const note = el("p", { class: "hint" });
  const status = feedback();

  async function load() {
    const answer = await call("GET", `${path}/requests`);
    if (!answer.ok) return ctx.showError(status, answer);
    const waiting = answer.body.requests;
    list.replaceChildren(
      ...(waiting.length
        ? waiting.map((request) =>
            el(
              "li",
              { class: "request" },
              el("span", { class: "mono wrap" }, request.jid),
              " ",
              el("span", { class: "hint" }, "asked ", timeText(request.requested_at)),
              el(
                "span",
                { class: "actions" },
                actionButton("Approve", { "aria-label": `Approve ${request.jid}` }, () =>
                  answer_("approve", request.jid),
                ),
                actionButton("Reject", { class: "secondary", "aria-label": `Reject ${request.jid}` }, () =>
                  answer_("reject", request.jid),
                ),
              ),
            ),
          )
        : [el("li", { class: "hint" }, "No join request waiting.")]),
    );
  }

  async function answer_(action, jid) {
    const answer = await call("POST", `${path}/requests`, { body: { action, participants: [jid] } });
    if (!answer.ok) return ctx.showError(status, answer);
    const outcome = answer.body.participants.find((person) => person.status !== "ok");
    if (outcome) say(status, `${jid}: ${outcome.status} (no request of theirs was waiting).`);
    else say(status, action === "approve" ? `Approved ${jid}: now a member.` : `Rejected ${jid}.`);
    await load();
    if (action === "approve") await onAnswered();
  }

  const node = el(
    "section",
    { class: "panel", "aria-label": "Join requests" },
    el("h4", {}, "Join requests"),
    note,
    el("div", { class: "actions" }, actionButton("Refresh join requests", { class: "secondary" }, load)),
    status,
    list,
  );
  let loaded = false;
  return {
    node,
    show(admin, approval) {
      node.hidden = !admin;
      note.textContent =
        approval === false ? "Join approval is off: people with the link join directly." : "";
      if (admin && !loaded) {
        loaded = true;
        load();
      }
    },
  };
}
