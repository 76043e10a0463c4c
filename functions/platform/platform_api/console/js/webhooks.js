// The Webhooks panel of a device (stub: another change builds it).
//
// Contract of a device panel: render(container, ctx) fills `container`, where ctx is
// { device, api, showError }: the device shown (as GET /devices/{id} answers it), api(method,
// path, {body, headers, query}) → Promise<{ok, status, body}> with the signed-in user's token,
// and showError(container, envelope) to show an error body in words.

import { el } from "./ui.js";

export function render(container, ctx) {
  container.replaceChildren(el("h3", {}, "Webhooks"), el("p", {}, "not yet"));
}
