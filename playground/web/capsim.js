// Loads the capsim WebAssembly module and runs commands given as (name, value) pairs.
// Shared by the page's Web Worker and the node tests; plain functions, no framework.
"use strict";

function capsimRunner(instance) {
  const ex = instance.exports;
  const enc = new TextEncoder();
  const dec = new TextDecoder();
  const result = (which) =>
    dec.decode(new Uint8Array(ex.memory.buffer, ex.result_ptr(which), ex.result_len(which)));
  const input = (bytes) => {
    const ptr = ex.input(bytes.length);
    new Uint8Array(ex.memory.buffer, ptr, bytes.length).set(bytes);
  };
  return {
    // pairs: [[name, value], ...] in URL order. Returns {stdout, error, chart, warnings}:
    // warnings, the formula's, one line each as `capsim formula check` writes them.
    run(pairs) {
      input(enc.encode(pairs.map(([k, v]) => k + "\0" + v).join("\0")));
      ex.run();
      const warnings = result(3).split("\n").filter((w) => w !== "");
      return { stdout: result(0), error: result(1), chart: result(2), warnings };
    },
    // A model command's JSON rows (its stdout) with each cell's exact text and the text the
    // command line's table prints for it (capsim::query::readable_rows): a row an array of
    // [key, exact, shown]. Returns {rows, error}.
    readable(stdout) {
      input(enc.encode(stdout));
      ex.readable();
      const error = result(1);
      const rows = error ? [] : result(0).split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
      return { rows, error };
    },
    params() {
      ex.params();
      return JSON.parse(result(0));
    },
  };
}

// Instantiates from the module's bytes (no instantiateStreaming: any static host's MIME type works).
async function capsimLoad(bytes, onProgress) {
  const imports = { env: { progress: (done, total) => onProgress && onProgress(done, total) } };
  const module = await WebAssembly.compile(bytes);
  // plotters links wasm-bindgen's DOM text measure into every wasm32 build; capsim measures
  // text itself (capsim::plot::Svg) and never calls it, so those imports only have to exist.
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module === "env") continue;
    imports[imp.module] = imports[imp.module] || {};
    imports[imp.module][imp.name] = () => {
      throw new Error("capsim.wasm called " + imp.module + "." + imp.name);
    };
  }
  const instance = await WebAssembly.instantiate(module, imports);
  return capsimRunner(instance);
}

if (typeof module !== "undefined") module.exports = { capsimLoad };
