// The platform view (master token): every tenant with its counts, a page at a time.

import { masterApi } from "./api.js";
import { el, showError } from "./ui.js";

export function renderPlatform(main, { onRefused }) {
  const rows = el("tbody");
  const feedback = el("div", { class: "feedback", "aria-live": "polite" });
  const more = el("button", { type: "button", class: "secondary", hidden: true }, "More tenants");
  let cursor = null;

  async function load() {
    more.disabled = true;
    const answer = await masterApi("GET", "/tenants", { query: { limit: 50, cursor } });
    more.disabled = false;
    if (answer.status === 401) return onRefused();
    if (!answer.ok) return showError(feedback, answer);
    for (const tenant of answer.body.tenants) {
      rows.append(
        el(
          "tr",
          {},
          el("td", {}, tenant.name),
          el("td", { class: "mono" }, tenant.id),
          el("td", { class: "num" }, tenant.users_count),
          el("td", { class: "num" }, tenant.devices_count),
        ),
      );
    }
    cursor = answer.body.next;
    more.hidden = !cursor;
  }

  more.addEventListener("click", load);
  main.replaceChildren(
    el(
      "section",
      { class: "card", "aria-labelledby": "tenants-title" },
      el("h2", { id: "tenants-title" }, "Tenants"),
      el(
        "div",
        { class: "scroll" },
        el(
          "table",
          {},
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              el("th", {}, "Name"),
              el("th", {}, "Id"),
              el("th", { class: "num" }, "Users"),
              el("th", { class: "num" }, "Devices"),
            ),
          ),
          rows,
        ),
      ),
      more,
      feedback,
    ),
  );
  load();
  return { stop() {} };
}
