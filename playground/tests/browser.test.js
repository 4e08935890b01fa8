// The playground in a real browser: playwright-core driving Debian's chromium (no browser
// download), the page served as plain static files by a tiny server below (the .wasm is sent
// as application/octet-stream, as a careless static host would), at the root and under a
// sub-path. The lesson pages are measured at 1280 x 800 and 390 x 844 (text size, overflow,
// the story's metric cells) and saved as screenshots in playground/tests/screenshots/.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const http = require("node:http");
const { execFileSync, spawnSync } = require("node:child_process");
const { chromium } = require("playwright-core");
const { root, site, capsim, goldenLesson, goldenLessonEn, runCli, plotArgs } = require("./common.js");

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };
// The sub-path the folder is also served under, as a static host serves a project's pages.
const SUB = "/course/week 3/capsim/";
let server, origin, base, browser, profile;
// Every path the server was asked for, by the pages under SUB.
const requested = [];

test.before(async () => {
  server = http.createServer((req, res) => {
    let name = decodeURIComponent(new URL(req.url, "http://x").pathname);
    requested.push(name);
    if (name.startsWith(SUB)) name = "/" + name.slice(SUB.length);
    name = name.replace(/^\/+/, "");
    const file = path.join(site, name || "index.html");
    if (!file.startsWith(site) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] || "application/octet-stream" });
    res.end(fs.readFileSync(file));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${server.address().port}`;
  base = `${origin}/index.html`;
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
  fs.mkdirSync(shots, { recursive: true });
});

test.after(async () => {
  await browser?.close();
  server?.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
});

const shots = path.join(__dirname, "screenshots");
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
    // The chart's bytes as the module wrote them (the DOM writes its own serialisation).
    chart: document.getElementById("chart") ? window.capsimChart : "",
  }));
}

// `capsim plot`'s SVG for a page's command (its chart pairs as --width and --lang).
function cliPlot(pairs) {
  const r = spawnSync(capsim, plotArgs(pairs), { encoding: "utf8", maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

// ---------------------------------------------------------------- the printouts

test("the lesson suite, byte for byte (index.html?lesson=all)", async () => {
  const { page, output, error } = await open([["lesson", "all"]]);
  assert.equal(error, "");
  assert.equal(output, goldenLesson("all"));
  const ms = await page.evaluate(() => window.capsimTimings.firstOutput);
  console.log(`# time to first output (lesson all, navigation start to output shown): ${ms.toFixed(0)} ms`);
  await page.close();
});

test("each lesson's printout is one click away, in the page's language", async () => {
  const { page } = await open([["lesson", "all"]]);
  for (const name of ["bulkhead", "group-sweep"]) {
    await page.click(`#lessons a[data-lesson="${name}"]`);
    await done(page);
    assert.equal((await shown(page)).output, goldenLesson(name));
  }
  await page.goto(base + "?lesson=consumers&lang=en");
  await done(page);
  assert.equal((await shown(page)).output, goldenLessonEn("consumers"));
  assert.equal(await page.inputValue("#lang"), "en");
  assert.equal(await page.evaluate(() => document.documentElement.lang), "en");
  await page.click('#lessons a[data-lesson="group"]');
  await done(page);
  assert.equal((await shown(page)).output, goldenLessonEn("group"));
  await page.close();
});

// ---------------------------------------------------------------- the every-flag page

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

test("the chart is capsim plot's for the same flags, drawn at the width it is shown", async () => {
  for (const [width, height] of SIZES) {
    const page = await browser.newPage();
    await page.setViewportSize({ width, height });
    const pairs = [["model", "autoscale"], ["threshold", "2,5"]];
    const { chart } = await open(pairs, page);
    assert.match(chart, /^<svg id="chart"/);
    const box = await page.evaluate(() => Math.floor(document.getElementById("chart-box").clientWidth));
    assert.equal(chart.replace('<svg id="chart" ', "<svg "), cliPlot([...pairs, ["chart-width", String(box)]]));
    const m = await measure(page);
    assert.ok(m.chartScale > 0.999 && m.chartScale < 1.001, JSON.stringify(m));
    assert.ok(m.smallestChartText >= 14, JSON.stringify(m));
    if (width === 1280) {
      const shot = path.join(root, "target", "playground-screenshot.png");
      await page.screenshot({ path: shot, fullPage: false });
      console.log(`# screenshot: ${shot}`);
    }
    await page.close();
  }
});

test("URL round trip: form -> URL -> reload -> same output", async () => {
  const { page } = await open([["model", "autoscale"]]);
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

// ---------------------------------------------------------------- measuring a page

const SIZES = [[1280, 800], [390, 844]];

// What the page shows, measured: the chart's displayed scale and its smallest text as
// displayed (SVG font-size x displayed width / drawn width), any text of the chart outside
// it, the widest element and the page's width against the viewport, the story's metric cells
// and the smallest text of the page's own (its visible elements with text of their own).
async function measure(page) {
  return page.evaluate(() => {
    const vw = innerWidth;
    const svg = document.getElementById("chart");
    const out = { viewport: vw, smallestChartText: null, chartScale: null, chartOutside: [] };
    if (svg) {
      const drawn = svg.width.baseVal.value;
      const shownW = svg.getBoundingClientRect().width;
      out.chartScale = shownW / drawn;
      const h = svg.height.baseVal.value;
      for (const t of svg.querySelectorAll("text")) {
        const px = parseFloat(t.getAttribute("font-size")) * out.chartScale;
        if (out.smallestChartText === null || px < out.smallestChartText) out.smallestChartText = px;
        // In the SVG's own units (a rotated text, the histogram's axis label, aside).
        if (t.getAttribute("transform")) continue;
        const b = t.getBBox();
        const r = { x: b.x, y: b.y, w: b.width, h: b.height };
        if (r.x < -0.5 || r.y < -0.5 || r.x + r.w > drawn + 0.5 || r.y + r.h > h + 0.5) out.chartOutside.push(t.textContent.trim());
      }
      const box = svg.getBoundingClientRect();
      out.chart = { left: box.left, right: box.right, width: box.width };
    }
    let widest = { width: 0 };
    let rightmost = { right: 0 };
    let smallest = { px: Infinity };
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (el.closest("svg")) continue;
      const style = getComputedStyle(el);
      if (style.visibility === "hidden") continue;
      if (r.width > widest.width) widest = { width: r.width, what: el.tagName + "#" + el.id + "." + el.className };
      if (r.right > rightmost.right) rightmost = { right: r.right, what: el.tagName + "#" + el.id + "." + el.className };
      const ownText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== "");
      if (ownText && !el.closest("pre, textarea")) {
        const px = parseFloat(style.fontSize);
        if (px < smallest.px) smallest = { px, what: el.tagName + "#" + el.id + "." + el.className + ": " + el.textContent.trim().slice(0, 40) };
      }
    }
    out.widest = widest;
    out.rightmost = rightmost;
    out.smallestPageText = smallest;
    out.scrollWidth = document.documentElement.scrollWidth;
    out.cells = [...document.querySelectorAll("#metrics td")].map((td) => {
      const r = td.getBoundingClientRect();
      return { key: td.dataset.key, left: r.left, right: r.right, top: r.top, shown: td.textContent, exact: td.dataset.exact, title: td.title };
    });
    return out;
  });
}

// Asserts that nothing of the page is wider than the viewport or reaches past it, the chart
// and the story's metric cells inside it, the chart's text at least 14 px as shown and none
// of it cut off.
function fits(m, what) {
  const say = what + ": " + JSON.stringify(m);
  assert.ok(m.scrollWidth <= m.viewport, "no sideways scroll: " + say);
  assert.ok(m.widest.width <= m.viewport, "no element wider than the viewport: " + say);
  assert.ok(m.rightmost.right <= m.viewport + 0.5, "nothing past the right edge: " + say);
  assert.ok(m.chart && m.chart.left >= 0 && m.chart.right <= m.viewport + 0.5, "the chart: " + say);
  assert.ok(m.smallestChartText >= 14, "chart text: " + say);
  assert.deepEqual(m.chartOutside, [], "chart text inside the chart: " + say);
  for (const c of m.cells) assert.ok(c.left >= 0 && c.right <= m.viewport + 0.5, "cell " + c.key + ": " + say);
}

// ---------------------------------------------------------------- the lesson pages

// Each lesson page's start command (what `?page=NAME` alone runs).
const PAGES = {
  group: { model: "autoscale", start: [["threshold", "2"], ["cooldown", "0"]] },
  consumers: { model: "consumers", start: [["consumers", "1"], ["slots", "2"]] },
  bulkhead: { model: "bulkhead", start: [["split", "shared"], ["mode", "slowdown"]] },
};

// Each value of the command line's JSON row as it wrote it.
function rawRow(line) {
  const out = {};
  for (const m of line.slice(1, -1).matchAll(/"([a-z_]+)":("(?:[^"\\]|\\.)*"|\[[^\]]*\]|[^,]*)/g)) out[m[1]] = m[2];
  return out;
}

// The metrics the command line's table shows without --columns (`--columns help` stars
// them), in the table's order: the story's metrics a lesson page shows.
function tableMetrics(command) {
  const help = runCli([...command, ["columns", "help"]]);
  assert.equal(help.status, 0, help.stderr);
  const starred = help.stdout.split("\n").filter((l) => l.endsWith(" *")).map((l) => l.slice(0, -2));
  const table = runCli(command);
  assert.equal(table.status, 0, table.stderr);
  const header = table.stdout.split("\n")[0].trim().split(/ +/);
  return header.filter((k) => starred.includes(k));
}

// The command line's table for `command` (`capsim MODEL … --columns KEYS`): a row per run,
// each cell's text by its column.
function cliTable(command, keys) {
  const r = runCli([...command, ["columns", keys.join(",")]]);
  assert.equal(r.status, 0, r.stderr);
  const [header, ...lines] = r.stdout.split("\n").filter((l) => l !== "").map((l) => l.trim().split(/ +/));
  return lines.map((cells) => Object.fromEntries(header.map((k, i) => [k, cells[i]])));
}

// A Turkish page's number back in the command line's text: its marks undone (the page's
// rule: a decimal comma, the whole part's digits grouped in threes with a dot).
const untr = (shown) => shown.replace(/\./g, "").replace(",", ".");

// English left on a Turkish page: the chart's and the page's words (the command line
// itself and the command names in the chart's title aside).
const ENGLISH = /\b(the|and|of|round|rounds|group size|ready|required|threshold|cooldown|consumers|slots|split|mode|dropped|shared|healthy|slowdown|instances|surge|under capacity|seed|breaks|tracking|event|backlog|requests|language|throughput)\b/i;

async function englishLeft(page) {
  return page.evaluate((source) => {
    const english = new RegExp(source, "i");
    const texts = [];
    for (const el of document.querySelectorAll("body *")) {
      if (el.closest(".command, script, #lang, nav#top a#home")) continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      for (const n of el.childNodes) {
        if (n.nodeType !== 3) continue;
        const text = n.textContent.trim().replace(/^capsim (autoscale|consumers|bulkhead)\b:?/, "").replace(/\bcapsim\b/g, "");
        if (english.test(text)) texts.push(text);
      }
    }
    return texts;
  }, ENGLISH.source);
}

const figures = [];

for (const [name, want] of Object.entries(PAGES)) {
  for (const lang of ["tr", "en"]) {
    for (const [width, height] of SIZES) {
      test(`?page=${name}${lang === "en" ? "&lang=en" : ""} alone at ${width} x ${height}: its start values, the chart and the story's metrics on the screen, readable`, async () => {
        const page = await browser.newPage();
        await page.setViewportSize({ width, height });
        const url = "?page=" + name + (lang === "en" ? "&lang=en" : "");
        await page.goto(base + url);
        await done(page);
        const { error, chart } = await shown(page);
        assert.equal(error, "");
        // The table is the start command's run: the metrics the command line's table shows,
        // in its order, each cell the text it prints for it (`capsim MODEL … --columns
        // KEYS`; in Turkish with the page's marks), its exact value (the command line's
        // JSON) in its tooltip.
        const command = [["model", want.model], ...want.start];
        const cli = runCli([...command, ["format", "json"]]);
        assert.equal(cli.status, 0, cli.stderr);
        const exact = rawRow(cli.stdout.trim());
        const m = await measure(page);
        const keys = tableMetrics(command);
        assert.ok(keys.length >= 4, JSON.stringify(keys));
        assert.deepEqual(m.cells.map((c) => c.key), keys);
        const [table] = cliTable(command, keys);
        for (const c of m.cells) {
          assert.equal(c.exact, exact[c.key], c.key);
          assert.equal(lang === "tr" ? untr(c.shown) : c.shown, table[c.key], c.key + ": " + c.shown);
          assert.equal(c.title, `${c.key} = ${exact[c.key]} (${lang === "tr" ? "tam değeri" : "exact value"})`);
        }
        if (name === "consumers") {
          // The throughput, a fraction: 4 significant digits, a decimal comma in Turkish.
          assert.equal(m.cells.find((c) => c.key === "throughput").shown, lang === "tr" ? "0,389" : "0.389");
          assert.equal(m.cells.find((c) => c.key === "rounds").shown, lang === "tr" ? "89.972" : "89972");
        }
        // The chart is capsim plot's for the same flags, at the width shown and in the
        // page's language.
        const box = await page.evaluate(() => Math.floor(document.getElementById("chart-box").clientWidth));
        const plot = [...command, ["chart-width", String(box)], ...(lang === "tr" ? [["chart-lang", "tr"]] : [])];
        assert.equal(chart.replace('<svg id="chart" ', "<svg "), cliPlot(plot));
        if (name === "group") {
          // The rounds under capacity, shaded: as many as the metric counts.
          const under = await page.$$eval('#chart rect[fill="#D62728"]', (rs) => rs.length);
          assert.ok(under >= 1);
          assert.match(chart, lang === "tr" ? /kapasite altı \(10 tur\)/ : /under capacity \(10 rounds\)/);
        }
        fits(m, url + ` at ${width}`);
        assert.ok(m.smallestPageText.px >= 14, JSON.stringify(m.smallestPageText));
        // One language: the switch says which, and a Turkish page has no English left.
        assert.equal(await page.inputValue("#lang"), lang);
        assert.equal(await page.evaluate(() => document.documentElement.lang), lang);
        if (lang === "tr") {
          assert.deepEqual(await englishLeft(page), []);
          const story = await page.textContent("#story");
          assert.match(story, /[şğıöüç]/);
        } else {
          assert.match(await page.textContent("#story"), /^(An|N|Tracking)/);
        }
        // The controls are on the page, set to the start values.
        for (const [flag, value] of want.start) {
          const shownValue = await page.evaluate((f) => {
            const out = document.getElementById("v-" + f);
            if (out) return out.textContent;
            return document.querySelector(`#c-${f} [aria-checked=true]`).dataset.value;
          }, flag);
          if (flag === "mode") assert.equal(shownValue, value);
          else assert.ok(shownValue === value || shownValue === "paylaşımlı", flag + ": " + shownValue);
          assert.ok(await page.isVisible(`#c-${flag}`), flag);
        }
        const shot = path.join(shots, `${name}${lang === "en" ? "-en" : ""}-${width}x${height}.png`);
        await page.screenshot({ path: shot });
        // A phone scrolls down: the whole page too.
        if (width < 800) await page.screenshot({ path: shot.replace(/\.png$/, "-full.png"), fullPage: true });
        figures.push(`${url} ${width}x${height}: smallest chart text ${m.smallestChartText.toFixed(2)} px (scale ${m.chartScale.toFixed(3)}), smallest page text ${m.smallestPageText.px} px, widest element ${m.widest.width.toFixed(1)} of ${m.viewport} px, page ${m.scrollWidth} px wide`);
        await page.close();
      });
    }
  }
}

test("the start page at both sizes: one language, the lesson pages one tap away, nothing wider than the screen", async () => {
  for (const lang of ["tr", "en"]) {
    for (const [width, height] of SIZES) {
      const page = await browser.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(base + (lang === "en" ? "?lang=en" : ""));
      await done(page);
      const m = await measure(page);
      assert.ok(m.scrollWidth <= m.viewport && m.widest.width <= m.viewport, JSON.stringify(m));
      assert.ok(m.smallestPageText.px >= 14, JSON.stringify(m.smallestPageText));
      assert.equal(await page.inputValue("#lang"), lang);
      if (lang === "tr") {
        assert.deepEqual(await englishLeft(page), []);
        assert.match(await page.textContent("#start"), /[şğıöüç]/);
      }
      const cards = await page.$$eval("#cards a", (as) => as.map((a) => a.getAttribute("href")));
      const suffix = lang === "en" ? "&lang=en" : "";
      for (const name of ["group", "consumers", "bulkhead"]) assert.ok(cards.includes("?page=" + name + suffix), JSON.stringify(cards));
      await page.screenshot({ path: path.join(shots, `start${lang === "en" ? "-en" : ""}-${width}x${height}.png`) });
      await page.close();
    }
  }
});

test("the measured figures", () => {
  for (const f of figures) console.log("# " + f);
});

test("a lesson page's controls rerun at once; their values and the language are in the URL; a reload shows the same", async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(base + "?page=group");
  await done(page);
  const table = () => page.$$eval("#metrics td", (tds) => Object.fromEntries(tds.map((td) => [td.dataset.key, td.dataset.exact])));
  const cliRow = (pairs) => rawRow(runCli([...pairs, ["format", "json"]]).stdout.trim());
  const expect = async (pairs) => {
    const row = cliRow(pairs);
    const shownRow = await table();
    for (const [k, v] of Object.entries(shownRow)) assert.equal(v, row[k], k + " " + JSON.stringify(pairs));
  };
  // The stepper: one more.
  await page.click("#more-threshold");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("threshold") === "3" && document.body.dataset.state === "done");
  await expect([["model", "autoscale"], ["threshold", "3"], ["cooldown", "0"]]);
  // The slider, moved fast: the last value wins, the runs in between are dropped.
  await page.$eval("#c-cooldown", (el) => {
    for (const v of [1, 2, 3, 5, 8]) {
      el.value = String(v);
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }
  });
  await page.waitForFunction(() => new URLSearchParams(location.search).get("cooldown") === "8" && document.body.dataset.state === "done");
  await expect([["model", "autoscale"], ["threshold", "3"], ["cooldown", "8"]]);
  assert.equal(await page.textContent("#v-cooldown"), "8");
  // The language: the whole page and its chart.
  await page.selectOption("#lang", "en");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("lang") === "en" && document.body.dataset.state === "done");
  assert.match(await page.textContent("#story"), /^An auto-scaling group/);
  assert.equal(await page.evaluate(() => location.search), "?page=group&threshold=3&cooldown=8&lang=en");
  assert.match(await page.evaluate(() => document.getElementById("chart").outerHTML), /under capacity/);
  const before = await table();
  await page.reload();
  await done(page);
  assert.deepEqual(await table(), before);
  assert.equal(await page.textContent("#v-threshold"), "3");
  assert.match(await page.textContent("#story"), /^An auto-scaling group/);
  // The bulkhead's mode is a choice of two, its split a stepper from shared.
  await page.goto(base + "?page=bulkhead");
  await done(page);
  await page.click('#c-mode button[data-value="healthy"]');
  await page.waitForFunction(() => new URLSearchParams(location.search).get("mode") === "healthy" && document.body.dataset.state === "done");
  await expect([["model", "bulkhead"], ["split", "shared"], ["mode", "healthy"]]);
  await page.$eval("#c-split", (el) => {
    el.value = "24";
    el.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await page.waitForFunction(() => new URLSearchParams(location.search).get("split") === "24" && document.body.dataset.state === "done");
  await expect([["model", "bulkhead"], ["split", "24"], ["mode", "healthy"]]);
  await page.close();
});

test("a lesson page URL with lists runs the sweep: a row (or card) per run, the chart its small multiples", async () => {
  for (const [width, height] of SIZES) {
    const page = await browser.newPage();
    await page.setViewportSize({ width, height });
    await page.goto(base + "?page=group&threshold=2,3,5&cooldown=0,3,8&lang=en");
    await done(page);
    const { error, chart } = await shown(page);
    assert.equal(error, "");
    const captions = (chart.match(/>\s*threshold=\d cooldown=\d\s*</g) || []).length;
    assert.equal(captions, 9);
    const command = [["model", "autoscale"], ["threshold", "2,3,5"], ["cooldown", "0,3,8"]];
    const cli = runCli([...command, ["format", "json"]]);
    const rows = cli.stdout.trim().split("\n").map(rawRow);
    const keys = tableMetrics(command);
    const table = cliTable(command, keys);
    assert.equal(table.length, 9);
    const cells = await page.$$eval("#metrics td", (tds) => tds.map((td) => [td.dataset.key, td.dataset.exact, td.textContent]));
    const expected = rows.flatMap((r, i) => keys.map((k) => [k, r[k], table[i][k]]));
    assert.deepEqual(cells, expected);
    fits(await measure(page), `the sweep at ${width}`);
    await page.close();
  }
});

// ---------------------------------------------------------------- every URL, bare

// The playground's URLs the README and the docs show (`index.html?…`), and every link the
// pages show: each is loaded bare and shows what it says, without an error.
function documentedUrls() {
  const files = [path.join(root, "README.md")];
  const docs = path.join(root, "docs");
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".md")) files.push(p);
    }
  };
  if (fs.existsSync(docs)) walk(docs);
  const urls = new Set();
  for (const f of files) {
    for (const m of fs.readFileSync(f, "utf8").matchAll(/index\.html(\?[^\s`)"'<>|]*)/g)) urls.add(m[1]);
  }
  return [...urls];
}

// What a bare URL must show: the printout's golden bytes, the command's stdout, a lesson
// page's table and chart, the formula editor's accepted text, the start page's cards.
async function showsWhatItSays(page, q) {
  await page.goto(base + q);
  await done(page);
  const pairs = [...new URLSearchParams(q)];
  const get = (k) => pairs.find(([n]) => n === k)?.[1];
  const { output, error, chart } = await shown(page);
  const kind = await page.evaluate(() => document.body.className);
  assert.equal(error, "", q);
  if (kind === "page-printout") {
    const text = get("lang") === "en" ? goldenLessonEn(get("lesson")) : goldenLesson(get("lesson"));
    assert.equal(output, text, q);
  } else if (kind === "page-lesson") {
    assert.ok((await page.$$("#metrics td")).length > 0, q);
    assert.match(chart, /^<svg id="chart"/, q);
  } else if (kind === "page-formula") {
    await page.waitForFunction(() => document.body.dataset.check === "done");
    assert.match(await page.textContent("#formula-check"), /^ok: /, q);
    assert.match(chart, /^<svg id="chart"/, q);
  } else if (kind === "page-command") {
    const cli = runCli(pairs.filter(([k]) => k !== "lang"));
    assert.equal(cli.status, 0, q + ": " + cli.stderr);
    assert.equal(output, cli.stdout, q);
  } else {
    assert.equal(kind, "page-start", q);
    assert.ok((await page.$$("#cards a")).length >= 5, q);
  }
  return kind;
}

test("every URL the docs and the pages show opens bare and shows what it says", async () => {
  const page = await browser.newPage();
  const documented = documentedUrls();
  // A documented URL is loadable as it is written: no placeholder (…) in it.
  assert.deepEqual(documented.filter((u) => u.includes("…")), []);
  assert.ok(documented.length >= 8, JSON.stringify(documented));
  const loadable = documented;
  console.log(`# documented playground URLs: ${documented.length}`);
  const seen = new Set();
  const queue = ["?", "?lang=en", ...loadable];
  while (queue.length) {
    const q = queue.shift();
    if (seen.has(q)) continue;
    seen.add(q);
    await showsWhatItSays(page, q);
    // Every link the page shows is a URL too.
    for (const href of await page.$$eval("a[href]", (as) => as.map((a) => a.getAttribute("href")))) {
      assert.ok(href.startsWith("?"), `a relative link: ${href} on ${q}`);
      if (!seen.has(href)) queue.push(href);
    }
  }
  for (const must of ["?page=group", "?page=consumers", "?page=bulkhead", "?page=formula", "?page=group&lang=en", "?lesson=all", "?model=autoscale"]) {
    assert.ok(seen.has(must), must + " among " + [...seen].join(" "));
  }
  console.log(`# URLs loaded bare: ${seen.size}`);
  await page.close();
});

test("the folder works served from a sub-path: every request stays under it", async () => {
  const page = await browser.newPage();
  requested.length = 0;
  for (const q of ["?page=group", "?page=formula", "?lesson=bulkhead&lang=en", "?model=consumers&consumers=1,2"]) {
    await page.goto(origin + encodeURI(SUB) + q);
    await done(page);
    const { error } = await shown(page);
    assert.equal(error, "", q);
    if (q.startsWith("?page=formula")) await page.waitForFunction(() => document.body.dataset.check === "done");
  }
  const outside = requested.filter((p) => !p.startsWith(SUB));
  assert.deepEqual(outside, []);
  assert.ok(requested.some((p) => p.endsWith("/capsim.wasm")), JSON.stringify(requested));
  assert.ok(requested.some((p) => p.endsWith("/formulas/demand.formula")), JSON.stringify(requested));
  await page.close();
});

// ---------------------------------------------------------------- the formula editor

const formulas = path.join(root, "examples", "formulas");

// The command line on a file editor.formula holding `text`, in a directory of its own.
function cliOnFile(text, args) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "capsim-formula-"));
  fs.writeFileSync(path.join(dir, "editor.formula"), text);
  const r = spawnSync(capsim, args, { cwd: dir, encoding: "utf8" });
  fs.rmSync(dir, { recursive: true, force: true });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const formulaUrl = (text, extra = []) =>
  base + "?page=formula" + extra.map(([k, v]) => `&${k}=${encodeURIComponent(v)}`).join("") + "&formula-text=" + encodeURIComponent(text);

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

// How many times `text` appears in what the page shows.
async function timesShown(page, text) {
  const all = await page.evaluate(() => document.body.innerText);
  return all.split(text).length - 1;
}

test("?page=formula alone opens the editor on the demand-driven example, the editor first on a phone", async () => {
  const demand = fs.readFileSync(path.join(formulas, "demand.formula"), "utf8");
  for (const [width, height] of SIZES) {
    const page = await browser.newPage();
    await page.setViewportSize({ width, height });
    await page.goto(base + "?page=formula");
    await done(page);
    await page.waitForFunction(() => document.body.dataset.check === "done");
    assert.equal(await page.inputValue("#formula-text"), demand);
    assert.match(await page.textContent("#formula-check"), /^ok: /);
    assert.equal((await shown(page)).output, cliOnFile(demand, ["autoscale", "--formula", "editor.formula"]).stdout);
    // The editor is the first thing under the navigation, on the first screen.
    const place = await page.evaluate(() => {
      const r = document.getElementById("formula-text").getBoundingClientRect();
      const chart = document.getElementById("chart").getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, chart: chart.top, height: innerHeight, width: r.width, scroll: document.documentElement.scrollWidth, vw: innerWidth };
    });
    assert.ok(place.bottom < place.height && place.top < place.chart, JSON.stringify(place));
    assert.ok(place.scroll <= place.vw, JSON.stringify(place));
    // The formula editor speaks the command line's English.
    assert.equal(await page.evaluate(() => document.documentElement.lang), "en");
    await page.screenshot({ path: path.join(shots, `formula-${width}x${height}.png`) });
    await page.close();
  }
});

test("formula-text in the URL shows what capsim autoscale --formula FILE --format json prints", async () => {
  const page = await browser.newPage();
  for (const name of ["demand.formula", "cpu-busy.formula", "working-hours.formula", "zero.formula"]) {
    const text = fs.readFileSync(path.join(formulas, name), "utf8");
    const cli = cliOnFile(text, ["autoscale", "--formula", "editor.formula", "--format", "json"]);
    assert.equal(cli.status, 0, cli.stderr);
    // The page's own URL, and the one the README showed before the editor had its page.
    for (const url of [formulaUrl(text, [["format", "json"]]), base + "?model=autoscale&formula-text=" + encodeURIComponent(text) + "&format=json"]) {
      await page.goto(url);
      await done(page);
      const { output, error } = await shown(page);
      assert.equal(error, "");
      assert.equal(output, cli.stdout, name);
      assert.equal(await page.inputValue("#formula-text"), text);
      assert.equal(
        await page.evaluate(() => document.getElementById("command").textContent),
        "$ capsim autoscale --format json --formula editor.formula   # editor.formula: the editor's text"
      );
      // The chart is capsim plot's for the same text.
      const chart = await page.evaluate(() => document.getElementById("chart").outerHTML);
      assert.match(chart, /^<svg id="chart"/);
    }
  }
  await page.close();
});

test("a bad formula's error is shown once, the command line's line, its line and column marked", async () => {
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
    await page.waitForFunction(() => document.body.dataset.check === "done" && document.body.dataset.log === "done");
    const { output } = await shown(page);
    assert.equal(output, "");
    const m = await mark(page);
    assert.equal(m.hidden, false);
    assert.equal([m.line, m.col].join(":"), `${line}:${col}`);
    assert.equal(m.marked, char);
    assert.equal(m.selected, char);
    // The live check is capsim formula check's line, and the run's error is the same line:
    // the page shows it once.
    const check = cliOnFile(text, ["formula", "check", "editor.formula"]);
    assert.equal(m.check + "\n", check.stderr);
    assert.equal(cli.stderr, check.stderr);
    assert.equal(await timesShown(page, cli.stderr.trim()), 1, cli.stderr);
  }
  await page.close();
});

test("the formula editor: an example one click away, live check, eval with samples and time, the evaluation log", async () => {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(base + "?page=formula&formula-text=");
  await done(page);
  // Every example of examples/formulas/ is a button.
  const files = fs.readdirSync(formulas).filter((f) => f.endsWith(".formula")).sort();
  await page.waitForFunction((n) => document.querySelectorAll("#formula-examples button").length === n, files.length);
  const demand = fs.readFileSync(path.join(formulas, "demand.formula"), "utf8");
  await page.click('#formula-examples button[data-file="demand.formula"]');
  await page.waitForFunction(
    (q) => location.search === q && document.body.dataset.state === "done",
    "?page=formula&formula-text=" + encodeURIComponent(demand)
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
  await done(page);
  assert.equal(await timesShown(page, bad.stderr.trim()), 1);
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
  await page.screenshot({ path: path.join(shots, "formula-full-1280x800.png"), fullPage: true });
  await page.close();
});

// The formula's warnings as the page shows them under its check.
async function warningsShown(page) {
  return page.$$eval("#formula-warnings li", (lis) =>
    lis.map((li) => ({
      message: li.querySelector(".message").textContent,
      line: li.dataset.line,
      col: li.dataset.col,
      marked: li.querySelector("mark")?.textContent,
    }))
  );
}

test("a formula's warnings are shown once, under the check, each at its line and column; a clean formula shows none", async () => {
  const cpu = "$avg = avg($CPUPercent.GetSample(TimeInterval_Minute * 5));\n$TargetDedicatedNodes = $avg > 70 ? 10 : 1;\n";
  const truncated = "$TargetDedicatedNodes = $CurrentDedicatedNodes * 1.25;\n";
  const both = "$busy = avg($CPUPercent.GetSample(TimeInterval_Minute * 5)) > 80;\n$TargetDedicatedNodes = $busy ? $CurrentDedicatedNodes * 1.25 : $CurrentDedicatedNodes;\n";
  const microsoft = fs.readFileSync(path.join(formulas, "cpu-400.formula"), "utf8");
  for (const [width, height] of SIZES) {
    const page = await browser.newPage();
    await page.setViewportSize({ width, height });
    for (const [what, text, count] of [["cpu", cpu, 1], ["truncated", truncated, 1], ["both", both, 2], ["cpu-400", microsoft, 1]]) {
      const check = cliOnFile(text, ["formula", "check", "editor.formula"]);
      assert.equal(check.status, 0, check.stderr);
      const warnings = check.stderr.split("\n").filter((l) => l !== "");
      assert.equal(warnings.length, count, what + ": " + check.stderr);
      assert.ok(warnings.every((w) => w.startsWith("editor.formula:") && w.includes(": warning: ")), check.stderr);
      // The evaluation log's command writes the same warnings first.
      const trace = cliOnFile(text, ["trace", "autoscale", "--formula", "editor.formula", "--evaluations"]);
      assert.equal(trace.stderr, check.stderr, what);
      await page.goto(formulaUrl(text));
      await done(page);
      await page.waitForFunction(() => document.body.dataset.check === "done" && document.body.dataset.log === "done");
      // Each message once on the whole page, under the check, which accepts the formula.
      for (const w of warnings) assert.equal(await timesShown(page, w), 1, what + ": " + w);
      const check_ = await page.evaluate(() => ({ text: document.getElementById("formula-check").textContent, className: document.getElementById("formula-check").className }));
      assert.match(check_.text, new RegExp(`^ok: .*, with ${count} warnings?:$`), what);
      assert.equal(check_.className, "check warn");
      const shownWarnings = await warningsShown(page);
      assert.deepEqual(shownWarnings.map((w) => w.message), warnings, what);
      // Each at its line and column: the character there marked, as the test counts it.
      const lines = text.split("\n");
      for (const [i, w] of warnings.entries()) {
        const [, line, col] = /^editor\.formula:(\d+):(\d+): warning: /.exec(w);
        assert.equal(shownWarnings[i].line + ":" + shownWarnings[i].col, `${line}:${col}`, what);
        assert.equal(shownWarnings[i].marked, Array.from(lines[line - 1])[col - 1], what);
      }
      // Not an error: no error line, no error mark; the run's output is there.
      assert.equal((await shown(page)).error, "");
      assert.equal(await page.evaluate(() => document.getElementById("formula-mark").hidden), true);
      assert.equal(await page.evaluate(() => document.getElementById("warnings").hidden), true);
      assert.equal((await shown(page)).output, cliOnFile(text, ["autoscale", "--formula", "editor.formula"]).stdout);
      // The evaluation log says its warnings are the ones above, without repeating them.
      const note = await page.textContent("#evaluation-note");
      assert.match(note, count === 1 ? /Its warning \(written before the records\) is under the check above\.$/ : /Its 2 warnings \(written before the records\) are under the check above\.$/, note);
      // A click on a warning selects its place in the text.
      await page.click("#formula-warnings li >> nth=0");
      assert.equal(await page.evaluate(() => { const ta = document.getElementById("formula-text"); return ta.value.slice(ta.selectionStart, ta.selectionEnd); }), shownWarnings[0].marked);
      if (what === "both") await page.screenshot({ path: path.join(shots, `formula-warnings-${width}x${height}.png`) });
    }
    // A clean formula: no warning anywhere.
    const demand = fs.readFileSync(path.join(formulas, "demand.formula"), "utf8");
    assert.equal(cliOnFile(demand, ["formula", "check", "editor.formula"]).stderr, "");
    await page.goto(formulaUrl(demand));
    await done(page);
    await page.waitForFunction(() => document.body.dataset.check === "done" && document.body.dataset.log === "done");
    assert.deepEqual(await warningsShown(page), []);
    assert.equal(await page.evaluate(() => document.getElementById("formula-warnings").hidden), true);
    assert.equal(await page.evaluate(() => document.getElementById("formula-check").className), "check good");
    assert.equal(await timesShown(page, "warning"), 0);
    await page.close();
  }
  // Every other page shows a command's warnings once, as the command line's stderr lines
  // before its output: formula=check (the every-flag page), a lesson page given a formula.
  const page = await browser.newPage();
  const check = cliOnFile(both, ["formula", "check", "editor.formula"]);
  await page.goto(base + "?formula=check&formula-text=" + encodeURIComponent(both));
  await done(page);
  assert.equal(await page.evaluate(() => document.body.className), "page-command");
  assert.equal(await page.evaluate(() => document.getElementById("warnings").textContent + "\n"), check.stderr);
  for (const w of check.stderr.trim().split("\n")) assert.equal(await timesShown(page, w), 1, w);
  assert.equal((await shown(page)).error, "");
  await page.goto(base + "?page=group&lang=en&formula-text=" + encodeURIComponent(truncated));
  await done(page);
  const lesson = cliOnFile(truncated, ["autoscale", "--threshold", "2", "--cooldown", "0", "--formula", "editor.formula"]);
  assert.equal(lesson.status, 0, lesson.stderr);
  assert.equal(await page.evaluate(() => document.getElementById("warnings").textContent + "\n"), lesson.stderr);
  assert.equal(await timesShown(page, lesson.stderr.trim()), 1);
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
