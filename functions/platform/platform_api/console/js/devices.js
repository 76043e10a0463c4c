// The devices view of a signed-in user: the list with live status, creating a device, and
// the view of the device chosen. One poll loop (GET /status, then GET /devices/{id} for the
// device shown) keeps everything current without a reload.

import { api } from "./api.js";
import { renderDevice } from "./device.js";
import { el, field, pollMs, showError } from "./ui.js";

export function renderDevices(main, { onRefused, who }) {
  const list = el("ul", { class: "devices", "aria-label": "Devices" });
  const listFeedback = el("div", { class: "feedback", "aria-live": "polite" });
  const detail = el(
    "section",
    { class: "card detail", "aria-label": "Device" },
    el("p", { class: "hint" }, "Choose or create a device."),
  );
  const nameInput = el("input", { type: "text", name: "name", maxlength: 100, autocomplete: "off" });
  const createForm = el(
    "form",
    { class: "inline" },
    field("New device name", nameInput),
    el("button", { type: "submit" }, "Create device"),
  );
  let selectedId = null;
  let shown = null; // the device view: {id, update(device), stop()}
  let timer = null;
  let running = null; // the poll in flight, if any
  let paused = false;
  let stopped = false;

  async function tick() {
    const status = await api("GET", "/status");
    if (stopped) return;
    if (status.status === 401) return onRefused();
    if (status.ok) {
      const { user, tenant, devices } = status.body;
      who.textContent = `${user.email} (${user.role}) · ${tenant.name}`;
      drawList(devices);
      listFeedback.replaceChildren();
    } else {
      showError(listFeedback, status);
    }
    if (shown) {
      const answer = await api("GET", `/devices/${shown.id}`);
      if (stopped) return;
      if (answer.ok) shown.update(answer.body.device);
      else if (answer.status === 404) closeDevice();
    }
    schedule();
  }

  function schedule(delay = pollMs()) {
    if (stopped || paused) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      running = tick().finally(() => {
        running = null;
      });
    }, delay);
  }

  // Before deleting the device shown: no poll may ask for it once it is gone.
  async function pause() {
    paused = true;
    clearTimeout(timer);
    if (running) await running;
  }

  function resume() {
    paused = false;
    schedule(0);
  }

  let drawn = null; // what the list shows: redrawn only when it changes, so focus stays put
  function drawList(devices) {
    const showing = JSON.stringify([
      selectedId,
      devices.map((device) => [device.id, device.name, device.status]),
    ]);
    if (showing === drawn) return;
    drawn = showing;
    if (!devices.length) {
      list.replaceChildren(el("li", { class: "hint" }, "No device yet."));
      return;
    }
    list.replaceChildren(
      ...devices.map((device) =>
        el(
          "li",
          {},
          el(
            "button",
            {
              type: "button",
              class: device.id === selectedId ? "device current" : "device",
              "aria-current": device.id === selectedId ? "true" : null,
              onclick: () => openDevice(device.id),
            },
            el("span", { class: "name" }, device.name),
            " ",
            el("span", { class: `badge ${device.status}` }, device.status),
          ),
        ),
      ),
    );
  }

  async function openDevice(id) {
    const answer = await api("GET", `/devices/${id}`);
    if (answer.status === 401) return onRefused();
    if (!answer.ok) return showError(listFeedback, answer);
    if (shown) shown.stop();
    selectedId = id;
    shown = renderDevice(detail, answer.body.device, {
      onDeleted: closeDevice,
      refresh: () => schedule(0),
      pause,
      resume,
    });
    schedule(0);
  }

  function closeDevice() {
    if (shown) shown.stop();
    shown = null;
    selectedId = null;
    detail.replaceChildren(el("p", { class: "hint" }, "Choose or create a device."));
    resume();
  }

  createForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = nameInput.value.trim();
    const answer = await api("POST", "/devices", { body: name ? { name } : {} });
    if (!answer.ok) return showError(listFeedback, answer);
    nameInput.value = "";
    openDevice(answer.body.device.id);
  });

  main.replaceChildren(
    el(
      "div",
      { class: "layout" },
      el(
        "section",
        { class: "card list", "aria-labelledby": "devices-title" },
        el("h2", { id: "devices-title" }, "Devices"),
        createForm,
        listFeedback,
        list,
      ),
      detail,
    ),
  );
  schedule(0);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
      if (shown) shown.stop();
    },
  };
}
