// Runs capsim commands off the page's main thread: a long grid does not freeze the page, and
// its progress is posted as it goes.
"use strict";
importScripts("capsim.js");

let current = 0;
const ready = fetch("capsim.wasm")
  .then((r) => {
    if (!r.ok) throw new Error("capsim.wasm: HTTP " + r.status);
    return r.arrayBuffer();
  })
  .then((bytes) =>
    capsimLoad(bytes, (done, total) => postMessage({ type: "progress", id: current, done, total }))
  );

ready.then(
  (runner) => postMessage({ type: "ready", params: runner.params() }),
  (e) => postMessage({ type: "failed", message: String(e) })
);

onmessage = async (e) => {
  const runner = await ready;
  current = e.data.id;
  const out = runner.run(e.data.pairs);
  // A lesson page's rows: each cell's text as the command line's table prints it, read from
  // this run's JSON rows.
  if (e.data.readable && out.error === "") out.cells = runner.readable(out.stdout);
  postMessage({ type: "result", id: e.data.id, ...out });
};
