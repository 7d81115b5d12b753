// Keeps the playground's files so that it opens offline once it has been loaded: answers from
// the network when it can (so a rebuilt page is picked up), from the cache when it cannot.
"use strict";

const CACHE = "ptxemu-playground";
const FILES = ["./", "index.html", "style.css", "app.js", "worker.js", "ptxemu.wasm"];

self.addEventListener("install", (ev) => {
  ev.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).catch(() => {}));
});

self.addEventListener("fetch", (ev) => {
  if (ev.request.method !== "GET") return;
  ev.respondWith(
    fetch(ev.request)
      .then((r) => {
        if (r.ok) {
          const copy = r.clone();
          caches.open(CACHE).then((c) => c.put(ev.request, copy));
        }
        return r;
      })
      .catch(() => caches.match(ev.request, { ignoreSearch: true }).then((r) => r || Response.error())),
  );
});
