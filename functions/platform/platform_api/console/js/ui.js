// DOM helpers shared by every panel: building elements and showing the API's errors in words.

// el("button", {type: "button", onclick: fn}, "Save"): attributes, properties and listeners
// (on*), then children (strings become text; null and false are skipped).
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      node.className = value;
    } else if (name === "dataset") {
      Object.assign(node.dataset, value);
    } else if (name in node && typeof value !== "string") {
      node[name] = value;
    } else {
      node.setAttribute(name, value === true ? "" : value);
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// The words of any error body the gateway sends: the standard envelope {error, error_code},
// the group envelope {error: {code, message}}, the short auth bodies {error}.
export function errorText(envelope, status) {
  const body = envelope && typeof envelope === "object" ? envelope : {};
  let message = body.error;
  let code = body.error_code;
  if (message && typeof message === "object") {
    code = message.code;
    message = message.message;
  }
  message = message || (status ? `HTTP ${status}` : "unknown error");
  // The API's summary usually names every field already; only the ones it leaves out are added.
  const fields = (body.validation || [])
    .map((item) => `${item.field}: ${item.message}`)
    .filter((field) => !message.includes(field));
  const detail = fields.length ? ` (${fields.join("; ")})` : "";
  return code ? `${code}: ${message}${detail}` : `${message}${detail}`;
}

// Shows an error body in `container` as an alert; an answer {status, body} is accepted too.
export function showError(container, envelope) {
  const isAnswer = envelope && typeof envelope === "object" && "status" in envelope && "body" in envelope;
  const answer = isAnswer ? envelope : { body: envelope };
  const alert = el("p", { class: "error", role: "alert" }, errorText(answer.body, answer.status));
  container.replaceChildren(alert);
  return alert;
}

export function showResult(container, text) {
  container.replaceChildren(el("p", { class: "result", role: "status" }, text));
}

export function clear(container) {
  container.replaceChildren();
}

// A labelled field: the label names the control for assistive technology (and for tests).
export function field(label, input) {
  const id = input.id || `f-${Math.random().toString(36).slice(2, 10)}`;
  input.id = id;
  return el("div", { class: "field" }, el("label", { for: id }, label), input);
}

// The interval of the live views, in ms: ?poll_ms=… (tests use a short one), else 2 s.
export function pollMs() {
  const asked = Number(new URLSearchParams(location.search).get("poll_ms"));
  return Number.isFinite(asked) && asked >= 100 ? asked : 2000;
}
