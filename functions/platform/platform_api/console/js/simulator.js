// The simulator panel (local stack only): plays the rest of the network against the device
// through /_simulator (docs/simulator.md), with the master token, which it asks for itself
// and keeps in sessionStorage like the user token. Deployed, /_simulator does not exist: the
// panel stays hidden.

import { masterApi, request, tokens } from "./api.js";
import { el, field, showError } from "./ui.js";

let available = null; // one look per page: does this gateway serve /_simulator?

// The API document names the simulator's routes where they are served (the local stack's is
// made from its routers; the deployed one is the packaged document, without them). Asked
// this way, the answer is a 200 in both places, never a refused request in the browser log.
function simulatorServed() {
  if (available === null) {
    available = request(null, "GET", "/openapi.json").then(
      (answer) =>
        answer.ok && Boolean(answer.body.paths && answer.body.paths["/_simulator/devices/{device_id}/scan"]),
    );
  }
  return available;
}

export function renderSimulator(device, refresh) {
  let current = device;
  const node = el("section", {
    class: "panel simulator",
    "aria-labelledby": "simulator-title",
    hidden: true,
  });
  const body = el("div");
  node.append(
    el("h3", { id: "simulator-title" }, "Simulator"),
    el("p", { class: "hint" }, "Local stack only: play the phones and the network."),
    body,
  );

  function masterForm() {
    const input = el("input", { type: "password", autocomplete: "off", spellcheck: false });
    const feedback = el("div", { class: "feedback", "aria-live": "polite" });
    const form = el(
      "form",
      { class: "inline" },
      field("Master token", input),
      el("button", { type: "submit" }, "Use master token"),
      feedback,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const token = input.value.trim();
      const answer = await request(token, "GET", "/tenants", { query: { limit: 1 } });
      if (!answer.ok) return showError(feedback, answer.status === 401 ? { error: "Invalid token" } : answer);
      tokens.setMaster(token);
      draw();
    });
    return form;
  }

  function action(title, fields, label, run) {
    const feedback = el("div", { class: "feedback", "aria-live": "polite" });
    const form = el(
      "form",
      { class: "inline" },
      ...fields.map(([name, input]) => field(name, input)),
      el("button", { type: "submit" }, label),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const button = form.querySelector("button");
      button.disabled = true;
      const answer = await run();
      button.disabled = false;
      if (answer.status === 401) {
        tokens.forgetMaster();
        draw();
        return;
      }
      if (!answer.ok) return showError(feedback, answer);
      feedback.replaceChildren(
        el("p", { role: "status", class: "result" }, "Done."),
        el("pre", { class: "json" }, JSON.stringify(answer.body, null, 2)),
      );
      refresh();
    });
    return el("div", { class: "sim-action" }, el("h4", {}, title), form, feedback);
  }

  function controls() {
    const scanPhone = el("input", {
      type: "tel",
      inputmode: "numeric",
      autocomplete: "off",
      placeholder: "4915112345678",
    });
    const contactPhone = el("input", {
      type: "tel",
      inputmode: "numeric",
      autocomplete: "off",
      placeholder: "4917000000001",
    });
    const contactName = el("input", { type: "text", autocomplete: "off", placeholder: "Ana" });
    const sender = el("input", {
      type: "tel",
      inputmode: "numeric",
      autocomplete: "off",
      placeholder: "4917000000001",
    });
    const text = el("input", { type: "text", autocomplete: "off", value: "hello from the simulator" });
    const forget = el("button", { type: "button", class: "secondary" }, "Forget master token");
    forget.addEventListener("click", () => {
      tokens.forgetMaster();
      draw();
    });
    const device = () => current.id;
    const deviceJid = () => (current.messaging_jid || "").split("@")[0].split(":")[0];
    return [
      action("Scan the QR code as a phone", [["Scanning phone number", scanPhone]], "Scan QR code", () =>
        masterApi("POST", `/_simulator/devices/${device()}/scan`, {
          body: { phone: scanPhone.value.trim() },
        }),
      ),
      action(
        "Make a contact",
        [
          ["Contact phone number", contactPhone],
          ["Contact name", contactName],
        ],
        "Create contact",
        () =>
          masterApi("POST", "/_simulator/accounts", {
            body: {
              phone: contactPhone.value.trim(),
              ...(contactName.value.trim() ? { name: contactName.value.trim() } : {}),
            },
          }),
      ),
      action(
        "Send a message to the device",
        [
          ["Sender phone number", sender],
          ["Text from the contact", text],
        ],
        "Send to device",
        () =>
          masterApi("POST", `/_simulator/accounts/${encodeURIComponent(sender.value.trim())}/messages`, {
            body: { to: deviceJid(), text: text.value },
          }),
      ),
      action("The network", [], "Drop connection", () =>
        masterApi("POST", `/_simulator/devices/${device()}/drop`),
      ),
      forget,
    ];
  }

  function draw() {
    body.replaceChildren(...(tokens.master() ? controls() : [masterForm()]));
  }

  simulatorServed().then((served) => {
    node.hidden = !served;
    node.dataset.served = String(served);
    if (served) draw();
  });

  return {
    node,
    update(next) {
      current = next;
    },
  };
}
