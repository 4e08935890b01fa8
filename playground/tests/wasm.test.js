// The fifth determinism target: the wasm32 build computes the host's bytes (under node, no
// browser). The page's runner (capsim.js) loads the same module the page loads.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const os = require("node:os");
const { root, site, goldenLesson, goldenLessonEn, runCli, capsim, cliArgs } = require("./common.js");
const { spawnSync } = require("node:child_process");
const { capsimLoad } = require(path.join(site, "capsim.js"));

let runner;
test.before(async () => {
  runner = await capsimLoad(fs.readFileSync(path.join(site, "capsim.wasm")));
});

test("wasm32: capsim lesson all equals the lessons' golden output and the host's bytes", () => {
  const out = runner.run([["lesson", "all"]]);
  assert.equal(out.error, "");
  assert.equal(out.stdout, goldenLesson("all"));
  assert.equal(out.stdout, runCli([["lesson", "all"]]).stdout);
});

test("wasm32: capsim lesson all --lang en equals the English golden output and the host's bytes", () => {
  const out = runner.run([["lesson", "all"], ["lang", "en"]]);
  assert.equal(out.error, "");
  assert.equal(out.stdout, goldenLessonEn("all"));
  assert.equal(out.stdout, runCli([["lesson", "all"], ["lang", "en"]]).stdout);
});

test("wasm32: a grid of each model in each format equals the host's bytes", () => {
  const grids = [
    [["model", "autoscale"], ["threshold", "2,3,5"], ["cooldown", "0,3,8"], ["seed", "1..=4"]],
    [["model", "consumers"], ["consumers", "1,2,4"], ["shipments", "400"], ["seed", "5..=7"]],
    [["model", "bulkhead"], ["split", "shared,24"], ["mode", "healthy,slowdown"], ["seed", "1..=20"]],
  ];
  for (const grid of grids) {
    for (const format of ["table", "json", "csv"]) {
      const pairs = [...grid, ["format", format]];
      const cli = runCli(pairs);
      assert.equal(cli.status, 0);
      const out = runner.run(pairs);
      assert.equal(out.error, "", JSON.stringify(pairs));
      assert.equal(out.stdout, cli.stdout, JSON.stringify(pairs));
    }
  }
});

test("wasm32: a failing run keeps the rows before it and ends with the CLI's error line", () => {
  const pairs = [["model", "autoscale"], ["capacity", "100,0.01"], ["seed", "1..=3"], ["format", "csv"]];
  const cli = runCli(pairs);
  assert.equal(cli.status, 2);
  const out = runner.run(pairs);
  assert.equal(out.stdout, cli.stdout);
  assert.equal(out.error + "\n", cli.stderr);
});

// `capsim plot`'s SVG for the same pairs (model flags only), read back from its file.
function cliPlot(pairs) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "capsim-plot-")), "plot.svg");
  const r = spawnSync(capsim, ["plot", ...cliArgs(pairs), "-o", file], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return fs.readFileSync(file, "utf8");
}

test("wasm32: the page's chart is capsim plot's SVG byte for byte (plus id=chart)", () => {
  const grids = [
    [["model", "autoscale"], ["threshold", "2,5"]],
    [["model", "consumers"], ["consumers", "1,2,4"]],
    [["model", "bulkhead"], ["split", "shared,24"], ["mode", "slowdown"]],
    [["model", "autoscale"], ["threshold", "2,3"], ["cooldown", "0,3"], ["seed", "7,8"]],
  ];
  for (const grid of grids) {
    const out = runner.run([...grid, ["format", "csv"]]);
    assert.equal(out.error, "", JSON.stringify(grid));
    assert.ok(out.chart.startsWith('<svg id="chart" '), out.chart.slice(0, 80));
    assert.equal(out.chart.replace('<svg id="chart" ', "<svg "), cliPlot(grid), JSON.stringify(grid));
  }
  // A lesson page's chart: drawn at the page's width, in Turkish (capsim plot --width --lang).
  for (const [width, lang] of [["358", "tr"], ["715", "en"], ["280", "tr"]]) {
    const grid = [["model", "autoscale"], ["threshold", "3"]];
    const out = runner.run([...grid, ["format", "json"], ["chart-width", width], ["chart-lang", lang]]);
    assert.equal(out.error, "");
    const r = spawnSync(capsim, ["plot", "autoscale", "--threshold", "3", "--width", width, "--lang", lang, "-o", "-"], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(out.chart.replace('<svg id="chart" ', "<svg "), r.stdout, width + " " + lang);
  }
});

test("wasm32: the lesson's 3 x 3 sweep is capsim plot's small multiples; beyond 36 runs, a note and the output", () => {
  const pairs = [["model", "autoscale"], ["threshold", "2,3,5"], ["cooldown", "0,3,8"]];
  const out = runner.run(pairs);
  assert.equal(out.error, "");
  assert.equal(out.stdout, runCli(pairs).stdout);
  assert.equal(out.chart.replace('<svg id="chart" ', "<svg "), cliPlot(pairs));
  assert.equal((out.chart.match(/>\s*threshold=\d cooldown=\d\s*</g) || []).length, 9);
  const many = [["model", "autoscale"], ["threshold", "1..=37"]];
  const big = runner.run(many);
  assert.equal(big.stdout, runCli(many).stdout);
  assert.equal(
    big.chart,
    '<p id="chart-note">No chart: a plot draws at most 8 runs in one chart, or up to 36 as small multiples; the lists make 37.</p>'
  );
  const cli = spawnSync(capsim, ["plot", ...cliArgs(many), "-o", path.join(os.tmpdir(), "x.svg")], { encoding: "utf8" });
  assert.equal(cli.stderr, "error: a plot draws at most 8 runs in one chart, or up to 36 as small multiples; the lists make 37\n");
});

test("wasm32: a summary's chart is capsim plot --summary's histogram", () => {
  for (const pairs of [
    [["model", "autoscale"], ["threshold", "2,3,5"], ["cooldown", "0,3,8"], ["seed", "1..=20"], ["summary", ""]],
    [["model", "bulkhead"], ["split", "shared,24"], ["seed", "1..=30"], ["summary", ""]],
  ]) {
    const out = runner.run(pairs);
    assert.equal(out.error, "");
    assert.equal(out.stdout, runCli(pairs).stdout);
    assert.equal(out.chart.replace('<svg id="chart" ', "<svg "), cliPlot(pairs));
    assert.match(out.chart, / over (180|60) runs/);
  }
});

// The command lines every determinism target runs (scripts/cross-commands.txt): a line with
// {formula} once for each example formula. Returns each line's argv.
function crossCommands() {
  const text = fs.readFileSync(path.join(root, "scripts", "cross-commands.txt"), "utf8");
  const formulas = fs
    .readdirSync(path.join(root, "examples", "formulas"))
    .filter((f) => f.endsWith(".formula"))
    .sort()
    .map((f) => "examples/formulas/" + f);
  const lines = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const each = line.includes("{formula}") ? formulas.map((f) => line.split("{formula}").join(f)) : [line];
    for (const l of each) lines.push(l.split(/\s+/));
  }
  return lines;
}

// A command line as the page's pairs, or null when the page cannot run it: `trace` and
// `formula` and `summary` are not page commands, and a page has no files for --formula,
// --demand-file or --scenario to read.
function pagePairs(argv) {
  if (argv[0] === "lesson") return argv.length === 2 ? [["lesson", argv[1]]] : null;
  if (!["autoscale", "consumers", "bulkhead"].includes(argv[0])) return null;
  const pairs = [["model", argv[0]]];
  for (let i = 1; i < argv.length; i++) {
    const k = argv[i].replace(/^--/, "");
    if (k === "summary") pairs.push(["summary", ""]);
    else if (k === "formula" && argv[i + 1] !== "none") return null;
    else if (k === "demand-file" && argv[i + 1] !== "none") return null;
    else if (k === "scenario") return null;
    else pairs.push([k, argv[++i]]);
  }
  return pairs;
}

test("wasm32: the cross-target command lines the page runs (lifecycle grids among them) equal the host's bytes", () => {
  const lines = crossCommands();
  let ran = 0;
  for (const argv of lines) {
    const pairs = pagePairs(argv);
    if (pairs === null) continue;
    const what = argv.join(" ");
    const cli = runCli(pairs);
    assert.ok([0, 2].includes(cli.status), what + ": " + cli.stderr);
    const out = runner.run(pairs);
    assert.equal(out.stdout, cli.stdout, what);
    assert.equal(out.error === "" ? "" : out.error + "\n", cli.stderr, what);
    ran++;
  }
  // Every lifecycle line is a page command: the list's lines minus trace, formula and files.
  const lifecycle = lines.filter((a) => a.some((w) => ["--launch-hook", "--reclaim", "--events", "--stockout-rounds"].includes(w)));
  assert.ok(lifecycle.filter((a) => pagePairs(a) !== null).length >= 6, "lifecycle lines run on the page");
  assert.ok(ran >= 20, `${ran} lines ran`);
});

// The CLI itself built for wasm32-wasip1 (scripts/playground-test.sh builds it), run under
// node's WASI with the repository as its directory: {status, stdout, stderr}.
const wasiBin = process.env.CAPSIM_WASI || path.join(root, "target", "wasm32-wasip1", "release", "capsim.wasm");
let wasiModule;
// node 20's WASI finalizer asserts when the garbage collector destroys a finished WASI object
// while another one is inside a WASI call ("Assertion failed: (current_uvwasi_memory_) == (0)"
// in node::wasi::WASI::~WASI, then SIGABRT or SIGSEGV): each run's WASI is collected as soon as
// the run is over, at a point where no WASI call is under way.
require("node:v8").setFlagsFromString("--expose-gc");
const collectGarbage = require("node:vm").runInNewContext("gc");
function runWasi(argv) {
  const { WASI } = require("node:wasi");
  wasiModule = wasiModule || new WebAssembly.Module(fs.readFileSync(wasiBin));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "capsim-wasi-"));
  const files = [path.join(dir, "out"), path.join(dir, "err")];
  const [out, err] = files.map((f) => fs.openSync(f, "w"));
  const wasi = new WASI({
    version: "preview1",
    args: ["capsim", ...argv],
    env: {},
    preopens: { ".": root },
    stdout: out,
    stderr: err,
    returnOnExit: true,
  });
  const instance = new WebAssembly.Instance(wasiModule, { wasi_snapshot_preview1: wasi.wasiImport });
  const status = wasi.start(instance);
  fs.closeSync(out);
  fs.closeSync(err);
  const [stdout, stderr] = files.map((f) => fs.readFileSync(f, "utf8"));
  fs.rmSync(dir, { recursive: true });
  return { status, stdout, stderr };
}

// Runs `argv` under WASI (runWasi), then collects its WASI object before the next run starts.
function runWasiAlone(argv) {
  const result = runWasi(argv);
  collectGarbage();
  return result;
}

test("wasm32 (the CLI under WASI): every cross-target command line, formulas and traces included, equals the host's bytes", () => {
  const lines = crossCommands();
  for (const argv of lines) {
    const what = argv.join(" ");
    const cli = spawnSync(capsim, argv, { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 });
    assert.ok([0, 1, 2].includes(cli.status), what + ": " + cli.stderr);
    const wasm = runWasiAlone(argv);
    assert.equal(wasm.stdout, cli.stdout, what);
    assert.equal(wasm.stderr, cli.stderr, what);
    assert.equal(wasm.status, cli.status, what);
  }
  assert.ok(lines.filter((a) => a.includes("--formula") || a[0] === "formula").length >= 4 * 16, "formula lines");
});
