// The view of one device: its status, the session commands, pairing (QR image and pair code),
// its settings (send spacing, calls, proxy), its sending policy (limits, warm-up, jitter, what
// it sent today), a test message, the Outbox, Webhooks, Groups, Contacts and Profile panels
// and, on the local stack, the simulator. `update(device)` is called on every poll with the
// device as the API has it.

import { api } from "./api.js";
import { render as renderContacts } from "./contacts.js";
import { render as renderGroups } from "./groups.js";
import { render as renderOutbox } from "./outbox.js";
import { renderPairing } from "./pairing.js";
import { renderPolicy } from "./policy.js";
import { render as renderProfile } from "./profile.js";
import { renderSend } from "./send.js";
import { renderSettings } from "./settings.js";
import { renderSimulator } from "./simulator.js";
import { el, showError, showResult } from "./ui.js";
import { render as renderWebhooks } from "./webhooks.js";

export function renderDevice(container, device, { onDeleted, refresh, pause, resume }) {
  let current = device;
  const feedback = el("div", { class: "feedback", "aria-live": "polite" });
  const title = el("h2", { id: "device-title" });
  const status = el("span", { class: "badge", "data-testid": "device-status", "aria-live": "polite" });
  const jid = el("span", { class: "mono" });
  const busy = (button, work) => async () => {
    button.disabled = true;
    try {
      await work();
    } finally {
      button.disabled = false;
    }
  };

  function command(label, path, done, style) {
    const button = el("button", { type: "button", class: style }, label);
    button.addEventListener(
      "click",
      busy(button, async () => {
        const answer = await api("POST", `/devices/${current.id}/${path}`);
        if (!answer.ok) return showError(feedback, answer);
        showResult(feedback, done);
        update(answer.body.device);
        refresh();
      }),
    );
    return button;
  }

  const confirmDelete = el("div", { class: "confirm", hidden: true });
  const deleteButton = el("button", { type: "button", class: "danger" }, "Delete device");
  deleteButton.addEventListener("click", () => {
    const yes = el("button", { type: "button", class: "danger" }, "Yes, delete it");
    const no = el("button", { type: "button", class: "secondary" }, "Cancel");
    no.addEventListener("click", () => {
      confirmDelete.hidden = true;
      deleteButton.focus();
    });
    yes.addEventListener(
      "click",
      busy(yes, async () => {
        await pause();
        const answer = await api("DELETE", `/devices/${current.id}`);
        if (!answer.ok) {
          resume();
          return showError(feedback, answer);
        }
        onDeleted();
      }),
    );
    confirmDelete.replaceChildren(
      el("span", {}, `Delete “${current.name}” and everything stored for it?`),
      yes,
      no,
    );
    confirmDelete.hidden = false;
    yes.focus();
  });

  const settings = renderSettings(device);
  const policy = renderPolicy(device);
  const pairing = renderPairing(device);
  const simulator = renderSimulator(device, refresh);
  const outbox = el("section", { class: "panel", "aria-label": "Outbox" });
  renderOutbox(outbox, { device, api, showError });
  const webhooks = el("section", { class: "panel", "aria-label": "Webhooks" });
  const groups = el("section", { class: "panel", "aria-label": "Groups" });
  renderWebhooks(webhooks, { device, api, showError });
  const contacts = el("section", { class: "panel", "aria-label": "Contacts" });
  const profile = el("section", { class: "panel", "aria-label": "Profile" });
  renderGroups(groups, { device, api, showError });
  renderContacts(contacts, { device, api, showError });
  renderProfile(profile, { device, api, showError });

  container.replaceChildren(
    title,
    el(
      "dl",
      { class: "facts" },
      el("dt", {}, "Status"),
      el("dd", {}, status),
      el("dt", {}, "Account"),
      el("dd", {}, jid),
      el("dt", {}, "Id"),
      el("dd", { class: "mono" }, device.id),
    ),
    el(
      "div",
      { class: "actions", role: "group", "aria-label": "Session" },
      command("Connect", "connect", "Connecting: the session is starting."),
      command("Disconnect", "disconnect", "Disconnected; the login is kept.", "secondary"),
      command("Log out", "logout", "Logged out: pair again to use it.", "secondary"),
      deleteButton,
    ),
    confirmDelete,
    feedback,
    pairing.node,
    renderSend(device),
    settings.node,
    policy.node,
    outbox,
    simulator.node,
    webhooks,
    groups,
    contacts,
    profile,
  );

  function update(next) {
    current = next;
    // Only what changed is written: the status is a live region, announced when it moves.
    setText(title, next.name);
    setText(status, next.status);
    status.className = `badge ${next.status}`;
    setText(jid, next.messaging_jid || "not paired");
    settings.update(next);
    policy.update(next);
    pairing.update(next);
    simulator.update(next);
  }

  update(device);
  return {
    id: device.id,
    update,
    stop() {
      pairing.stop();
    },
  };
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}
