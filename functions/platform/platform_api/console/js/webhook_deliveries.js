// The delivery log of a device's webhook (GET /webhook/deliveries): every attempt, newest
// first, with "Redeliver" for each event (POST /webhook/deliveries/{id}/redeliver).
//
// The first page refreshes by itself while the panel is shown (the interval of the other
// live views), and is redrawn only when it changed, so a row does not move under the
// pointer for nothing. Once older pages are loaded, it waits for "Refresh deliveries".

import { actionButton, feedback, say, timeCell } from "./panel_kit.js";
import { el, field, pollMs } from "./ui.js";

const PAGE = 50;
const COLUMNS = ["Time", "Event", "Status", "Code", "Duration", "Attempt", "Error", "Action"];

export function deliveryLog(call, ctx) {
  const filter = el(
    "select",
    { name: "status" },
    el("option", { value: "" }, "all"),
    el("option", { value: "delivered" }, "delivered"),
    el("option", { value: "failed" }, "failed"),
  );
  const live = el("input", { type: "checkbox", name: "live", checked: true });
  const body = el("tbody");
  const table = el(
    "table",
    { class: "deliveries" },
    el("caption", { class: "hint" }, "Delivery attempts, newest first"),
    el("thead", {}, el("tr", {}, ...COLUMNS.map((name) => el("th", { scope: "col" }, name)))),
    body,
  );
  const empty = el(
    "p",
    { class: "hint", hidden: true },
    "No delivery yet: events the webhook subscribes to appear here once sent.",
  );
  const older = el(
    "button",
    { type: "button", class: "secondary", hidden: true, onclick: () => loadOlder() },
    "Load older deliveries",
  );
  const status = feedback();
  let shown = []; // the deliveries on screen, newest first
  let next = null; // the cursor of the page after them
  let drawnKey = "";
  let timer = null;
  let stopped = false;

  filter.addEventListener("change", () => load());
  live.addEventListener("change", () => schedule());

  // `automatic`: a refresh of the timer, which leaves older pages the user loaded alone.
  async function load(automatic = false) {
    const answer = await call("GET", "/webhook/deliveries", { query: { limit: PAGE, status: filter.value } });
    if (stopped || (automatic && shown.length > PAGE)) return;
    if (!answer.ok) {
      ctx.showError(status, answer);
    } else {
      if (status.querySelector(".error")) status.replaceChildren();
      shown = answer.body.deliveries;
      next = answer.body.next;
      draw();
    }
    schedule();
  }

  async function loadOlder() {
    clearTimeout(timer); // older pages stay until "Refresh deliveries"
    const answer = await call("GET", "/webhook/deliveries", {
      query: { limit: PAGE, status: filter.value, cursor: next },
    });
    if (!answer.ok) return ctx.showError(status, answer);
    shown = [...shown, ...answer.body.deliveries];
    next = answer.body.next;
    draw();
  }

  function schedule() {
    clearTimeout(timer);
    timer = null;
    if (stopped) return;
    if (!node.isConnected) return stop(); // the panel was replaced: end the loop
    if (live.checked && shown.length <= PAGE) timer = setTimeout(() => load(true), pollMs());
  }

  function draw() {
    const key = JSON.stringify([shown, next]);
    if (key === drawnKey) return;
    drawnKey = key;
    const offered = new Set(); // one Redeliver per event: on its newest attempt
    body.replaceChildren(
      ...shown.map((delivery) => {
        const first = !offered.has(delivery.id);
        offered.add(delivery.id);
        return row(delivery, first);
      }),
    );
    table.hidden = !shown.length;
    empty.hidden = Boolean(shown.length);
    older.hidden = !next;
  }

  // Each cell carries its column's name: under 600 px a row is drawn as a small card.
  function row(delivery, withAction) {
    const cells = [
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
    ];
    cells.forEach((cell, index) => {
      cell.dataset.label = COLUMNS[index];
    });
    return el("tr", {}, cells);
  }

  async function redeliver(delivery) {
    const answer = await call("POST", `/webhook/deliveries/${encodeURIComponent(delivery.id)}/redeliver`);
    if (!answer.ok) return ctx.showError(status, answer);
    say(status, `${answer.body.event} queued for redelivery (event ${answer.body.id}).`);
    load();
  }

  function stop() {
    stopped = true;
    clearTimeout(timer);
  }

  const node = el(
    "section",
    { class: "panel", "aria-label": "Delivery log" },
    el("h4", {}, "Delivery log"),
    el(
      "div",
      { class: "inline log-controls" },
      field("Show attempts", filter),
      actionButton("Refresh deliveries", { class: "secondary" }, () => load()),
      el("label", { class: "check" }, live, "Refresh automatically"),
    ),
    status,
    el("div", { class: "scroll", role: "region", "aria-label": "Delivery attempts", tabindex: "0" }, table),
    empty,
    older,
  );
  table.hidden = true;
  return { node, load, stop };
}
