// A test message from the device (POST /send/text through X-Device-Id), showing the answer or
// the error envelope as the API gave it.

import { api } from "./api.js";
import { el, field, showError } from "./ui.js";

export function renderSend(device) {
  const number = el("input", {
    type: "text",
    inputmode: "tel",
    autocomplete: "off",
    placeholder: "15551234567",
  });
  const text = el("textarea", { rows: 2, maxlength: 4096 });
  const feedback = el("div", { class: "feedback", "aria-live": "polite" });
  const form = el(
    "form",
    {},
    field("Recipient (phone digits or JID)", number),
    field("Text to send", text),
    el("button", { type: "submit" }, "Send test message"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true;
    const answer = await api("POST", "/send/text", {
      body: { number: number.value.trim(), text: text.value },
      headers: { "X-Device-Id": device.id },
    });
    button.disabled = false;
    if (!answer.ok) return showError(feedback, answer);
    feedback.replaceChildren(
      el("p", { role: "status" }, `Sent (${answer.body.status}), message id ${answer.body.message_id}`),
      el("pre", { class: "json" }, JSON.stringify(answer.body, null, 2)),
    );
  });
  return el(
    "section",
    { class: "panel", "aria-labelledby": "send-title" },
    el("h3", { id: "send-title" }, "Send a test message"),
    form,
    feedback,
  );
}
