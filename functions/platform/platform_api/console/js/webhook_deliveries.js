// The delivery log of a device's webhook (GET /webhook/deliveries): every attempt, newest
// first, with "Redeliver" for each event (POST /webhook/deliveries/{id}/redeliver). It keeps
// itself current as live_list.js does.

import { liveList } from "./live_list.js";
import { actionButton, say, timeCell } from "./panel_kit.js";
import { el } from "./ui.js";

export function deliveryLog(call, ctx) {
  const log = liveList(call, ctx, {
    path: "/webhook/deliveries",
    key: "deliveries",
    filter: {
      label: "Show attempts",
      name: "status",
      choices: [
        ["", "all"],
        ["delivered", "delivered"],
        ["failed", "failed"],
      ],
    },
    noun: "deliveries",
    region: "Delivery attempts",
    caption: "Delivery attempts, newest first",
    className: "deliveries",
    columns: ["Time", "Event", "Status", "Code", "Duration", "Attempt", "Error", "Action"],
    empty: "No delivery yet: events the webhook subscribes to appear here once sent.",
    rows(deliveries) {
      const offered = new Set(); // one Redeliver per event: on its newest attempt
      return deliveries.map((delivery) => {
        const first = !offered.has(delivery.id);
        offered.add(delivery.id);
        return row(delivery, first);
      });
    },
  });

  function row(delivery, withAction) {
    return el(
      "tr",
      {},
      timeCell(delivery.attempted_at),
      el("td", { class: "mono" }, delivery.event),
      el("td", {}, el("span", { class: `badge ${delivery.status}` }, delivery.status)),
      el("td", { class: "num" }, delivery.status_code === null ? "none" : String(delivery.status_code)),
      el("td", { class: "num" }, `${delivery.duration_ms} ms`),
      el("td", { class: "num" }, String(delivery.attempt)),
      el("td", { class: "wrap" }, delivery.error || null),
      el(
        "td",
        {},
        withAction
          ? actionButton(
              "Redeliver",
              { class: "secondary", "aria-label": `Redeliver ${delivery.event} (event ${delivery.id})` },
              () => redeliver(delivery),
            )
          : null,
      ),
    );
  }

  async function redeliver(delivery) {
    const answer = await call("POST", `/webhook/deliveries/${encodeURIComponent(delivery.id)}/redeliver`);
    if (!answer.ok) return ctx.showError(log.status, answer);
    say(log.status, `${answer.body.event} queued for redelivery (event ${answer.body.id}).`);
    log.load();
  }

  return {
    node: el("section", { class: "panel", "aria-label": "Delivery log" }, el("h4", {}, "Delivery log"), log.node),
    load: log.load,
    stop: log.stop,
  };
}
