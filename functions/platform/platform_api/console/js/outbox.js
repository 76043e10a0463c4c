// The Outbox panel of a device: its sends, planned or not (GET /sends), newest request first,
// with "Cancel" on each one still scheduled (DELETE /sends/{id}); see docs/messages.md, "The
// outbox". The outbox is read whatever the device's session is doing, so the panel does not
// wait for it to connect. It keeps itself current as live_list.js does: a planned send is
// seen going out.
//
// A cancel races the device's dispatcher, and exactly one of them wins: a cancel that lost is
// shown as the API answers it (409 ALREADY_SENT) and the list is read again, so the row shows
// what became of the send.

import { liveList } from "./live_list.js";
import { actionButton, collapsible, deviceApi, say, timeCell } from "./panel_kit.js";
import { el } from "./ui.js";

const STATES = ["scheduled", "sending", "sent", "failed", "canceled"];

// Contract of a device panel: render(container, ctx) with ctx = {device, api, showError}.
export function render(container, ctx) {
  collapsible(container, "Outbox", (body) => openPanel(body, ctx));
}

function openPanel(container, ctx) {
  const call = deviceApi(ctx);
  const list = liveList(call, ctx, {
    path: "/sends",
    key: "sends",
    filter: { label: "Show sends", name: "state", choices: [["", "all"], ...STATES.map((state) => [state, state])] },
    noun: "sends",
    region: "Sends",
    caption: "Sends, newest request first; times in your time zone",
    className: "sends",
    columns: ["Send", "Chat", "Kind", "State", "Scheduled for", "Sent at", "Network id", "Error", "Action"],
    empty: "No send in this list: what the device sends or plans to send appears here.",
    rows: (sends) => sends.map(row),
  });

  function row(send) {
    return el(
      "tr",
      {},
      el("td", { class: "mono wrap" }, send.message_id),
      el("td", { class: "mono wrap" }, send.chat_jid),
      el("td", {}, send.kind),
      el("td", {}, el("span", { class: `badge ${send.state}` }, send.state)),
      timeCell(send.scheduled_for),
      timeCell(send.sent_at),
      el("td", { class: "mono wrap" }, send.network_message_id),
      el("td", { class: "wrap" }, send.error),
      el(
        "td",
        {},
        send.state === "scheduled"
          ? actionButton(
              "Cancel",
              { class: "danger", "aria-label": `Cancel send ${send.message_id}` },
              () => cancel(send),
            )
          : null,
      ),
    );
  }

  async function cancel(send) {
    const answer = await call("DELETE", `/sends/${encodeURIComponent(send.message_id)}`);
    if (answer.ok) say(list.status, `Send ${answer.body.message_id} canceled: it will not go out.`);
    else ctx.showError(list.status, answer);
    await list.load();
  }

  container.replaceChildren(
    el(
      "p",
      { class: "hint" },
      "A send stays scheduled until its time (send_at, delay), its turn or its device; until a " +
        "session host takes it, it can be canceled. Sent sends are listed 90 days, failed and " +
        "canceled ones 7 days.",
    ),
    list.node,
  );
  list.load();
}
