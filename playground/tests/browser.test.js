// The playground in a real browser: playwright-core driving Debian's chromium (no browser
// download), the page served as plain static files by a tiny server below (the .wasm is sent
// as application/octet-stream, as a careless static host would).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const http = require("node:http");
const { execFileSync } = require("node:child_process");
const { chromium } = require("playwright-core");
const { root, site, capsim, goldenLesson, goldenLessonEn, runCli } = require("./common.js");

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };
let server, base, browser, profile;

test.before(async () => {
  server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/+/, "");
    const file = path.join(site, name || "index.html");
    if (!file.startsWith(site) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] || "application/octet-stream" });
    res.end(fs.readFileSync(file));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${server.address().port}/index.html`;
  const executablePath = execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
  profile = fs.mkdtempSync(path.join(os.tmpdir(), "capsim-chromium-"));
  // A fresh profile directory (playwright passes it as --user-data-dir).
  browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
});

test.after(async () => {
  await browser?.close();
  server?.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
});

const query = (pairs) => "?" + pairs.map(([k, v]) => (v === "" ? k : `${k}=${encodeURIComponent(v)}`)).join("&");

async function done(page) {
  await page.waitForFunction(() => document.body.dataset.state === "done", null, { timeout: 60000 });
}

// Opens the page for `pairs` and returns what it shows.
async function open(pairs, page) {
  page = page || (await browser.newPage());
  await page.goto(base + query(pairs));
  await done(page);
  return { page, ...(await shown(page)) };
}

async function shown(page) {
  return page.evaluate(() => ({
    output: document.getElementById("output").textContent,
    error: document.getElementById("error").hidden ? "" : document.getElementById("error").textContent,
    chart: document.getElementById("chart")?.outerHTML || "",
  }));
}

test("the lesson suite, byte for byte (index.html?lesson=all)", async () => {
  const { page, output, error } = await open([["lesson", "all"]]);
  assert.equal(error, "");
  assert.equal(output, goldenLesson("all"));
  const ms = await page.evaluate(() => window.capsimTimings.firstOutput);
  console.log(`# time to first output (lesson all, navigation start to output shown): ${ms.toFixed(0)} ms`);
  await page.close();
});

test("each lesson is one click away", async () => {
  const { page } = await open([["lesson", "all"]]);
  for (const name of ["bulkhead", "group-sweep"]) {
    await page.click(`#lessons a[href="?lesson=${name}"]`);
    await done(page);
    assert.equal((await shown(page)).output, goldenLesson(name));
  }
  await page.close();
});

test("the glossary lists the model's metrics with capsim metrics' meanings", async () => {
  const { page } = await open([["model", "bulkhead"]]);
  const entries = await page.$$eval("#glossary-list dt", (dts) => dts.map((d) => [d.textContent, d.title]));
  const cli = execFileSync(capsim, ["metrics", "bulkhead"], { encoding: "utf8" }).split("\n").slice(2, -1);
  assert.equal(entries.length, cli.length);
  for (const [i, line] of cli.entries()) {
    const [key, unit] = line.trim().split(/\s{2,}/);
    assert.equal(entries[i][0], `${key} (${unit})`);
    assert.ok(line.endsWith(entries[i][1]), line);
  }
  await page.close();
});

const GRIDS = {
  autoscale: [["model", "autoscale"], ["threshold", "3"], ["cooldown", "4"], ["seed", "77"]],
  consumers: [["model", "consumers"], ["consumers", "1,2,4"], ["slots", "2"], ["shipments", "600"], ["seed", "1..=3"]],
  bulkhead: [["model", "bulkhead"], ["split", "shared,24,20"], ["mode", "slowdown"], ["seed", "1..=6"]],
};

for (const [model, grid] of Object.entries(GRIDS)) {
  test(`a ${model} grid in table, json and csv equals the command line's stdout`, async () => {
    const page = await browser.newPage();
    const variants = [["format", "table"], ["format", "json"], ["format", "csv"]].map((f) => [...grid, f]);
    if (model === "bulkhead") variants.push([...grid, ["summary", ""]]);
    for (const pairs of variants) {
      const cli = runCli(pairs);
      assert.equal(cli.status, 0, cli.stderr);
      const { output, error } = await open(pairs, page);
      assert.equal(error, "");
      assert.ok(output.length > 0);
      assert.equal(output, cli.stdout, query(pairs));
    }
    await page.close();
  });
}

test("a bad value shows the command line's one-line error and no output", async () => {
  for (const pairs of [
    [["model", "bulkhead"], ["split", "40"]],
    [["model", "autoscale"], ["threshold", "x"]],
    [["model", "consumers"], ["format", "xml"]],
    [["lesson", "nope"]],
  ]) {
    const cli = runCli(pairs);
    assert.equal(cli.status, 2);
    const { page, output, error } = await open(pairs);
    assert.equal(error + "\n", cli.stderr);
    assert.match(error, /^error: /);
    assert.equal(output, "");
    await page.close();
  }
});

test("beyond the browser's run limit, a clear message and no output", async () => {
  const { page, output, error } = await open([["model", "autoscale"], ["seed", "1..=100001"]]);
  assert.equal(
    error,
    "error: the parameter lists make 100001 runs; the browser runs at most 100000 (the command line runs up to 1000000)"
  );
  assert.equal(output, "");
  await page.close();
});

test("the chart is capsim plot's svg#chart: one non-empty line per series, a legend", async () => {
  const { page, chart } = await open([["model", "autoscale"], ["threshold", "2,5"]]);
  assert.match(chart, /^<svg id="chart"/);
  const info = await page.evaluate(() => {
    const svg = document.getElementById("chart");
    const box = svg.getBoundingClientRect();
    return {
      width: box.width,
      height: box.height,
      // Each series' drawn length (a dashed one is many pieces), by its colour.
      lines: Object.values(
        [...svg.querySelectorAll('polyline[stroke-width="2"]')].reduce((by, p) => {
          const c = p.getAttribute("stroke");
          by[c] = (by[c] || 0) + p.getTotalLength();
          return by;
        }, {})
      ),
      texts: [...svg.querySelectorAll("text")].map((t) => t.textContent.trim()),
    };
  });
  assert.ok(info.width > 300 && info.height > 150);
  // threshold=2 and 5: group size and ready each, and the one required line they share
  // (5 colours), and the failure rounds' rules; each drawn over the rounds.
  assert.equal(info.lines.length, 6, JSON.stringify(info.lines));
  assert.equal(info.lines.filter((len) => len > 300).length, 6, JSON.stringify(info.lines));
  for (const label of ["capsim autoscale: cooldown=0 seed=20261001", "round (1 min)", "instances", "surge (rounds 150 to 189)", "threshold=2: group size", "threshold=5: ready", "required"]) {
    assert.ok(info.texts.includes(label), label);
  }
  const shot = path.join(root, "target", "playground-screenshot.png");
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: shot, fullPage: false });
  console.log(`# screenshot: ${shot}`);
  await page.close();
});

test("URL round trip: form -> URL -> reload -> same output", async () => {
  const { page } = await open([]);
  await page.selectOption("#model", "consumers");
  await page.fill("#f-consumers", "1,2");
  await page.fill("#f-shipments", "300");
  await page.selectOption("#format", "csv");
  const expected = [["model", "consumers"], ["consumers", "1,2"], ["shipments", "300"], ["format", "csv"]];
  await page.waitForFunction(
    (q) => location.search === q && document.body.dataset.state === "done",
    "?model=consumers&consumers=1%2C2&shipments=300&format=csv",
    { timeout: 60000 }
  );
  const before = await shown(page);
  assert.equal(before.output, runCli(expected).stdout);
  await page.reload();
  await done(page);
  assert.deepEqual(await shown(page), before);
  assert.equal(await page.inputValue("#f-consumers"), "1,2");
  assert.equal(await page.inputValue("#f-shipments"), "300");
  assert.equal(await page.inputValue("#format"), "csv");
  await page.close();
});

test("a long grid runs in the worker and reports its progress", async () => {
  const pairs = [["model", "bulkhead"], ["seed", "1..=400"], ["format", "csv"]];
  const { page, output } = await open(pairs);
  assert.equal(output, runCli(pairs).stdout);
  const progress = await page.evaluate(() => window.capsimProgress);
  assert.ok(progress.reports >= 2, JSON.stringify(progress));
  assert.equal(progress.done, 400);
  assert.equal(progress.total, 400);
  await page.close();
});

// ---------------------------------------------------------------- the formula editor

const formulas = path.join(root, "examples", "formulas");

// The command line on a file editor.formula holding `text`, in a directory of its own.
function cliOnFile(text, args) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "capsim-formula-"));
  fs.writeFileSync(path.join(dir, "editor.formula"), text);
  const { spawnSync } = require("node:child_process");
  const r = spawnSync(capsim, args, { cwd: dir, encoding: "utf8" });
  fs.rmSync(dir, { recursive: true, force: true });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const formulaUrl = (text, extra = []) =>
  base + "?model=autoscale&formula-text=" + encodeURIComponent(text) + extra.map(([k, v]) => `&${k}=${encodeURIComponent(v)}`).join("");

async function mark(page) {
  return page.evaluate(() => {
    const box = document.getElementById("formula-mark");
    const ta = document.getElementById("formula-text");
    return {
      hidden: box.hidden,
      line: box.dataset.line,
      col: box.dataset.col,
      marked: box.querySelector("mark")?.textContent,
      selected: ta.value.slice(ta.selectionStart, ta.selectionEnd),
      check: document.getElementById("formula-check").textContent,
    };
  });
}

test("formula-text in the URL shows what capsim autoscale --formula FILE --format json prints", async () => {
  const page = await browser.newPage();
  for (const name of ["demand.formula", "cpu-busy.formula", "working-hours.formula", "zero.formula"]) {
    const text = fs.readFileSync(path.join(formulas, name), "utf8");
    const cli = cliOnFile(text, ["autoscale", "--formula", "editor.formula", "--format", "json"]);
    assert.equal(cli.status, 0, cli.stderr);
    await page.goto(formulaUrl(text, [["format", "json"]]));
    await done(page);
    const { output, error } = await shown(page);
    assert.equal(error, "");
    assert.equal(output, cli.stdout, name);
    assert.equal(await page.inputValue("#formula-text"), text);
    assert.ok(await page.evaluate(() => document.getElementById("formula-editor").open));
    assert.equal(
      await page.evaluate(() => document.getElementById("command").textContent),
      "$ capsim autoscale --formula editor.formula --format json   # editor.formula: the editor's text"
    );
    // The chart is capsim plot's for the same text.
    const chart = await page.evaluate(() => document.getElementById("chart").outerHTML);
    assert.match(chart, /^<svg id="chart"/);
  }
  await page.close();
});

test("a bad formula shows the command line's one-line error, its line and column marked", async () => {
  const page = await browser.newPage();
  const cases = [
    // The documented CPU formula as printed: the ';' missing at the end of line 7.
    [fs.readFileSync(path.join(formulas, "cpu-400-as-printed.formula"), "utf8"), 8, 1, "$"],
    ["$TargetDedicatedNodes = 2;\n$x = max(1, ;\n", 2, 13, ";"],
    ["$x = \"ü\";\r\n$y = ü;", 2, 6, "ü"],
  ];
  for (const [text, line, col, char] of cases) {
    const cli = cliOnFile(text, ["autoscale", "--formula", "editor.formula", "--format", "json"]);
    assert.equal(cli.status, 2);
    await page.goto(formulaUrl(text, [["format", "json"]]));
    await done(page);
    const { output, error } = await shown(page);
    assert.equal(error + "\n", cli.stderr);
    assert.equal(output, "");
    await page.waitForFunction(() => document.getElementById("formula-check").textContent !== "");
    const m = await mark(page);
    assert.equal(m.hidden, false);
    assert.equal([m.line, m.col].join(":"), `${line}:${col}`);
    assert.equal(m.marked, char);
    assert.equal(m.selected, char);
    // The live check is capsim formula check's line.
    const check = cliOnFile(text, ["formula", "check", "editor.formula"]);
    assert.equal(m.check + "\n", check.stderr);
  }
  await page.close();
});

test("the formula editor: an example one click away, live check, eval with samples and time, the evaluation log", async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(base + "?model=autoscale&formula-text=");
  await done(page);
  // Every example of examples/formulas/ is a button.
  const files = fs.readdirSync(formulas).filter((f) => f.endsWith(".formula")).sort();
  await page.waitForFunction((n) => document.querySelectorAll("#formula-examples button").length === n, files.length);
  const demand = fs.readFileSync(path.join(formulas, "demand.formula"), "utf8");
  // The nav's "formula editor" link opens on the demand-driven example.
  await page.waitForFunction(() => document.getElementById("formula-page").getAttribute("href").length > 40);
  const href = await page.getAttribute("#formula-page", "href");
  assert.equal(new URLSearchParams(href.slice(1)).get("formula-text"), demand);
  await page.click('#formula-examples button[data-file="demand.formula"]');
  await page.waitForFunction(
    (q) => location.search === q && document.body.dataset.state === "done",
    "?model=autoscale&formula-text=" + encodeURIComponent(demand)
  );
  assert.equal((await shown(page)).output, cliOnFile(demand, ["autoscale", "--formula", "editor.formula"]).stdout);
  await page.waitForFunction(() => document.getElementById("formula-check").textContent.startsWith("ok"));
  // Typing a mistake: the live check marks it.
  await page.fill("#formula-text", demand.replace("min(256, $peak + 1)", "min(256, $peak + )"));
  await page.waitForFunction(() => !document.getElementById("formula-mark").hidden);
  const m = await mark(page);
  const bad = cliOnFile(demand.replace("min(256, $peak + 1)", "min(256, $peak + )"), ["formula", "check", "editor.formula"]);
  assert.equal(m.check + "\n", bad.stderr);
  assert.equal(m.marked, ")");
  // Back to the example; eval with the panel's samples and time.
  await page.click('#formula-examples button[data-file="demand.formula"]');
  await done(page);
  await page.click("#formula-eval summary");
  await page.fill("#eval-at", "2026-10-05T09:30:00Z");
  await page.fill("#eval-samples", "$PendingTasks=8:9:10:11:12:12:13:14:15:15");
  await page.fill("#eval-sets", "$CurrentDedicatedNodes=9");
  await page.click("#eval-run");
  await page.waitForFunction(() => document.body.dataset.eval === "done");
  const evalCli = cliOnFile(demand, [
    "formula", "eval", "editor.formula", "--at", "2026-10-05T09:30:00Z",
    "--sample", "$PendingTasks=8:9:10:11:12:12:13:14:15:15", "--set", "$CurrentDedicatedNodes=9",
  ]);
  assert.equal(evalCli.status, 0, evalCli.stderr);
  assert.equal(await page.evaluate(() => document.getElementById("eval-output").textContent), evalCli.stdout);
  assert.match(evalCli.stdout, /\$TargetDedicatedNodes=16;/);
  // The log: one row per evaluation, round 0 and every 15 rounds (240 rounds: 16, the
  // metrics' `evaluations`), each row the CLI's --evaluations line's fields.
  await page.waitForFunction(() => document.body.dataset.log === "done");
  const rows = await logRows(page);
  const metrics = JSON.parse(cliOnFile(demand, ["autoscale", "--formula", "editor.formula", "--format", "json"]).stdout);
  assert.equal(rows.length, metrics.evaluations);
  assert.deepEqual(rows.map((r) => Number(r[0])), Array.from({ length: 16 }, (_, i) => 15 * i));
  assert.deepEqual(rows, cliEvaluations(demand));
  assert.ok(rows.every((r) => r[2].startsWith("$TargetDedicatedNodes=") && r[3] === "—"), JSON.stringify(rows));
  // The chart draws the formula's target beside the group size and the demand.
  const legend = await page.$$eval("#chart text", (ts) => ts.map((t) => t.textContent.trim()));
  for (const label of ["group size", "required", "target ($TargetDedicatedNodes)"]) {
    assert.ok(legend.includes(label), label + ": " + JSON.stringify(legend));
  }
  fs.mkdirSync(path.join(__dirname, "screenshots"), { recursive: true });
  await page.screenshot({ path: path.join(__dirname, "screenshots", "formula-1280x800.png"), fullPage: true });
  await page.close();
});

// The evaluation log's rows, each its cells' texts.
async function logRows(page) {
  return page.$$eval("#evaluation-table tbody tr", (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
}

// `capsim trace autoscale --formula editor.formula --evaluations` on a file of `text`: each
// line's round, timestamp, results string and error ("—" for none), as the log shows them.
function cliEvaluations(text, args = []) {
  const cli = cliOnFile(text, ["trace", "autoscale", "--formula", "editor.formula", ...args, "--evaluations"]);
  assert.equal(cli.status, 0, cli.stderr);
  return cli.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l))
    .map((e) => [String(e.round), e.timestamp, e.results, e.error ?? "—"]);
}

test("the evaluation log is the run's --evaluations records: a failed evaluation's error, its place marked", async () => {
  const page = await browser.newPage();
  // cpu-busy.formula wants 70 % of five minutes of $CPUPercent samples: round 0 has none.
  const text = fs.readFileSync(path.join(formulas, "cpu-busy.formula"), "utf8");
  const args = [["evaluation-interval", "5"], ["seed", "7"]];
  await page.goto(formulaUrl(text, args));
  await done(page);
  await page.waitForFunction(() => document.body.dataset.log === "done");
  const rows = await logRows(page);
  const cli = cliEvaluations(text, ["--evaluation-interval", "5", "--seed", "7"]);
  assert.equal(rows.length, 48);
  assert.deepEqual(rows, cli);
  const failed = rows.filter((r) => r[3] !== "—");
  assert.ok(failed.length >= 1, JSON.stringify(rows));
  // The error names the GetSample call's line and column, counted here from the text.
  const lines = text.split("\n");
  const line = lines.findIndex((l) => l.includes("$CPUPercent.GetSample(")) + 1;
  const col = lines[line - 1].indexOf("GetSample") + 1;
  assert.equal(rows[0][0], "0");
  assert.equal(rows[0][1], "2026-10-01T00:00:00.000Z");
  assert.equal(rows[0][3], `line ${line}, col ${col}: Insufficient data from data set: $CPUPercent wanted 70%, received 0%`);
  // The metrics row counts the same failures.
  const metrics = JSON.parse(cliOnFile(text, ["autoscale", "--formula", "editor.formula", "--evaluation-interval", "5", "--seed", "7", "--format", "json"]).stdout);
  assert.equal(failed.length, metrics.failed_evaluations);
  assert.equal(await page.$$eval("#evaluation-table tr.failed", (trs) => trs.length), failed.length);
  // Clicking the failed row marks its place in the text.
  await page.click("#evaluation-table tr.failed");
  const m = await mark(page);
  assert.equal(m.hidden, false);
  assert.equal([m.line, m.col].join(":"), `${line}:${col}`);
  assert.equal(m.marked, "G");
  // A grid is not one run: the log says so, as capsim trace does.
  await page.goto(formulaUrl(text, [["threshold", "2,5"]]));
  await done(page);
  await page.waitForFunction(() => document.body.dataset.log === "done");
  assert.equal((await logRows(page)).length, 0);
  assert.equal(
    await page.evaluate(() => document.getElementById("evaluation-note").textContent),
    "The log is of one run: --threshold has more than one value (give one)"
  );
  await page.close();
});

// ---------------------------------------------------------------- the lesson pages

const shots = path.join(__dirname, "screenshots");
const SIZES = [[1280, 800], [390, 844]];
const PAGES = {
  group: { pairs: [["model", "autoscale"], ["threshold", "2,3,5"], ["cooldown", "0,3,8"], ["columns", "under_capacity_rounds,false_replacements,launched,max_size,idle_billed_rounds"]], controls: ["threshold", "cooldown"], panels: 9 },
  consumers: { pairs: [["model", "consumers"], ["consumers", "1,2,4,8"], ["slots", "2"], ["columns", "throughput,reordered_shipments,wrong_final_state,rounds"]], controls: ["consumers", "slots"], panels: 0 },
  bulkhead: { pairs: [["model", "bulkhead"], ["split", "shared,24"], ["mode", "healthy,slowdown"], ["columns", "tracking_dropped,event_dropped,idle_slots"]], controls: ["split", "mode"], panels: 0 },
};

// The boxes of the chart and the table, and the viewport's height.
async function fold(page) {
  return page.evaluate(() => {
    const box = (id) => {
      const r = document.getElementById(id).getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
    };
    return { chart: box("chart"), table: box("output"), height: innerHeight, width: innerWidth, scroll: scrollY };
  });
}

for (const [name, want] of Object.entries(PAGES)) {
  for (const [width, height] of SIZES) {
    test(`the ${name} lesson page at ${width} x ${height}: story, its controls, chart and table above the fold`, async () => {
      const page = await browser.newPage();
      await page.setViewportSize({ width, height });
      // From the lesson-page link, as a class would come to it.
      await page.goto(base);
      await done(page);
      await page.click(`#pages a[data-page="${name}"]`);
      await done(page);
      const pairs = [["page", name], ...want.pairs];
      assert.equal(await page.evaluate(() => location.search), query(pairs));
      const cli = runCli(want.pairs);
      assert.equal(cli.status, 0, cli.stderr);
      const { output, error, chart } = await shown(page);
      assert.equal(error, "");
      assert.equal(output, cli.stdout);
      assert.match(chart, /^<svg id="chart"/);
      if (want.panels) {
        // The lesson's 3 x 3 sweep, as small multiples: one caption per run.
        const captions = await page.$$eval("#chart text", (ts) => ts.map((t) => t.textContent.trim()).filter((t) => /^threshold=\d cooldown=\d$/.test(t)));
        assert.equal(captions.length, want.panels);
      }
      // The story in Turkish (the default) and the two controls; the advanced form closed.
      const story = await page.textContent("#story");
      assert.ok(story.length > 100 && story.split(". ").length >= 2, story);
      assert.equal(await page.evaluate(() => document.getElementById("advanced").open), false);
      for (const flag of want.controls) assert.ok(await page.isVisible(`#c-${flag}`), flag);
      assert.ok(await page.isVisible("#lang"), "the language switch");
      const f = await fold(page);
      await page.screenshot({ path: path.join(shots, `${name}-${width}x${height}.png`) });
      assert.equal(f.scroll, 0);
      assert.ok(f.chart.top >= 0 && f.chart.top < f.height, JSON.stringify(f));
      assert.ok(f.table.top > 0 && f.table.top < f.height, JSON.stringify(f));
      // The whole chart is in view and inside the page's width (no sideways scroll for it).
      assert.ok(f.chart.bottom <= f.height, JSON.stringify(f));
      assert.ok(f.chart.left >= 0 && f.chart.right <= f.width, JSON.stringify(f));
      // Its first rows are above the fold too: the header and at least one row.
      assert.ok(f.table.top + 40 < f.height, JSON.stringify(f));
      await page.close();
    });
  }
}

test("a lesson page's controls and language are in the URL, and a reload shows the same", async () => {
  fs.mkdirSync(shots, { recursive: true });
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(base + query([["page", "group"], ...PAGES.group.pairs]));
  await done(page);
  await page.selectOption("#c-threshold", "3");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("threshold") === "3" && document.body.dataset.state === "done");
  await page.selectOption("#lang", "en");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("lang") === "en");
  const story = await page.textContent("#story");
  assert.match(story, /^An auto-scaling group/);
  const expected = [["model", "autoscale"], ["threshold", "3"], ["cooldown", "0,3,8"], ["columns", PAGES.group.pairs[3][1]]];
  assert.equal(await page.evaluate(() => location.search), query([["page", "group"], ...expected, ["lang", "en"]]));
  const before = await shown(page);
  assert.equal(before.output, runCli(expected).stdout);
  // An advanced flag, from the collapsed section.
  await page.click("#advanced-summary");
  await page.fill("#f-rounds", "120");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("rounds") === "120" && document.body.dataset.state === "done");
  const after = await shown(page);
  assert.equal(after.output, runCli([...expected.slice(0, 3), ["rounds", "120"], expected[3]]).stdout);
  await page.reload();
  await done(page);
  assert.deepEqual(await shown(page), after);
  assert.equal(await page.inputValue("#c-threshold"), "3");
  assert.match(await page.textContent("#story"), /^An auto-scaling group/);
  await page.close();
});
