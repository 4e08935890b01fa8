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
    };
  });
  return workerReady;
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
  const format = get("format");
  $("format").value = format && defs.formats.includes(format[1]) ? format[1] : "table";
  $("summary").checked = !!get("summary");
  const lang = get("lang");
  $("lang").value = lang && defs.langs.includes(lang[1]) ? lang[1] : "tr";
  langLinks();
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

// The form's command as pairs: the model, every non-empty field, the format and summary.
function formPairs() {
  const pairs = [["model", $("model").value]];
  for (const input of $("fields").querySelectorAll("input")) {
    if (input.value !== "") pairs.push([input.name, input.value]);
  }
  if ($("format").value !== "table") pairs.push(["format", $("format").value]);
  if ($("summary").checked) pairs.push(["summary", ""]);
  return pairs;
}

function showCommand(pairs) {
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
      cmd += " --" + k + (k === "summary" && v === "" ? "" : " " + quote(v));
    }
  }
  $("command").textContent = "$ " + cmd;
}

function setUrl(pairs) {
  const q = new URLSearchParams(pairs).toString().replace(/=(?=&|$)/g, "");
  history.replaceState(null, "", q ? "?" + q : location.pathname);
}

async function run(pairs) {
  if (pairs.length === 0) pairs = [["lesson", "all"]];
  document.body.dataset.state = "running";
  showCommand(pairs);
  if (busy) {
    // A long grid is still running: drop it.
    worker.terminate();
    await startWorker();
  }
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
  setUrl(pairs);
  for (const a of document.querySelectorAll("#lessons a")) a.classList.remove("current");
  run(pairs);
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
  $("lang").addEventListener("change", () => {
    langLinks();
    const lesson = urlPairs().find(([k]) => k === "lesson");
    if (!lesson) return;
    const next = [["lesson", lesson[1]]];
    if ($("lang").value !== "tr") next.push(["lang", $("lang").value]);
    setUrl(next);
    run(next);
  });
  $("model").addEventListener("change", () => {
    buildFields($("model").value);
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
}

main();
