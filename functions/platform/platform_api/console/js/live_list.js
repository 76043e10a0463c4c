// A device's list read a page at a time, newest first, that keeps itself current: the webhook's
// delivery log (GET /webhook/deliveries) and the outbox (GET /sends). A filter of one query
// parameter, "Load older …" with the list's `next` cursor, and a table whose rows become
// small cards under 600 px (each cell carries its column's name, panels.css).
//
// The first page refreshes by itself while the panel is shown (the interval of the other
// live views), and is redrawn only when it changed, so a row does not move under the
// pointer for nothing. Once older pages are loaded, it waits for "Refresh …".

import { actionButton, feedback } from "./panel_kit.js";
import { el, field, pollMs } from "./ui.js";

const PAGE = 50;

// `spec`: {path, key (the answer's list), filter: {label, name, choices: [[value, text]]},
// noun (plural, "deliveries": the buttons' words), region (the table's name), caption,
// className, columns, empty, rows(items) → <tr>s}.
export function liveList(call, ctx, spec) {
  const filter = el(
    "select",
    { name: spec.filter.name },
    ...spec.filter.choices.map(([value, text]) => el("option", { value }, text)),
  );
  const live = el("input", { type: "checkbox", name: "live", checked: true });
  const body = el("tbody");
  const table = el(
    "table",
    { class: spec.className, hidden: true },
    el("caption", { class: "hint" }, spec.caption),
    el("thead", {}, el("tr", {}, ...spec.columns.map((name) => el("th", { scope: "col" }, name)))),
    body,
  );
  const empty = el("p", { class: "hint", hidden: true }, spec.empty);
  const older = el(
    "button",
    { type: "button", class: "secondary", hidden: true, onclick: () => loadOlder() },
    `Load older ${spec.noun}`,
  );
  const problem = feedback(); // why the list could not be read; gone once it is read again
  const status = feedback(); // what the panel's actions on its rows answered
  let shown = []; // the items on screen, newest first
  let next = null; // the cursor of the page after them
  let drawnKey = "";
  let timer = null;
  let stopped = false;

  filter.addEventListener("change", () => load());
  live.addEventListener("change", () => schedule());

  const query = (cursor) => ({ limit: PAGE, [spec.filter.name]: filter.value, cursor });

  // `automatic`: a refresh of the timer, which leaves older pages the user loaded alone.
  async function load(automatic = false) {
    const answer = await call("GET", spec.path, { query: query() });
    if (stopped || (automatic && shown.length > PAGE)) return;
    if (!answer.ok) {
      ctx.showError(problem, answer);
    } else {
      problem.replaceChildren();
      shown = answer.body[spec.key];
      next = answer.body.next;
      draw();
    }
    schedule();
  }

  async function loadOlder() {
    clearTimeout(timer); // older pages stay until "Refresh …"
    const answer = await call("GET", spec.path, { query: query(next) });
    if (!answer.ok) return ctx.showError(problem, answer);
    shown = [...shown, ...answer.body[spec.key]];
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
    const rows = spec.rows(shown);
    for (const row of rows) {
      [...row.cells].forEach((cell, index) => {
        cell.dataset.label = spec.columns[index];
      });
    }
    body.replaceChildren(...rows);
    table.hidden = !shown.length;
    empty.hidden = Boolean(shown.length);
    older.hidden = !next;
  }

  function stop() {
    stopped = true;
    clearTimeout(timer);
  }

  const node = el(
    "div",
    {},
    el(
      "div",
      { class: "inline log-controls" },
      field(spec.filter.label, filter),
      actionButton(`Refresh ${spec.noun}`, { class: "secondary" }, () => load()),
      el("label", { class: "check" }, live, `Refresh ${spec.noun} automatically`),
    ),
    problem,
    status,
    el("div", { class: "scroll", role: "region", "aria-label": spec.region, tabindex: "0" }, table),
    empty,
    older,
  );
  return { node, status, load, stop };
}
