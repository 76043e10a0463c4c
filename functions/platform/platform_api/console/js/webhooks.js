// The Webhooks panel of a device: its configuration (URL, events from the catalog, retries,
// timeout, secret, custom headers) and its delivery log (webhook_deliveries.js).
//
// What the API never shows, the panel never shows either (docs/webhooks.md): the secret is
// write-only (an empty field keeps the stored one) and custom header values come back as
// "***", which, posted back, keeps the stored value. So a read, changed and saved
// configuration keeps what the user cannot see (but for a changed URL: the API then keeps
// neither, and they must be typed again), and the page never holds those values.

import { actionButton, collapsible, deviceApi, feedback, say } from "./panel_kit.js";
import { el, field } from "./ui.js";
import { deliveryLog } from "./webhook_deliveries.js";

const MASKED = "***";
const ALIASES = { message: "every message.* event", "message.ack": "message.delivered and message.read" };

// Contract of a device panel: render(container, ctx) with ctx = {device, api, showError}.
export function render(container, ctx) {
  const call = deviceApi(ctx);
  collapsible(container, "Webhooks", (body) => {
    const config = configuration(call, ctx);
    const log = deliveryLog(call, ctx);
    body.replaceChildren(config.node, log.node);
    config.load();
    log.load();
  });
}

function configuration(call, ctx) {
  let stored = null; // the configuration as GET /webhook answers it, or null when there is none
  let catalog = [];

  const url = el("input", {
    type: "url",
    name: "webhook_url",
    autocomplete: "off",
    spellcheck: false,
    placeholder: "https://hooks.example.com/gateway",
  });
  const enabled = el("input", { type: "checkbox", name: "enabled", checked: true });
  const retries = el("input", {
    type: "number",
    name: "retry_attempts",
    min: 0,
    max: 10,
    step: 1,
    value: "3",
    inputmode: "numeric",
  });
  const timeout = el("input", {
    type: "number",
    name: "timeout",
    min: 1,
    max: 30,
    step: 1,
    value: "10",
    inputmode: "numeric",
  });
  const secret = el("input", {
    type: "password",
    name: "secret",
    autocomplete: "new-password",
    maxlength: 256,
    spellcheck: false,
  });
  const removeSecret = el("input", { type: "checkbox", name: "remove_secret" });
  const removeSecretField = el("label", { class: "check" }, removeSecret, "Remove the secret");
  const summary = el("p", { class: "hint" });
  const headers = headerRows();
  const events = eventChooser();
  const status = feedback();

  const confirmDelete = el(
    "div",
    { class: "confirm", hidden: true },
    el("span", {}, "Delete the configuration? Delivery stops at once."),
    actionButton("Confirm delete", { class: "danger" }, remove),
    el(
      "button",
      {
        type: "button",
        class: "secondary",
        onclick: () => {
          confirmDelete.hidden = true;
        },
      },
      "Cancel delete",
    ),
  );
  const deleteButton = el(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: () => {
        confirmDelete.hidden = false;
      },
    },
    "Delete webhook",
  );

  const form = el(
    "form",
    { class: "panel", "aria-label": "Webhook configuration" },
    summary,
    field("Webhook URL", url),
    el("label", { class: "check" }, enabled, "Enabled (off: keep the configuration, deliver nothing)"),
    el(
      "div",
      { class: "inline" },
      field("Retries after a failure (0 to 10)", retries),
      field("Timeout in seconds (1 to 30)", timeout),
    ),
    field("Secret (write-only: leave empty to keep the current one, unless the URL changes)", secret),
    removeSecretField,
    headers.node,
    events.node,
    el("div", { class: "actions" }, el("button", { type: "submit" }, "Save webhook"), deleteButton),
    confirmDelete,
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await save();
    } finally {
      button.disabled = false;
    }
  });

  async function load() {
    const [listed, current] = await Promise.all([call("GET", "/webhook/events"), call("GET", "/webhook")]);
    if (!listed.ok) return ctx.showError(status, listed);
    catalog = listed.body.events;
    if (current.ok) stored = current.body.webhook;
    else if (current.status === 404 && current.body && current.body.error_code === "WEBHOOK_NOT_CONFIGURED")
      stored = null;
    else return ctx.showError(status, current);
    fill();
  }

  function fill() {
    const webhook = stored || {
      webhook_url: "",
      enabled_events: [],
      enabled: true,
      retry_attempts: 3,
      timeout: 10,
      headers: {},
      has_secret: false,
    };
    url.value = webhook.webhook_url;
    enabled.checked = webhook.enabled;
    retries.value = String(webhook.retry_attempts);
    timeout.value = String(webhook.timeout);
    secret.value = "";
    secret.placeholder = webhook.has_secret ? "a secret is set (hidden)" : "no secret";
    removeSecret.checked = false;
    removeSecretField.hidden = !webhook.has_secret;
    headers.fill(webhook.headers);
    events.fill(catalog, webhook.enabled_events);
    deleteButton.hidden = !stored;
    confirmDelete.hidden = true;
    summary.textContent = stored
      ? `Configured: ${stored.enabled ? "enabled" : "disabled"}, ${stored.enabled_events.length} event name(s), ${stored.has_secret ? "signed with a secret" : "no secret"}.`
      : "Not configured: this device's events are not delivered anywhere yet.";
  }

  function body() {
    const chosen = {
      webhook_url: url.value.trim(),
      enabled_events: events.chosen(),
      enabled: enabled.checked,
    };
    for (const [name, input] of [
      ["retry_attempts", retries],
      ["timeout", timeout],
    ]) {
      if (input.value !== "") chosen[name] = Number(input.value);
    }
    if (removeSecret.checked) chosen.secret = null;
    else if (secret.value) chosen.secret = secret.value;
    chosen.headers = headers.value();
    return chosen;
  }

  async function save() {
    const answer = await call("POST", "/webhook", { body: body() });
    if (!answer.ok) return ctx.showError(status, answer);
    stored = answer.body.webhook;
    fill();
    say(status, answer.status === 201 ? "Webhook created." : "Webhook saved.");
  }

  async function remove() {
    const answer = await call("DELETE", "/webhook");
    if (!answer.ok && answer.status !== 404) return ctx.showError(status, answer);
    stored = null;
    fill();
    say(status, "Webhook deleted: nothing is delivered any more.");
  }

  return { node: form, load };
}

// The custom headers: stored ones by name with their value hidden (an empty value keeps it),
// new ones with a name and a value. Values are password fields: often a receiver's credential.
function headerRows() {
  const rows = el("div", { class: "header-rows" });
  const list = [];
  let added = 0;

  function row(name, isStored) {
    added += 1;
    const nameInput = el("input", {
      type: "text",
      autocomplete: "off",
      spellcheck: false,
      maxlength: 100,
      value: name,
      readOnly: isStored,
      "aria-label": isStored ? `Header name ${name}` : `New header ${added} name`,
    });
    const valueInput = el("input", {
      type: "password",
      autocomplete: "new-password",
      spellcheck: false,
      maxlength: 2048,
      placeholder: isStored ? "hidden: leave empty to keep" : "value",
      "aria-label": isStored ? `Value of header ${name}` : `New header ${added} value`,
    });
    const item = { nameInput, valueInput, isStored, node: null };
    const removeButton = el(
      "button",
      {
        type: "button",
        class: "secondary",
        "aria-label": isStored ? `Remove header ${name}` : `Remove new header ${added}`,
        onclick: () => {
          list.splice(list.indexOf(item), 1);
          item.node.remove();
        },
      },
      "Remove",
    );
    item.node = el("div", { class: "header-row" }, nameInput, valueInput, removeButton);
    list.push(item);
    rows.append(item.node);
  }

  return {
    node: el(
      "fieldset",
      { class: "headers" },
      el("legend", {}, "Custom headers (values are never shown)"),
      rows,
      el(
        "button",
        {
          type: "button",
          class: "secondary",
          onclick: () => {
            row("", false);
            list.at(-1).nameInput.focus();
          },
        },
        "Add header",
      ),
    ),
    fill(stored) {
      list.length = 0;
      rows.replaceChildren();
      for (const name of Object.keys(stored || {})) row(name, true);
    },
    // Every row with a name: a typed value, or "***" to keep a stored one. A new header
    // left without a value is sent as "" so that the API names the field in its answer.
    value() {
      const headers = {};
      for (const { nameInput, valueInput, isStored } of list) {
        const name = nameInput.value.trim();
        if (name) headers[name] = valueInput.value || (isStored ? MASKED : "");
      }
      return headers;
    },
  };
}

// The events of the catalog (GET /webhook/events) as checkboxes, with a filter and
// all/none shortcuts; names stored that the catalog no longer lists are kept and shown.
function eventChooser() {
  const boxes = el("div", { class: "event-list", role: "group", "aria-label": "Events" });
  const filter = el("input", {
    type: "search",
    autocomplete: "off",
    spellcheck: false,
    placeholder: "e.g. message, group",
    "aria-label": "Filter events",
  });
  const count = el("span", { class: "hint", "aria-live": "polite" });
  let inputs = [];

  const update = () => {
    count.textContent = `${inputs.filter((input) => input.checked).length} chosen`;
  };
  const setAll = (checked) => {
    for (const input of inputs) if (!input.parentElement.hidden) input.checked = checked;
    update();
  };
  filter.addEventListener("input", () => {
    const words = filter.value.trim().toLowerCase();
    for (const input of inputs) input.parentElement.hidden = Boolean(words) && !input.value.includes(words);
  });
  boxes.addEventListener("change", update);

  return {
    node: el(
      "fieldset",
      { class: "events" },
      el("legend", {}, "Events to deliver "),
      count,
      el(
        "div",
        { class: "inline" },
        filter,
        el("button", { type: "button", class: "secondary", onclick: () => setAll(true) }, "Choose all shown"),
        el("button", { type: "button", class: "secondary", onclick: () => setAll(false) }, "Clear all shown"),
      ),
      boxes,
    ),
    fill(catalog, chosen) {
      const names = [...catalog, ...chosen.filter((name) => !catalog.includes(name))];
      inputs = names.map((name) =>
        el("input", { type: "checkbox", value: name, checked: chosen.includes(name) }),
      );
      boxes.replaceChildren(
        ...inputs.map((input) =>
          el(
            "label",
            { class: "check" },
            input,
            el("span", { class: "mono" }, input.value),
            ALIASES[input.value] ? el("span", { class: "hint" }, ` (${ALIASES[input.value]})`) : null,
          ),
        ),
      );
      filter.value = "";
      update();
    },
    chosen: () => inputs.filter((input) => input.checked).map((input) => input.value),
  };
}
