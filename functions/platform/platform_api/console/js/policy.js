// A device's sending policy (PATCH /devices/{id}, a partial update; docs/sending-policy.md):
// its daily limits, the warm-up and the jitter, and what it used today and whether the
// network paused its sends to new chats, which the device's polling keeps current.
//
// The ranges are the API's to judge: the form does not check them itself (novalidate), so a
// value out of range gets the API's own VALIDATION_ERROR, naming the field, and nothing is
// saved. An empty limit is no limit (null); an empty warm-up or jitter is 0 (none).

import { deviceForm, fact, timeText } from "./panel_kit.js";
import { el, field } from "./ui.js";

const LIMITS = ["daily_send_limit", "new_chat_daily_limit"];
const FIELDS = [...LIMITS, "warmup_days", "send_jitter_seconds"];

export function renderPolicy(device) {
  const number = (min, max, placeholder) =>
    el("input", { type: "number", min, max, step: 1, inputmode: "numeric", placeholder });
  const inputs = {
    daily_send_limit: number(1, 10000, "no limit"),
    new_chat_daily_limit: number(1, 10000, "no limit"),
    warmup_days: number(0, 90, "0"),
    send_jitter_seconds: number(0, 60, "0"),
  };
  const usage = el("dl", { class: "facts", "aria-label": "Sending today" });
  let shownKey = "";
  const feedback = el("div", { class: "feedback", "aria-live": "polite" });
  const form = el(
    "form",
    { "aria-label": "Sending policy", novalidate: true },
    field("Messages a UTC day (1 to 10000; empty: no limit)", inputs.daily_send_limit),
    field("Messages a UTC day to new chats (1 to 10000; empty: no limit)", inputs.new_chat_daily_limit),
    field("Warm-up days: limits ramp from 10 % to 100 % (0 to 90)", inputs.warmup_days),
    field("Random extra seconds between sends (0 to 60)", inputs.send_jitter_seconds),
    el("div", { class: "actions" }, el("button", { type: "submit" }, "Save sending policy")),
  );
  const update = deviceForm(device, form, feedback, {
    nothing: "Nothing to save: the policy is as shown.",
    summary,
    // Only what differs from the device as last read is sent (a partial update).
    changes(current) {
      const body = {};
      for (const name of FIELDS) {
        const typed = inputs[name].value.trim();
        const value = typed === "" ? (LIMITS.includes(name) ? null : 0) : Number(typed);
        if (value !== current[name]) body[name] = value;
      }
      return body;
    },
    show(next) {
      const today = next.usage_today;
      const key = JSON.stringify([today, next.sending_paused_until]);
      if (key === shownKey) return; // redrawn only when it changed, not on every poll
      shownKey = key;
      usage.replaceChildren(
        ...fact(`Sent today (${today.day}, UTC)`, used(today.sent, today.daily_limit)),
        ...fact("Of them to new chats", used(today.new_chats, today.new_chat_limit)),
        ...fact(
          "Sends to new chats",
          next.sending_paused_until
            ? el("span", {}, "paused by the network until ", timeText(next.sending_paused_until))
            : "not paused",
        ),
      );
    },
    fill(next) {
      for (const name of FIELDS) inputs[name].value = next[name] ?? "";
    },
  });

  return {
    node: el(
      "section",
      { class: "panel", "aria-labelledby": "policy-title" },
      el("h3", { id: "policy-title" }, "Sending policy"),
      el(
        "p",
        { class: "hint" },
        "A send over a limit waits for the earliest moment the policy allows; none is refused or " +
          "lost. The jitter adds to the minimum seconds between sends of the settings. Today's " +
          "limits are after the warm-up.",
      ),
      usage,
      form,
      feedback,
    ),
    update,
  };
}

// "3 of 30", or "3 (no limit)".
function used(count, limit) {
  return limit === null ? `${count} (no limit)` : `${count} of ${limit}`;
}

function summary(device) {
  const limit = (value, per, none) => (value === null ? none : `at most ${value} ${per}`);
  return [
    limit(device.daily_send_limit, "a day", "no daily limit"),
    limit(device.new_chat_daily_limit, "a day to new chats", "no new-chat limit"),
    device.warmup_days ? `warm-up over ${device.warmup_days} days` : "no warm-up",
    device.send_jitter_seconds ? `up to ${device.send_jitter_seconds} s of jitter` : "no jitter",
  ].join("; ");
}
