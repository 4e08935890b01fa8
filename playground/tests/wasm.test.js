// The fifth determinism target: the wasm32 build computes the host's bytes (under node, no
// browser). The page's runner (capsim.js) loads the same module the page loads.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { site, goldenLesson, runCli } = require("./common.js");
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
  const pairs = [["model", "autoscale"], ["capacity", "100,1"], ["seed", "1..=3"], ["format", "csv"]];
  const cli = runCli(pairs);
  assert.equal(cli.status, 2);
  const out = runner.run(pairs);
  assert.equal(out.stdout, cli.stdout);
  assert.equal(out.error + "\n", cli.stderr);
});
