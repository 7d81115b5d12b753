// The playground's worker: loads ptxemu.wasm and answers the page's requests off the main
// thread, so the page stays responsive while a test runs. The module's door is the plain C
// ABI of the ptxemu-web crate: ptxemu_alloc(len) -> ptr, ptxemu_call(ptr, len) -> answer ptr,
// ptxemu_answer_len() -> len, ptxemu_free(ptr, len); requests and answers are UTF-8 JSON.
"use strict";

let instance = null;
let loading = null;

function load() {
  if (!loading) {
    loading = fetch("ptxemu.wasm")
      .then((r) => {
        if (!r.ok) throw new Error("ptxemu.wasm: HTTP " + r.status);
        return r.arrayBuffer();
      })
      .then((bytes) => WebAssembly.instantiate(bytes, {}))
      .then((m) => {
        instance = m.instance;
      });
  }
  return loading;
}

function call(request) {
  const e = instance.exports;
  const input = new TextEncoder().encode(JSON.stringify(request));
  const ptr = e.ptxemu_alloc(input.length);
  new Uint8Array(e.memory.buffer, ptr, input.length).set(input);
  const out = e.ptxemu_call(ptr, input.length);
  const len = e.ptxemu_answer_len();
  // Copy before anything else can grow (and so detach) the memory.
  const text = new TextDecoder().decode(new Uint8Array(e.memory.buffer, out, len).slice());
  e.ptxemu_free(ptr, input.length);
  return JSON.parse(text);
}

self.onmessage = (ev) => {
  const { id, request } = ev.data;
  load()
    .then(() => {
      let answer;
      try {
        answer = call(request);
      } catch (err) {
        // A trap (a bug, or memory exhausted) leaves the module unusable: start afresh.
        instance = null;
        loading = null;
        answer = { ok: false, error: { kind: "internal", message: "the model stopped: " + err } };
      }
      self.postMessage({ id, answer });
    })
    .catch((err) => {
      loading = null;
      self.postMessage({ id, answer: { ok: false, error: { kind: "load", message: String(err) } } });
    });
};
