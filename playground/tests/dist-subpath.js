// The playground as scripts/dist.sh ships it, served by a plain static server under a
// sub-path (DIST_URL, e.g. http://127.0.0.1:PORT/courses/capacity/capsim/): the lesson suite
// and the formula editor load in chromium, every request the page makes stays inside that
// path and is answered 200. Run by scripts/dist.sh (not a *.test.js: it needs the server).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { chromium } = require("playwright-core");
const { goldenLesson } = require("./common.js");

const base = process.env.DIST_URL;
let browser, profile;

test.before(async () => {
  assert.ok(base && base.endsWith("/"), "DIST_URL: the folder's URL, ending with /");
  const executablePath = execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
  profile = fs.mkdtempSync(path.join(os.tmpdir(), "capsim-dist-"));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
});

test.after(async () => {
  await browser?.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
});

// Opens `query` under the sub-path; returns the page, what it shows and every request's URL
// and status.
async function open(query) {
  const page = await browser.newPage();
  const requests = [];
  page.on("response", (r) => requests.push({ url: r.url(), status: r.status() }));
  page.on("requestfailed", (r) => requests.push({ url: r.url(), status: "failed" }));
  await page.goto(base + "index.html" + query);
  await page.waitForFunction(() => document.body.dataset.state === "done", null, { timeout: 60000 });
  const shown = await page.evaluate(() => ({
    output: document.getElementById("output").textContent,
    error: document.getElementById("error").hidden ? "" : document.getElementById("error").textContent,
  }));
  return { page, requests, ...shown };
}

function inside(requests) {
  assert.ok(requests.length >= 4, `the page fetched its files: ${JSON.stringify(requests)}`);
  for (const { url, status } of requests) {
    assert.ok(url.startsWith(base), `${url} is outside ${base}`);
    assert.equal(status, 200, `${url}: ${status}`);
  }
}

test("the lesson suite under a sub-path (index.html?lesson=all)", async () => {
  const { page, requests, output, error } = await open("?lesson=all");
  assert.equal(error, "");
  assert.equal(output, goldenLesson("all"));
  inside(requests);
  assert.ok(requests.some((r) => r.url.endsWith("/capsim.wasm")), "the module came from the sub-path");
  await page.close();
});

test("the formula editor under a sub-path loads its examples", async () => {
  const { page, requests, error } = await open("?model=autoscale&formula-text=");
  assert.equal(error, "");
  await page.waitForFunction(() => performance.getEntriesByType("resource").some((e) => e.name.includes("/formulas/")), null, { timeout: 30000 });
  await page.waitForLoadState("networkidle");
  inside(requests);
  assert.ok(requests.some((r) => r.url.startsWith(base + "formulas/")), "the examples came from the sub-path");
  await page.close();
});

test("a lesson page and the formula editor's own page under a sub-path", async () => {
  for (const query of ["?page=group", "?page=bulkhead&lang=en", "?page=formula"]) {
    const { page, requests, error } = await open(query);
    assert.equal(error, "", query);
    assert.ok(await page.$("#chart"), query + ": its chart");
    if (query.startsWith("?page=formula")) {
      await page.waitForFunction(() => document.body.dataset.check === "done", null, { timeout: 30000 });
      assert.match(await page.textContent("#formula-check"), /^ok: /);
    } else {
      assert.ok((await page.$$("#metrics td")).length > 0, query + ": its numbers");
    }
    await page.waitForLoadState("networkidle");
    inside(requests);
    await page.close();
  }
});
