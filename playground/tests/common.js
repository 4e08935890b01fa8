// Paths and helpers shared by the playground tests.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync, spawnSync } = require("node:child_process");

const root = path.resolve(__dirname, "..", "..");
const site = process.env.PLAYGROUND_DIR || path.join(root, "target", "playground");
const capsim = process.env.CAPSIM_BIN || path.join(root, "target", "release", "capsim");
const golden = path.join(root, "tests", "golden");

// The lesson suite as the lessons print it: the five golden files in `capsim lesson all` order.
const LESSONS = ["group", "group-sweep", "group-ledger", "consumers", "bulkhead"];
function goldenLesson(name) {
  const names = name === "all" ? LESSONS : [name];
  return names.map((n) => fs.readFileSync(path.join(golden, n + ".out"), "utf8")).join("");
}

// The same in English: the English golden files (`capsim lesson NAME --lang en`).
function goldenLessonEn(name) {
  const names = name === "all" ? LESSONS : [name];
  return names.map((n) => fs.readFileSync(path.join(golden, n + ".en.out"), "utf8")).join("");
}

// The command line's argv for a page's pairs: model=M&k=v&summary -> M --k v --summary.
function cliArgs(pairs) {
  const args = [];
  for (const [k, v] of pairs) {
    if (k === "model") args.unshift(v);
    else if (k === "lesson") args.unshift("lesson", v);
    else if (k === "summary" && v === "") args.push("--summary");
    else args.push("--" + k, v);
  }
  return args;
}

// `capsim plot`'s argv for a page's model command: its flags, the chart's own pairs as plot's
// --width and --lang, the rows' options (format, columns) left out.
function plotArgs(pairs) {
  const flags = pairs
    .filter(([k]) => !["format", "columns"].includes(k))
    .map(([k, v]) => (k === "chart-width" ? ["width", v] : k === "chart-lang" ? ["lang", v] : [k, v]));
  return ["plot", ...cliArgs(flags), "-o", "-"];
}

// Runs the built capsim binary: {status, stdout, stderr}.
function runCli(pairs) {
  const r = spawnSync(capsim, cliArgs(pairs), { encoding: "utf8", maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

module.exports = { root, site, capsim, golden, goldenLesson, goldenLessonEn, runCli, cliArgs, plotArgs, execFileSync };
