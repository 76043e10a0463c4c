// A device's settings (PATCH /devices/{id}, a partial update; docs/devices.md): the send
// spacing, rejecting every call (with the text a rejected caller gets) and the proxy its
// network connection goes through.
//
// The proxy is shown as the API shows it, its password as "***"; the field for a new one is
// always empty and is emptied again once saved, so a typed password never stays in the page.
// Left empty, the stored proxy is kept.

import { deviceForm } from "./panel_kit.js";
import { el, field } from "./ui.js";

export function renderSettings(device) {
  const interval = el("input", {
    type: "number",
    min: 0,
    max: 600,
    step: 1,
    required: true,
    inputmode: "numeric",
  });
  const rejectCalls = el("input", { type: "checkbox" });
  const rejectMessage = el("textarea", { rows: 2, maxlength: 4096 });
  const proxyShown = el("p", { class: "hint wrap", "data-testid": "proxy-shown" });
  const proxy = el("input", {
    type: "text",
    inputmode: "url",
    autocomplete: "off",
    spellcheck: false,
    maxlength: 2048,
    placeholder: "socks5://user:password@203.0.113.7:1080",
  });
  const removeProxy = el("input", { type: "checkbox" });
  const feedback = el("div", { class: "feedback", "aria-live": "polite" });
  const form = el(
    "form",
    { "aria-label": "Device settings" },
    field("Minimum seconds between sends", interval),
    el("h4", {}, "Calls"),
    el("label", { class: "check" }, rejectCalls, "Reject every call"),
    field("Text a rejected caller gets (optional)", rejectMessage),
    el("h4", {}, "Proxy"),
    proxyShown,
    field("New proxy URL (http, https or socks5; from the next connect)", proxy),
    el("label", { class: "check" }, removeProxy, "Remove the proxy"),
    el("div", { class: "actions" }, el("button", { type: "submit" }, "Save settings")),
  );
  const update = deviceForm(device, form, feedback, {
    nothing: "Nothing to save: the settings are as shown.",
    summary,
    // Only what differs from the device as last read is sent (a partial update).
    changes(current) {
      const body = {};
      const seconds = interval.value === "" ? null : Number(interval.value);
      if (seconds !== current.min_send_interval_seconds) body.min_send_interval_seconds = seconds;
      if (rejectCalls.checked !== current.reject_calls) body.reject_calls = rejectCalls.checked;
      const message = rejectMessage.value.trim() || null;
      if (message !== current.reject_calls_message) body.reject_calls_message = message;
      if (removeProxy.checked) body.proxy_url = null;
      else if (proxy.value.trim()) body.proxy_url = proxy.value.trim();
      return body;
    },
    show(next) {
      proxyShown.textContent = next.proxy_url
        ? `Proxy: ${next.proxy_url}`
        : "No proxy: the connection goes out directly.";
    },
    fill(next) {
      interval.value = next.min_send_interval_seconds;
      rejectCalls.checked = next.reject_calls;
      rejectMessage.value = next.reject_calls_message ?? "";
      proxy.value = ""; // also once saved: a typed password does not stay in the page
      removeProxy.checked = false;
    },
  });

  return {
    node: el(
      "section",
      { class: "panel", "aria-labelledby": "settings-title" },
      el("h3", { id: "settings-title" }, "Settings"),
      form,
      feedback,
    ),
    update,
  };
}

function summary(device) {
  const calls = device.reject_calls
    ? `calls rejected${device.reject_calls_message ? " with a message" : ""}`
    : "calls not rejected";
  const proxy = device.proxy_url ? `proxy ${device.proxy_url}` : "no proxy";
  return `sends at least ${device.min_send_interval_seconds} s apart; ${calls}; ${proxy}`;
}
