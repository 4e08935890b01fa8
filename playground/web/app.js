// The playground page: the URL is the state. It builds the form from the models' parameter
// definitions (the same table the command line's --help prints), keeps the URL in step with
// the form, and runs each command in a Web Worker.
"use strict";

const $ = (id) => document.getElementById(id);
let defs = null; // {models: [{model, params: [{flag, help, accepted, lesson, default}]}], ...}
let worker = null;
let workerReady = null;
let busy = false;
let jobId = 0;
// Quick commands (a formula's check or eval, the evaluation log's records), answered by id.
let askId = 0;
const asked = new Map();
// The file a formula-text is, as the command line sees it (capsim::query::FORMULA_TEXT_FILE).
const FORMULA_FILE = "editor.formula";
// For the tests: when the first output appeared, and the progress reports of the last run.
window.capsimTimings = {};
window.capsimProgress = { reports: 0, done: 0, total: 0 };

function startWorker() {
  worker = new Worker("worker.js");
  workerReady = new Promise((resolve, reject) => {
    worker.onmessage = (e) => {
      const m = e.data;
      if (m.type === "ready") resolve(m.params);
      else if (m.type === "failed") reject(new Error(m.message));
      else if (m.type === "progress" && m.id === jobId) showProgress(m.done, m.total);
      else if (m.type === "result" && m.id === jobId) showResult(m);
      else if (m.type === "result" && asked.has(m.id)) {
        asked.get(m.id).resolve(m);
        asked.delete(m.id);
      }
    };
  });
  return workerReady;
}

// Runs a quick command in the worker (after any command before it); resolves to
// {stdout, error, chart}. A worker restarted under it rejects it.
function ask(pairs) {
  askId -= 1; // negative: never a run's jobId
  const id = askId;
  return new Promise((resolve, reject) => {
    asked.set(id, { resolve, reject });
    worker.postMessage({ id, pairs });
  });
}

// ---------------------------------------------------------------- the lesson pages

// Each lesson's page: its story (English and Turkish), the model, the two controls that matter
// (each a select of the lesson's values, one at a time or all of them) and the table's columns.
const PAGES = {
  group: {
    model: "autoscale",
    story: {
      en: "An auto-scaling group follows a demand that rises and falls over 240 minutes, with a surge from minute 150 to 190, while its health check now and then takes a healthy instance for a broken one. The threshold is how many failed checks in a row replace an instance; the cooldown is how many minutes the group waits after it scales. Change them and watch the rounds under capacity and the false replacements.",
      tr: "Bir otomatik ölçekleme grubu 240 dakika boyunca inip çıkan talebi izler (150. ile 190. dakikalar arasında ani bir artış var); sağlık kontrolü ise arada bir sağlam bir sunucuyu bozuk sanır. Eşik, bir sunucunun değiştirilmesi için art arda kaç kontrolün başarısız olması gerektiğidir; soğuma, grubun ölçeklendikten sonra kaç dakika beklediğidir. Bunları değiştirin ve kapasite altı turlara ve yanlış değiştirmelere bakın.",
    },
    controls: [["threshold", ["2", "3", "5"]], ["cooldown", ["0", "3", "8"]]],
    start: [["threshold", "2,3,5"], ["cooldown", "0,3,8"]],
    columns: "under_capacity_rounds,false_replacements,launched,max_size,idle_billed_rounds",
  },
  consumers: {
    model: "consumers",
    story: {
      en: "N competing consumers take the events of 5,000 shipments from one queue and apply them to a store that takes at most S events a round. More consumers drain the queue sooner only until the store's S slots are the limit, and they apply more events out of order. Change the consumers and the slots and watch the throughput and the reordered shipments.",
      tr: "N rakip tüketici, 5.000 gönderinin olaylarını tek bir kuyruktan alır ve onları bir turda en çok S olay işleyen bir depoya uygular. Daha çok tüketici kuyruğu ancak deponun S yuvası sınır olana kadar daha hızlı boşaltır ve daha çok olayı sırasız uygular. Tüketici ve yuva sayısını değiştirin, verime ve sırası bozulan gönderilere bakın.",
    },
    controls: [["consumers", ["1", "2", "3", "4", "6", "8"]], ["slots", ["2", "4"]]],
    start: [["consumers", "1,2,4,8"], ["slots", "2"]],
    columns: "throughput,reordered_shipments,wrong_final_state,rounds",
  },
  bulkhead: {
    model: "bulkhead",
    story: {
      en: "Tracking and event requests share a pool of slots. When the event service slows down, its requests hold their slots longer and, in a shared pool, crowd out the tracking requests; a bulkhead splits the pool so that tracking keeps its own slots. Change the split and the mode and watch who is dropped.",
      tr: "Takip ve olay istekleri bir yuva havuzunu paylaşır. Olay servisi yavaşladığında istekleri yuvalarını daha uzun tutar ve paylaşılan havuzda takip isteklerini dışarıda bırakır; bölme (bulkhead) havuzu ayırır, böylece takibin kendi yuvaları kalır. Bölmeyi ve kipi değiştirin, kimin düşürüldüğüne bakın.",
    },
    controls: [["split", ["shared", "24"]], ["mode", ["healthy", "slowdown"]]],
    start: [["split", "shared,24"], ["mode", "healthy,slowdown"]],
    columns: "tracking_dropped,event_dropped,idle_slots",
  },
};

// The page's own pairs (not the command's): which lesson page, and its story's language.
const PAGE_KEYS = ["page", "lang"];
let page = null; // the lesson page shown, or null

// A lesson page's first URL: its model, controls and columns.
function pageUrl(name) {
  const p = PAGES[name];
  const pairs = [["page", name], ["model", p.model], ...p.start, ["columns", p.columns]];
  if ($("lang").value !== "tr") pairs.push(["lang", $("lang").value]);
  return "?" + pairs.map(([k, v]) => k + "=" + encodeURIComponent(v)).join("&");
}

// Shows the lesson page `name` (or none): its story in the chosen language and its controls,
// each bound to the form field of the same flag.
function showPage(name, opening = true) {
  page = PAGES[name] ? name : null;
  document.body.classList.toggle("lesson-page", !!page);
  $("lesson-page").hidden = !page;
  if (opening) $("advanced").open = !page;
  for (const a of document.querySelectorAll("#pages a")) {
    a.classList.toggle("current", a.dataset.page === page);
    a.setAttribute("href", pageUrl(a.dataset.page));
  }
  if (!page) return;
  const p = PAGES[page];
  $("story").textContent = p.story[$("lang").value] || p.story.en;
  $("story").lang = $("lang").value;
  const box = $("controls");
  box.textContent = "";
  for (const [flag, values] of p.controls) {
    const field = $("f-" + flag);
    const label = document.createElement("label");
    label.textContent = flag + " ";
    const select = document.createElement("select");
    select.id = "c-" + flag;
    select.title = modelDefs(p.model).params.find((q) => q.flag === flag)?.help || "";
    const options = [...values.map((v) => [v, v]), [values.join(","), "all: " + values.join(", ")]];
    const current = field.value || field.placeholder;
    if (!options.some(([v]) => v === current)) options.push([current, current]);
    for (const [v, text] of options) {
      const o = document.createElement("option");
      o.value = v;
      o.textContent = text;
      select.append(o);
    }
    select.value = current;
    select.addEventListener("change", () => {
      field.value = select.value;
      onEdit();
    });
    label.append(select);
    box.append(label);
  }
}

// The query's pairs, in order, exactly as given.
function urlPairs() {
  return [...new URLSearchParams(location.search)];
}

function modelDefs(name) {
  return defs.models.find((m) => m.model === name) || defs.models[0];
}

// The glossary of the model's metrics: each key with its unit, its meaning as a tooltip too.
function buildGlossary(model) {
  const list = $("glossary-list");
  list.textContent = "";
  for (const e of modelDefs(model).glossary) {
    const dt = document.createElement("dt");
    dt.textContent = e.key + " (" + e.unit + ")";
    dt.title = e.meaning;
    const dd = document.createElement("dd");
    dd.textContent = e.meaning;
    list.append(dt, dd);
  }
}

function buildFields(model) {
  buildGlossary(model);
  const box = $("fields");
  box.textContent = "";
  for (const p of modelDefs(model).params) {
    const div = document.createElement("div");
    div.className = "field";
    const label = document.createElement("label");
    label.htmlFor = "f-" + p.flag;
    label.textContent = p.flag;
    const input = document.createElement("input");
    input.type = "text";
    input.id = "f-" + p.flag;
    input.name = p.flag;
    // An empty field runs the default, as a bare command does (not the lesson's sweep).
    input.placeholder = p.default;
    input.spellcheck = false;
    const small = document.createElement("small");
    small.textContent =
      p.help + " — " + (p.accepted ? "accepted: " + p.accepted + "; " : "") + "default: " + p.default +
      (p.lesson === p.default ? "" : " (the lesson sweeps " + p.lesson + ")");
    div.append(label, input, small);
    box.append(div);
  }
}

// Puts the URL's values into the form.
function fillForm(pairs) {
  const get = (k) => pairs.find(([n]) => n === k);
  const lesson = get("lesson");
  const model = get("model");
  const name = model && defs.models.some((m) => m.model === model[1]) ? model[1] : "autoscale";
  $("model").value = name;
  buildFields(name);
  for (const [k, v] of pairs) {
    const input = $("f-" + k);
    if (input) input.value = v;
  }
  const text = get("formula-text");
  const editing = name === "autoscale" && !!text;
  $("formula-editor").hidden = name !== "autoscale";
  $("formula-editor").open = editing;
  if (editing) $("formula-text").value = text[1];
  formulaField();
  const format = get("format");
  $("format").value = format && defs.formats.includes(format[1]) ? format[1] : "table";
  $("summary").checked = !!get("summary");
  $("columns").value = get("columns") ? get("columns")[1] : "";
  const lang = get("lang");
  $("lang").value = lang && defs.langs.includes(lang[1]) ? lang[1] : "tr";
  langLinks();
  const shown = get("page");
  showPage(shown && PAGES[shown[1]]?.model === name ? shown[1] : null);
  for (const a of document.querySelectorAll("#lessons a")) {
    a.classList.toggle("current", !!lesson && a.dataset.lesson === lesson[1]);
  }
}

// Points the lesson links at the chosen language (Turkish, the default, adds nothing).
function langLinks() {
  for (const a of document.querySelectorAll("#lessons a")) {
    a.dataset.lesson ??= new URLSearchParams(a.search).get("lesson");
    const lang = $("lang").value === "tr" ? "" : "&lang=" + $("lang").value;
    a.setAttribute("href", "?lesson=" + a.dataset.lesson + lang);
  }
}

// The form's command as pairs: the lesson page (if any), the model, every non-empty field,
// the editor's formula text (when the editor is open), the format, summary and columns, and
// the page's language.
function formPairs() {
  const pairs = page && PAGES[page].model === $("model").value ? [["page", page]] : [];
  if (pairs.length === 0) page = null;
  pairs.push(["model", $("model").value]);
  const editing = editorOpen();
  for (const input of $("fields").querySelectorAll("input")) {
    if (editing && input.name === "formula") continue;
    if (input.value !== "") pairs.push([input.name, input.value]);
  }
  if (editing) pairs.push(["formula-text", $("formula-text").value]);
  if ($("format").value !== "table") pairs.push(["format", $("format").value]);
  if ($("summary").checked) pairs.push(["summary", ""]);
  if ($("columns").value !== "") pairs.push(["columns", $("columns").value]);
  if (page && $("lang").value !== "tr") pairs.push(["lang", $("lang").value]);
  return pairs;
}

function showCommand(pairs) {
  if (pairs.some(([k]) => k === "page")) pairs = pairs.filter(([k]) => !PAGE_KEYS.includes(k));
  const lesson = pairs.find(([k]) => k === "lesson");
  const model = pairs.find(([k]) => k === "model");
  const quote = (v) => (/^[\w.,:=+-]+$/.test(v) ? v : "'" + v.replace(/'/g, "'\\''") + "'");
  let cmd = "capsim";
  const lang = pairs.find(([k]) => k === "lang");
  if (lesson) cmd += " lesson " + quote(lesson[1]) + (lang ? " --lang " + quote(lang[1]) : "");
  else if (model) {
    cmd += " " + quote(model[1]);
    for (const [k, v] of pairs) {
      if (k === "model") continue;
      if (k === "formula-text") cmd += " --formula " + FORMULA_FILE;
      else cmd += " --" + k + (k === "summary" && v === "" ? "" : " " + quote(v));
    }
    if (pairs.some(([k]) => k === "formula-text")) cmd += "   # " + FORMULA_FILE + ": the editor's text";
  }
  $("command").textContent = "$ " + cmd;
}

function setUrl(pairs) {
  // A flag without a value is written bare (summary); an empty formula text keeps its `=`.
  const q = pairs
    .map(([k, v]) => encodeURIComponent(k) + (v === "" && k !== "formula-text" ? "" : "=" + encodeURIComponent(v)))
    .join("&");
  history.replaceState(null, "", q ? "?" + q : location.pathname);
}

async function run(pairs) {
  if (pairs.length === 0) pairs = [["lesson", "all"]];
  document.body.dataset.state = "running";
  showCommand(pairs);
  if (busy) {
    // A long grid is still running: drop it (and the quick commands queued behind it).
    worker.terminate();
    for (const a of asked.values()) a.reject(new Error("the worker restarted"));
    asked.clear();
    await startWorker();
  }
  // A lesson page's own pairs are the page's, not the command's.
  if (pairs.some(([k]) => k === "page")) pairs = pairs.filter(([k]) => !PAGE_KEYS.includes(k));
  busy = true;
  jobId += 1;
  window.capsimProgress = { reports: 0, done: 0, total: 0 };
  $("progress").hidden = true;
  $("progress-text").textContent = "running…";
  worker.postMessage({ id: jobId, pairs });
}

function showProgress(done, total) {
  window.capsimProgress = { reports: window.capsimProgress.reports + 1, done, total };
  if (total < 2) return;
  const bar = $("progress");
  bar.hidden = false;
  bar.max = total;
  bar.value = done;
  $("progress-text").textContent = done.toLocaleString("en") + " / " + total.toLocaleString("en") + " runs";
}

function showResult(m) {
  busy = false;
  const pairs = urlPairs();
  if (editorOpen()) {
    if (m.error) markFormula(m.error);
    evaluationLog(pairs, m);
  } else $("evaluation-log").hidden = true;
  $("output").textContent = m.stdout;
  $("error").textContent = m.error;
  $("error").hidden = m.error === "";
  $("chart-box").innerHTML = m.chart; // an <svg id="chart"> written by the capsim library
  $("progress").hidden = true;
  $("progress-text").textContent = "";
  if (window.capsimTimings.firstOutput === undefined) {
    // Milliseconds since navigation started (performance.now's origin).
    window.capsimTimings.firstOutput = performance.now();
  }
  document.body.dataset.state = "done";
}

function onEdit() {
  const pairs = formPairs();
  if (page) showPage(page, false); // the controls show the fields' values
  setUrl(pairs);
  for (const a of document.querySelectorAll("#lessons a")) a.classList.remove("current");
  run(pairs);
}

// ---------------------------------------------------------------- the formula editor

function editorOpen() {
  return $("model").value === "autoscale" && $("formula-editor").open;
}

// The --formula field gives way to the editor's text while the editor is open.
function formulaField() {
  const input = $("f-formula");
  if (input) {
    input.disabled = editorOpen();
    input.title = input.disabled ? "the formula editor's text is the formula (close the editor to give a file)" : "";
  }
}

// Where a formula error points: the command line's `line L, col C: ` (or a compiler's
// `FILE:L:C: error: `), 1-based, columns in characters. null when it names no place.
function errorPlace(error) {
  const m = /line (\d+), col (\d+): /.exec(error) || /:(\d+):(\d+): error: /.exec(error);
  return m ? { line: Number(m[1]), col: Number(m[2]) } : null;
}

// Marks the place an error names in the text: #formula-mark shows the line with the
// character (or the line's end) in a <mark>, and the text area selects it.
function markFormula(error) {
  const box = $("formula-mark");
  const place = error ? errorPlace(error) : null;
  box.textContent = "";
  box.hidden = !place;
  if (!place) return;
  const text = $("formula-text").value;
  // Lines end at \n, \r\n and a lone \r, as the formula lexer counts them.
  const lines = text.split(/\r\n|\r|\n/);
  const chars = Array.from(lines[place.line - 1] ?? "");
  const at = Math.min(Math.max(place.col - 1, 0), chars.length);
  const head = document.createElement("span");
  head.className = "place";
  head.textContent = `line ${place.line}, col ${place.col}: `;
  const mark = document.createElement("mark");
  mark.textContent = chars[at] ?? " ";
  box.dataset.line = place.line;
  box.dataset.col = place.col;
  box.append(head, chars.slice(0, at).join(""), mark, chars.slice(at + 1).join(""));
  // The same place in the text area (its offsets count UTF-16 units).
  let offset = 0;
  let seen = 0;
  const breaks = /\r\n|\r|\n/g;
  while (seen < place.line - 1 && breaks.exec(text)) {
    seen += 1;
    offset = breaks.lastIndex;
  }
  offset += chars.slice(0, at).join("").length;
  $("formula-text").setSelectionRange(offset, offset + (chars[at] ?? "").length);
}

// The live check: `capsim formula check editor.formula` on the text.
async function checkFormula() {
  const text = $("formula-text").value;
  let m;
  try {
    m = await ask([["formula", "check"], ["formula-text", text]]);
  } catch {
    return; // a newer run restarted the worker; its own check follows
  }
  if ($("formula-text").value !== text) return;
  const line = $("formula-check");
  line.textContent = m.error || "ok: capsim formula check " + FORMULA_FILE + " accepts it";
  line.className = "check " + (m.error ? "bad" : "good");
  markFormula(m.error);
}

// `capsim formula eval editor.formula` with the panel's time, samples and values.
async function evalFormula() {
  const pairs = [["formula", "eval"], ["formula-text", $("formula-text").value]];
  const flags = [];
  const add = (k, v) => {
    pairs.push([k, v]);
    flags.push("--" + k + " '" + v.replace(/'/g, "'\\''") + "'");
  };
  if ($("eval-at").value.trim() !== "") add("at", $("eval-at").value.trim());
  for (const id of ["eval-samples", "eval-sets"]) {
    for (const line of $(id).value.split("\n")) {
      if (line.trim() !== "") add(id === "eval-samples" ? "sample" : "set", line.trim());
    }
  }
  if ($("eval-delay").value.trim() !== "") add("delay", $("eval-delay").value.trim());
  if ($("eval-seed").value.trim() !== "") add("seed", $("eval-seed").value.trim());
  $("eval-command").textContent = "$ capsim formula eval " + FORMULA_FILE + " " + flags.join(" ");
  const m = await ask(pairs);
  $("eval-output").textContent = m.error || m.stdout;
  $("eval-output").classList.toggle("bad", !!m.error);
  if (m.error) markFormula(m.error);
  document.body.dataset.eval = "done";
}

// The evaluation log under the chart: one row per evaluation (round, timestamp, results
// string, error), the records `capsim trace autoscale --formula F --evaluations` prints, one
// JSON line each with Batch's AutoScaleRun fields, for the run the chart and the metrics row
// come from (the same flags, one run). Every record of it comes from this one function. A
// failed evaluation's row marks its line and column in the text when clicked.
async function evaluationLog(pairs, m) {
  const box = $("evaluation-log");
  const body = $("evaluation-table").querySelector("tbody");
  body.textContent = "";
  box.hidden = false;
  document.body.dataset.log = "running";
  const note = $("evaluation-note");
  note.textContent = "";
  const settle = (text) => {
    note.textContent = text;
    document.body.dataset.log = "done";
  };
  if (m.error) return settle("No run, so no evaluations: " + m.error);
  const model = pairs.filter(([k]) => !["page", "lang", "model", "format", "summary", "threads", "columns", "shard"].includes(k));
  let log;
  try {
    log = await ask([["trace", "autoscale"], ...model, ["evaluations", ""]]);
  } catch {
    return;
  }
  if (log.error) return settle("The log is of one run: " + log.error.replace(/^error: a trace is one run: /, ""));
  const records = log.stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
  for (const e of records) {
    const tr = document.createElement("tr");
    for (const cell of [e.round, e.timestamp ?? "—", e.results, e.error ?? "—"]) {
      const td = document.createElement("td");
      td.textContent = cell;
      tr.append(td);
    }
    if (e.error !== null) {
      tr.className = "failed";
      if (errorPlace(e.error)) {
        tr.title = "click: mark its place in the formula";
        tr.addEventListener("click", () => markFormula(e.error));
      }
    }
    body.append(tr);
  }
  const failed = records.filter((e) => e.error !== null).length;
  settle(
    `${records.length} evaluations, ${failed} failed (capsim trace autoscale --formula ${FORMULA_FILE} ` +
    "--evaluations: the run of the chart and the output). A failed evaluation leaves the group as it was."
  );
}

// Loads the examples' names (examples/formulas/, copied beside the page by playground.sh).
async function formulaExamples() {
  let names = [];
  try {
    const r = await fetch("formulas/index.txt");
    if (r.ok) names = (await r.text()).split("\n").filter((n) => n.endsWith(".formula"));
  } catch {}
  // The "formula editor" link opens on the demand-driven example.
  if (names.includes("demand.formula")) {
    fetch("formulas/demand.formula")
      .then((r) => (r.ok ? r.text() : Promise.reject()))
      .then((text) => $("formula-page").setAttribute("href", "?model=autoscale&formula-text=" + encodeURIComponent(text)))
      .catch(() => {});
  }
  const box = $("formula-examples");
  for (const name of names) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = name.replace(/\.formula$/, "");
    b.dataset.file = name;
    b.addEventListener("click", async () => {
      const r = await fetch("formulas/" + name);
      $("formula-text").value = await r.text();
      formulaEdited();
    });
    box.append(b);
  }
}

function formulaEdited() {
  checkFormula();
  onEdit();
}

async function main() {
  try {
    defs = await startWorker();
  } catch (e) {
    $("error").textContent = "error: the WebAssembly module did not load: " + e.message;
    $("error").hidden = false;
    document.body.dataset.state = "done";
    return;
  }
  $("max-runs").textContent = defs.max_runs.toLocaleString("en");
  const pairs = urlPairs();
  fillForm(pairs);
  formulaExamples();
  let typing = 0;
  $("formula-text").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(formulaEdited, 300);
  });
  $("formula-editor").addEventListener("toggle", () => {
    formulaField();
    const open = $("formula-editor").open;
    if (open !== urlPairs().some(([k]) => k === "formula-text")) {
      if (open) checkFormula();
      onEdit();
    }
  });
  $("eval-run").addEventListener("click", evalFormula);
  $("lang").addEventListener("change", () => {
    langLinks();
    showPage(page, false);
    if (page) {
      setUrl(formPairs());
      return;
    }
    const lesson = urlPairs().find(([k]) => k === "lesson");
    if (!lesson) return;
    const next = [["lesson", lesson[1]]];
    if ($("lang").value !== "tr") next.push(["lang", $("lang").value]);
    setUrl(next);
    run(next);
  });
  $("model").addEventListener("change", () => {
    buildFields($("model").value);
    if (page && PAGES[page].model !== $("model").value) showPage(null, false);
    $("formula-editor").hidden = $("model").value !== "autoscale";
    formulaField();
    onEdit();
  });
  let timer = 0;
  $("form").addEventListener("input", (e) => {
    if (e.target.id === "model") return;
    clearTimeout(timer);
    timer = setTimeout(onEdit, 400);
  });
  $("form").addEventListener("submit", (e) => {
    e.preventDefault();
    clearTimeout(timer);
    onEdit();
  });
  run(pairs);
  if (editorOpen()) checkFormula();
}

main();
