// Pairing a device: the QR code as an image while the device is `pairing`, fetched again when
// the network rotates it (at its `expires_at`), and pairing by phone number with the code to
// type on the phone. GET /devices/{id}/qr gives the code as a PNG in base64: shown as a
// data: image, so no QR encoder runs in the browser.

import { api } from "./api.js";
import { el, field, showError } from "./ui.js";

export function renderPairing(device) {
  let current = device;
  let expiresAt = 0;
  let shownCode = null;
  let fetching = false;
  let clock = null;

  const image = el("img", {
    class: "qr",
    alt: "QR code to scan with the phone",
    width: 264,
    height: 264,
    hidden: true,
  });
  const expiry = el("p", { class: "hint", "aria-live": "off" });
  const qrFeedback = el("div", { class: "feedback", "aria-live": "polite" });
  const qrBox = el("div", { class: "qrbox" }, image, expiry, qrFeedback);

  const phone = el("input", {
    type: "tel",
    inputmode: "numeric",
    autocomplete: "off",
    placeholder: "15551234567",
  });
  const codeFeedback = el("div", { class: "feedback", "aria-live": "polite" });
  const byPhone = el(
    "form",
    { class: "inline" },
    field("Phone number to pair", phone),
    el("button", { type: "submit" }, "Get pair code"),
  );
  byPhone.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await api("POST", `/devices/${current.id}/pair-phone`, {
      body: { phone: phone.value.trim() },
    });
    if (!answer.ok) return showError(codeFeedback, answer);
    codeFeedback.replaceChildren(
      el(
        "p",
        { role: "status" },
        "Enter this code on the phone (Linked devices → Link with phone number): ",
        el("strong", { class: "code", "data-testid": "pair-code" }, answer.body.pair_code),
      ),
    );
  });

  const node = el(
    "section",
    { class: "panel", "aria-labelledby": "pairing-title" },
    el("h3", { id: "pairing-title" }, "Pairing"),
    el("p", { class: "hint", "data-testid": "pairing-hint" }),
    qrBox,
    el("div", { class: "byphone" }, byPhone, codeFeedback),
  );
  const byPhoneBox = node.querySelector(".byphone");
  const hint = node.querySelector("[data-testid=pairing-hint]");

  async function fetchQr() {
    if (fetching) return;
    fetching = true;
    const answer = await api("GET", `/devices/${current.id}/qr`);
    fetching = false;
    if (current.status !== "pairing") return;
    if (!answer.ok) {
      showError(qrFeedback, answer);
      expiresAt = Date.now() + 1000; // ask again shortly: the session may still be starting
      return;
    }
    qrFeedback.replaceChildren();
    expiresAt = Date.parse(answer.body.expires_at);
    if (answer.body.qr_code !== shownCode) {
      shownCode = answer.body.qr_code;
      image.src = `data:image/png;base64,${answer.body.qr_png_base64}`;
      image.dataset.code = shownCode;
    }
    image.hidden = false;
    tickClock();
  }

  function tickClock() {
    if (image.hidden) return;
    const left = Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
    expiry.textContent = `Expires at ${new Date(expiresAt).toLocaleTimeString()} (in ${left} s); a new code follows.`;
  }

  function update(next) {
    current = next;
    byPhoneBox.hidden = next.is_logged_in; // a paired device gets no code (409 ALREADY_LOGGED_IN)
    if (next.status === "pairing") {
      hint.textContent =
        "Scan the QR code with the phone (Linked devices → Link a device), or pair by phone number.";
      if (!shownCode || Date.now() >= expiresAt) fetchQr();
      if (!clock) clock = setInterval(tickClock, 1000);
    } else {
      hint.textContent = next.is_logged_in
        ? "Paired: no QR code is needed."
        : "Connect the device to get a QR code, or enter a phone number after connecting.";
      shownCode = null;
      image.hidden = true;
      image.removeAttribute("src");
      expiry.textContent = "";
      qrFeedback.replaceChildren();
      clearInterval(clock);
      clock = null;
    }
  }

  return {
    node,
    update,
    stop() {
      clearInterval(clock);
    },
  };
}
