// The playground page: the URL is the state. Which page it is comes from the query:
//   ?page=group|consumers|bulkhead   a lesson page (its start values when given nothing else)
//   ?page=formula                    the formula editor
//   ?lesson=NAME                     a lesson program's printout, byte for byte
//   ?model=NAME&… (trace=, formula=) every flag of the command line
//   nothing                          the start page
// lang=tr|en is the page's language (Turkish, the lessons' own, by default); the formula
// editor and the every-flag page speak the command line's English. Every URL is relative:
// the folder works from any path of any static host. Commands run in a Web Worker.
"use strict";

const $ = (id) => document.getElementById(id);
let defs = null; // {models: [{model, params: [{flag, help, accepted, lesson, default}]}], ...}
let worker = null;
let workerReady = null;
let busy = false;
let pending = null; // a lesson page's latest pairs, run when the one running finishes
let jobId = 0;
// Quick commands (a formula's check or eval, the evaluation log's records), answered by id.
let askId = 0;
const asked = new Map();
// The file a formula-text is, as the command line sees it (capsim::query::FORMULA_TEXT_FILE).
const FORMULA_FILE = "editor.formula";
// For the tests: when the first output appeared, and the progress reports of the last run.
window.capsimTimings = {};
window.capsimProgress = { reports: 0, done: 0, total: 0 };

let view = "start"; // start | lesson | formula | printout | command
let page = null; // the lesson page's name
let lang = "tr"; // the page's words
let chosen = "tr"; // the language asked for (the URL's lang), which the links keep

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
// {stdout, error, chart, warnings}. A worker restarted under it rejects it.
function ask(pairs) {
  askId -= 1; // negative: never a run's jobId
  const id = askId;
  return new Promise((resolve, reject) => {
    asked.set(id, { resolve, reject });
    worker.postMessage({ id, pairs });
  });
}

// ---------------------------------------------------------------- words

// The page's words in each language. A lesson page, the start page and the printouts are
// wholly in the chosen one (the chart's words too: chart-lang); the formula editor and the
// every-flag page are the command line's, in English.
const TEXT = {
  tr: {
    "title": "capsim: kapasite ve dayanıklılık dersleri",
    "home": "capsim",
    "language": "Dil",
    "nav.group": "Grup",
    "nav.consumers": "Tüketiciler",
    "nav.bulkhead": "Bölme",
    "nav.formula": "Formül düzenleyici (İngilizce)",
    "nav.printout": "Ders çıktıları",
    "nav.command": "Tüm bayraklar (İngilizce)",
    "start.title": "capsim: kapasite ve dayanıklılık dersleri",
    "start.intro": "Üç ders tarayıcınızda, capsim komut satırıyla aynı Rust çekirdeğiyle hesaplanır: aynı sayılar, bayt bayt. Bir ders sayfası açın, denetimleri değiştirin; grafik ve sayılar hemen yenilenir. Adres çubuğu her ayarı tutar: bir koşumu paylaşmak için adresi kopyalayın.",
    "group.title": "Otomatik ölçekleme grubu",
    "group.question": "Sağlık denetimi ile ölçekleme politikası aynı grupta birbirini nasıl yanıltır? Eşik ve soğuma.",
    "consumers.title": "Rakip tüketiciler",
    "consumers.question": "Daha çok tüketici bir kuyruğu ne zamana kadar daha hızlı boşaltır? Tüketiciler ve deponun yuvaları.",
    "bulkhead.title": "Bölme (bulkhead)",
    "bulkhead.question": "Yavaşlayan bir servis paylaşılan bir havuzda kimi dışarıda bırakır? Bölme ve kip.",
    "formula.title": "Formül düzenleyici",
    "formula.question": "Grubu bir Azure Batch otomatik ölçekleme formülü yönetir: yazın, denetleyin, çalıştırın (İngilizce).",
    "printout.title": "Ders programlarının çıktıları",
    "printout.question": "Derslerin JavaScript programlarının yazdıkları, capsim'in hesapladığıyla bayt bayt aynı.",
    "printout.note": "Her ders programının çıktısı, olduğu gibi: Türkçesi programların kendi yazdığı gibi, aksansız.",
    "command.title": "Tüm bayraklar",
    "command.question": "Komut satırının her ayarı bir form alanıdır; çıktı capsim'in yazdığının aynısıdır (İngilizce).",
    "lesson.all": "Hepsi (beşi)",
    "lesson.group": "Grup",
    "lesson.group-sweep": "Grup taraması",
    "lesson.group-ledger": "Grup maliyet defteri",
    "lesson.consumers": "Tüketiciler",
    "lesson.bulkhead": "Bölme",
    "group.story": "Bir otomatik ölçekleme grubu 240 dakika boyunca inip çıkan bir talebi izler; 150. ile 190. dakikalar arasında ani bir artış vardır. Sağlık denetimi arada bir sağlam bir örneği bozuk sanar. Eşik, bir örneğin değiştirilmesi için art arda kaç denetimin başarısız olması gerektiğidir; soğuma, grubun ölçeklendikten sonra kaç dakika beklediğidir. Bunları değiştirin; kapasite altı turlara (kırmızı) ve yanlış değiştirmelere bakın.",
    "consumers.story": "N rakip tüketici 5.000 gönderinin olaylarını tek bir kuyruktan alır ve bir turda en çok S olay işleyen bir depoya uygular. Daha çok tüketici kuyruğu ancak deponun S yuvası sınır olana dek daha hızlı boşaltır ve olayları daha sık sırasız uygular. Tüketici ve yuva sayısını değiştirin; verime ve sırası bozulan gönderilere bakın.",
    "bulkhead.story": "Takip ve olay istekleri 32 yuvalık bir havuzu paylaşır. Olay servisi yavaşladığında istekleri yuvalarını daha uzun tutar ve paylaşılan havuzda takip isteklerini dışarıda bırakır; bölme havuzu ikiye ayırır, böylece takibin kendi yuvaları kalır. Bölmeyi ve kipi değiştirin; kimin düşürüldüğüne bakın.",
    "control.threshold": "Eşik (art arda başarısız denetim)",
    "control.cooldown": "Soğuma (dakika)",
    "control.consumers": "Tüketiciler (N)",
    "control.slots": "Deponun yuvaları (S, olay/tur)",
    "control.split": "Bölme (takibin yuvaları, 32'den)",
    "control.mode": "Kip",
    "value.shared": "paylaşımlı",
    "value.healthy": "sağlıklı",
    "value.slowdown": "yavaşlama",
    "less": "azalt",
    "more": "artır",
    "metric.under_capacity_rounds": "Kapasite altı turlar",
    "metric.false_replacements": "Yanlış değiştirmeler",
    "metric.broken_rounds": "Hizmette kalan bozuk örnek-turlar",
    "metric.launched": "Başlatılan örnekler",
    "metric.min_size": "En küçük grup",
    "metric.max_size": "En büyük grup",
    "metric.cost": "Maliyet",
    "metric.throughput": "Verim (olay/tur)",
    "metric.rounds": "Kuyruğun boşaldığı tur",
    "metric.reordered_shipments": "Sırası bozulan gönderiler",
    "metric.wrong_final_state": "Son durumu yanlış gönderiler",
    "metric.tracking_dropped": "Düşürülen takip istekleri",
    "metric.event_dropped": "Düşürülen olay istekleri",
    "metric.tracking_served": "Yanıtlanan takip istekleri",
    "metric.event_served": "Yanıtlanan olay istekleri",
    "metric.idle_slots": "Düşürmelerde boş kalan yuvalar",
    "metric.busy_slot_rounds": "Dolu yuva-turlar",
    "param.threshold": "eşik",
    "param.cooldown": "soğuma",
    "param.consumers": "tüketici",
    "param.slots": "yuva",
    "param.split": "bölme",
    "param.mode": "kip",
    "param.seed": "tohum",
    "metrics.caption": "Bu koşumun sayıları",
    "command.line": "Komut satırında aynısı:",
    "exact": "tam değeri",
    "running": "hesaplanıyor…",
    "runs": "koşum",
  },
  en: {
    "title": "capsim: capacity and resilience lessons",
    "home": "capsim",
    "language": "Language",
    "nav.group": "Group",
    "nav.consumers": "Consumers",
    "nav.bulkhead": "Bulkhead",
    "nav.formula": "Formula editor",
    "nav.printout": "Lesson printouts",
    "nav.command": "Every flag",
    "start.title": "capsim: capacity and resilience lessons",
    "start.intro": "Three lessons computed in your browser by the same Rust core as the capsim command line: the same numbers, byte for byte. Open a lesson page and change its controls; the chart and the numbers follow at once. The address bar holds every setting: copy it to share a run.",
    "group.title": "The auto-scaling group",
    "group.question": "How do a health check and a scaling policy in one group fool each other? Threshold and cooldown.",
    "consumers.title": "Competing consumers",
    "consumers.question": "Up to when do more consumers drain a queue faster? Consumers and the store's slots.",
    "bulkhead.title": "The bulkhead",
    "bulkhead.question": "Whom does a slow service crowd out of a shared pool? Split and mode.",
    "formula.title": "Formula editor",
    "formula.question": "An Azure Batch autoscale formula drives the group: write it, check it, run it.",
    "printout.title": "The lessons' programs' printouts",
    "printout.question": "What the lessons' JavaScript programs print, byte for byte as capsim computes it.",
    "printout.note": "Each lesson program's printout as it is (in Turkish, the lessons' own, as the programs write it; in English, a translation).",
    "command.title": "Every flag",
    "command.question": "Every setting of the command line is a field; the output is exactly what capsim prints.",
    "lesson.all": "All five",
    "lesson.group": "Group",
    "lesson.group-sweep": "Group sweep",
    "lesson.group-ledger": "Group ledger",
    "lesson.consumers": "Consumers",
    "lesson.bulkhead": "Bulkhead",
    "group.story": "An auto-scaling group follows a demand that rises and falls over 240 minutes, with a surge from minute 150 to 190, while its health check now and then takes a healthy instance for a broken one. The threshold is how many failed checks in a row replace an instance; the cooldown is how many minutes the group waits after it scales. Change them and watch the rounds under capacity (red) and the false replacements.",
    "consumers.story": "N competing consumers take the events of 5,000 shipments from one queue and apply them to a store that takes at most S events a round. More consumers drain the queue sooner only until the store's S slots are the limit, and they apply more events out of order. Change the consumers and the slots and watch the throughput and the reordered shipments.",
    "bulkhead.story": "Tracking and event requests share a pool of 32 slots. When the event service slows down, its requests hold their slots longer and, in a shared pool, crowd out the tracking requests; a bulkhead splits the pool so that tracking keeps its own slots. Change the split and the mode and watch who is dropped.",
    "control.threshold": "Threshold (failed checks in a row)",
    "control.cooldown": "Cooldown (minutes)",
    "control.consumers": "Consumers (N)",
    "control.slots": "Store slots (S, events per round)",
    "control.split": "Split (tracking's slots of 32)",
    "control.mode": "Mode",
    "value.shared": "shared",
    "value.healthy": "healthy",
    "value.slowdown": "slowdown",
    "less": "less",
    "more": "more",
    "metric.under_capacity_rounds": "Rounds under capacity",
    "metric.false_replacements": "False replacements",
    "metric.broken_rounds": "Broken instance-rounds in service",
    "metric.launched": "Instances launched",
    "metric.min_size": "Smallest group",
    "metric.max_size": "Largest group",
    "metric.cost": "Cost",
    "metric.throughput": "Throughput (events/round)",
    "metric.rounds": "Rounds to drain the queue",
    "metric.reordered_shipments": "Shipments reordered",
    "metric.wrong_final_state": "Shipments in a wrong final state",
    "metric.tracking_dropped": "Tracking requests dropped",
    "metric.event_dropped": "Event requests dropped",
    "metric.tracking_served": "Tracking requests served",
    "metric.event_served": "Event requests served",
    "metric.idle_slots": "Slots idle at the drops",
    "metric.busy_slot_rounds": "Busy slot-rounds",
    "param.threshold": "threshold",
    "param.cooldown": "cooldown",
    "param.consumers": "consumers",
    "param.slots": "slots",
    "param.split": "split",
    "param.mode": "mode",
    "param.seed": "seed",
    "metrics.caption": "This run's numbers",
    "command.line": "The same on the command line:",
    "exact": "exact value",
    "running": "running…",
    "runs": "runs",
  },
};

// The page's word for `key` in its language.
function t(key) {
  return TEXT[lang][key] ?? TEXT.en[key] ?? key;
}

// A value as a page shows it: a lesson word in the page's language, else as it is.
function word(v) {
  return TEXT[lang]["value." + v] ?? String(v);
}

// A number as the page shows it: the command line's table text (the library rounds it:
// capsim::output::readable, 4 significant digits), in English as it is; in Turkish, which
// the library does not write, with the language's marks and nothing else changed: a decimal
// comma, and the whole part's digits grouped in threes with a dot (0.389 → 0,389; 89972 →
// 89.972; 1234.5 → 1.234,5; 1.5e-7 → 1,5e-7). Any other text (a word, NaN) as it is.
function localized(text) {
  const m = /^(-?)(\d+)(?:\.(\d+))?(e[+-]?\d+)?$/.exec(text);
  if (lang !== "tr" || !m) return text;
  const [, sign, whole, fraction, exponent] = m;
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ".");
  return sign + grouped + (fraction !== undefined ? "," + fraction : "") + (exponent ?? "");
}

// ---------------------------------------------------------------- the lesson pages

const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => String(a + i));

// Each lesson page: the model, the controls that matter (each a stepper and slider over its
// values, or a choice of two) and their start values. The story's metrics are the command
// line's table's: the model's headline metrics (capsim::query::headline, the lesson's own
// columns) that the rows hold, in row order, as `capsim MODEL` prints them without
// --columns; the page adds none and drops none.
const PAGES = {
  group: {
    model: "autoscale",
    controls: [
      { flag: "threshold", values: range(1, 10), start: "2" },
      { flag: "cooldown", values: range(0, 20), start: "0" },
    ],
  },
  consumers: {
    model: "consumers",
    controls: [
      { flag: "consumers", values: range(1, 16), start: "1" },
      { flag: "slots", values: range(1, 8), start: "2" },
    ],
  },
  bulkhead: {
    model: "bulkhead",
    controls: [
      { flag: "split", values: ["shared", ...range(1, 31)], start: "shared" },
      { flag: "mode", values: ["healthy", "slowdown"], start: "slowdown", choice: true },
    ],
  },
};

// The page's own pairs (not the command's): which page, and its language.
const PAGE_KEYS = ["page", "lang"];

// The query's pairs, in order, exactly as given.
function urlPairs() {
  return [...new URLSearchParams(location.search)];
}

function get(pairs, key) {
  const p = pairs.find(([k]) => k === key);
  return p ? p[1] : undefined;
}

// Which page the pairs are, and the lesson page's name.
function route(pairs) {
  const named = get(pairs, "page");
  if (PAGES[named]) return ["lesson", named];
  if (named === "formula" || get(pairs, "formula-text") !== undefined && get(pairs, "model") === "autoscale") {
    return ["formula", null];
  }
  if (get(pairs, "lesson") !== undefined) return ["printout", null];
  if (pairs.some(([k]) => ["model", "trace", "formula"].includes(k))) return ["command", null];
  return ["start", null];
}

// The lesson page's values: each control's from the URL, else its start value; and the
// URL's other pairs, which are the command's too (an extra flag, a list for a sweep).
function lessonValues(name, pairs) {
  const p = PAGES[name];
  const values = p.controls.map((c) => [c.flag, get(pairs, c.flag) ?? c.start]);
  const own = new Set([...PAGE_KEYS, "model", "format", ...p.controls.map((c) => c.flag)]);
  return { values, extra: pairs.filter(([k]) => !own.has(k)) };
}

// The lesson page's command: the model, its controls' values, the URL's other flags; the
// rows as JSON (the page's table), the chart drawn at its box's width in the page's language.
function lessonCommand(name, pairs) {
  const { values, extra } = lessonValues(name, pairs);
  return [["model", PAGES[name].model], ...values, ...extra];
}

// The page's URL for the lesson page's values (only what is set, the language if English).
function lessonUrl(name, values, extra) {
  const pairs = [["page", name], ...values, ...extra];
  if (lang !== "tr") pairs.push(["lang", lang]);
  return pairs;
}

// Builds the lesson page `name`: its title, story and controls, each bound to the URL.
function showLesson(name) {
  const p = PAGES[name];
  $("page-title").textContent = t(name + ".title");
  $("story").textContent = t(name + ".story");
  const box = $("controls");
  box.textContent = "";
  const { values } = lessonValues(name, urlPairs());
  for (const c of p.controls) {
    const current = values.find(([k]) => k === c.flag)[1];
    const group = document.createElement("div");
    group.className = "control";
    const label = document.createElement("span");
    label.className = "label";
    label.id = "l-" + c.flag;
    label.textContent = t("control." + c.flag);
    label.title = "--" + c.flag;
    group.append(label);
    if (c.choice) {
      const row = document.createElement("div");
      row.className = "choice";
      row.setAttribute("role", "radiogroup");
      row.setAttribute("aria-labelledby", label.id);
      for (const v of c.values) {
        const b = document.createElement("button");
        b.type = "button";
        b.dataset.value = v;
        b.textContent = word(v);
        b.setAttribute("role", "radio");
        b.setAttribute("aria-checked", String(v === current));
        b.addEventListener("click", () => setControl(c.flag, v));
        row.append(b);
      }
      row.id = "c-" + c.flag;
      group.append(row);
    } else {
      const row = document.createElement("div");
      row.className = "stepper";
      const at = Math.max(0, c.values.indexOf(current));
      const less = document.createElement("button");
      less.type = "button";
      less.textContent = "−";
      less.setAttribute("aria-label", t("less"));
      less.className = "step";
      less.id = "less-" + c.flag;
      const out = document.createElement("output");
      out.id = "v-" + c.flag;
      out.textContent = current.split(",").map(word).join(", ");
      const more = document.createElement("button");
      more.type = "button";
      more.textContent = "+";
      more.setAttribute("aria-label", t("more"));
      more.className = "step";
      more.id = "more-" + c.flag;
      const slider = document.createElement("input");
      slider.type = "range";
      slider.id = "c-" + c.flag;
      slider.min = "0";
      slider.max = String(c.values.length - 1);
      slider.value = String(at);
      slider.setAttribute("aria-labelledby", label.id);
      slider.setAttribute("aria-valuetext", out.textContent);
      const go = (i) => setControl(c.flag, c.values[Math.min(Math.max(i, 0), c.values.length - 1)]);
      less.addEventListener("click", () => go(Number(slider.value) - 1));
      more.addEventListener("click", () => go(Number(slider.value) + 1));
      slider.addEventListener("input", () => go(Number(slider.value)));
      less.disabled = at === 0 && c.values.includes(current);
      more.disabled = at === c.values.length - 1;
      row.append(less, out, more, slider);
      group.append(row);
    }
    box.append(group);
  }
}

// A control moved: the URL takes the value and the page reruns at once.
function setControl(flag, value) {
  const pairs = urlPairs();
  const { values, extra } = lessonValues(page, pairs);
  const next = values.map(([k, v]) => [k, k === flag ? value : v]);
  setUrl(lessonUrl(page, next, extra));
  showLesson(page);
  runLesson();
}

function runLesson() {
  run([...lessonCommand(page, urlPairs()), ["format", "json"], ...chartPairs()]);
}

// The chart's pairs: drawn at its box's width (so that its text shows at its size) in the
// page's language.
let drawnFor = 0; // the width the last chart was asked for
function chartPairs() {
  const width = Math.min(3840, Math.max(280, Math.floor($("chart-box").clientWidth || 960)));
  drawnFor = width;
  const pairs = [["chart-width", String(width)]];
  if (view === "lesson" && lang !== "en") pairs.push(["chart-lang", lang]);
  return pairs;
}

// The lesson page's table: the story's metrics of each run (the table's headline metrics,
// see PAGES), each cell the command line's table text (`localized` in Turkish), the exact
// value in its tooltip. `rows`: each run's cells, [key, exact, shown] in row order
// (capsim::query::readable_rows). One run: a row per metric. Several: a row per run, the
// parameters that differ first (cards, one per run, where the table would not fit).
function showMetrics(rows) {
  const box = $("metrics");
  box.textContent = "";
  if (rows.length === 0) return;
  const model = modelDefs(PAGES[page].model);
  const runs = rows.map((cells) => Object.fromEntries(cells.map(([k, exact, shown]) => [k, { exact, shown }])));
  const keys = rows[0].map(([k]) => k).filter((k) => model.metrics.includes(k) && model.headline.includes(k));
  const varying = rows[0]
    .map(([k]) => k)
    .filter((k) => !model.metrics.includes(k) && runs.some((r) => r[k]?.exact !== runs[0][k].exact));
  const cell = (tag, text, title) => {
    const c = document.createElement(tag);
    c.textContent = text;
    if (title) c.title = title;
    return c;
  };
  const valueCell = (k, v) => {
    const td = cell("td", localized(v.shown), `${k} = ${v.exact} (${t("exact")})`);
    td.dataset.key = k;
    td.dataset.exact = v.exact;
    td.dataset.shown = v.shown;
    return td;
  };
  // A parameter's value as the command line writes it (a seed is no quantity to group).
  const param = (r, k) => word(r[k].shown);
  const head = (k) => cell("th", t("metric." + k), lang === "en" ? meaning(k) : k);
  const table = document.createElement("table");
  table.id = "metrics-table";
  const caption = document.createElement("caption");
  caption.textContent = t("metrics.caption");
  table.append(caption);
  if (runs.length === 1) {
    const body = document.createElement("tbody");
    for (const k of keys) {
      const tr = document.createElement("tr");
      const th = head(k);
      th.scope = "row";
      tr.append(th, valueCell(k, runs[0][k]));
      body.append(tr);
    }
    table.append(body);
    box.append(table);
    return;
  }
  table.classList.add("runs");
  const thead = document.createElement("thead");
  const htr = document.createElement("tr");
  for (const k of varying) htr.append(cell("th", t("param." + k)));
  for (const k of keys) htr.append(head(k));
  thead.append(htr);
  const body = document.createElement("tbody");
  for (const r of runs) {
    const tr = document.createElement("tr");
    for (const k of varying) tr.append(cell("th", param(r, k)));
    for (const k of keys) tr.append(valueCell(k, r[k]));
    body.append(tr);
  }
  table.append(thead, body);
  box.append(table);
  if (table.scrollWidth <= box.clientWidth + 1) return;
  // Too wide: a card per run, each a row per metric.
  box.textContent = "";
  for (const r of runs) {
    const card = document.createElement("table");
    card.className = "card";
    const cap = document.createElement("caption");
    cap.textContent = varying.map((k) => t("param." + k) + " " + param(r, k)).join(", ");
    card.append(cap);
    const cbody = document.createElement("tbody");
    for (const k of keys) {
      const tr = document.createElement("tr");
      const th = head(k);
      th.scope = "row";
      tr.append(th, valueCell(k, r[k]));
      cbody.append(tr);
    }
    card.append(cbody);
    box.append(card);
  }
}

// The glossary's meaning of metric `key` of the page's model.
function meaning(key) {
  return modelDefs(PAGES[page].model).glossary.find((e) => e.key === key)?.meaning || "";
}

function modelDefs(name) {
  return defs.models.find((m) => m.model === name) || defs.models[0];
}

// ---------------------------------------------------------------- the every-flag page

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
  const model = get(pairs, "model");
  const name = model && defs.models.some((m) => m.model === model) ? model : "autoscale";
  $("model").value = name;
  buildFields(name);
  for (const [k, v] of pairs) {
    const input = $("f-" + k);
    if (input) input.value = v;
  }
  const format = get(pairs, "format");
  $("format").value = format && defs.formats.includes(format) ? format : "table";
  $("summary").checked = get(pairs, "summary") !== undefined;
  $("columns").value = get(pairs, "columns") ?? "";
}

// The form's command as pairs: the model, every non-empty field, the format, summary and
// columns.
function formPairs() {
  const pairs = [["model", $("model").value]];
  for (const input of $("fields").querySelectorAll("input")) {
    if (input.value !== "") pairs.push([input.name, input.value]);
  }
  if ($("format").value !== "table") pairs.push(["format", $("format").value]);
  if ($("summary").checked) pairs.push(["summary", ""]);
  if ($("columns").value !== "") pairs.push(["columns", $("columns").value]);
  return pairs;
}

// The command line of `pairs` (the page's and the chart's own pairs left out).
function commandLine(pairs) {
  pairs = pairs.filter(([k]) => !PAGE_KEYS.includes(k) && !k.startsWith("chart-"));
  const quote = (v) => (/^[\w.,:=+-]+$/.test(v) ? v : "'" + v.replace(/'/g, "'\\''") + "'");
  const lesson = get(pairs, "lesson");
  const model = get(pairs, "model");
  let cmd = "capsim";
  if (lesson !== undefined) {
    cmd += " lesson " + quote(lesson) + (lang !== "tr" ? " --lang " + lang : "");
  } else if (model !== undefined) {
    cmd += " " + quote(model);
    for (const [k, v] of pairs) {
      if (k === "model") continue;
      if (k === "formula-text") cmd += " --formula " + FORMULA_FILE;
      else cmd += " --" + k + (k === "summary" && v === "" ? "" : " " + quote(v));
    }
    if (pairs.some(([k]) => k === "formula-text")) cmd += "   # " + FORMULA_FILE + ": the editor's text";
  } else {
    cmd += " " + pairs.map(([k, v]) => (v === "" ? "--" + k : k + " " + quote(v))).join(" ");
  }
  return "$ " + cmd;
}

// Shows the command line, each flag with its value unbroken (a line breaks between flags, never
// after a flag's dashes); its text is the command as it is.
function showCommandLine(cmd) {
  const box = $("command");
  box.textContent = "";
  for (const piece of cmd.split(/(?= --| {3}# )/)) {
    const span = document.createElement("span");
    // A flag and a short value stay on one line; a long one wraps where it must.
    span.className = piece.length <= 40 ? "flag" : "long";
    span.textContent = piece;
    box.append(span);
  }
}

function setUrl(pairs) {
  // A flag without a value is written bare (summary); an empty formula text keeps its `=`.
  const q = pairs
    .map(([k, v]) => encodeURIComponent(k) + (v === "" && k !== "formula-text" ? "" : "=" + encodeURIComponent(v)))
    .join("&");
  history.replaceState(null, "", q ? "?" + q : location.pathname);
}

// Runs the command `pairs` (the page's own pairs left out). A lesson page's run waits for
// the one running (the controls move faster than a run); any other new command stops a
// running one.
async function run(pairs) {
  document.body.dataset.state = "running";
  if (busy && view === "lesson") {
    pending = pairs;
    return;
  }
  if (busy) {
    // A long grid is still running: drop it (and the quick commands queued behind it).
    worker.terminate();
    for (const a of asked.values()) a.reject(new Error("the worker restarted"));
    asked.clear();
    await startWorker();
  }
  busy = true;
  jobId += 1;
  window.capsimProgress = { reports: 0, done: 0, total: 0 };
  $("progress").hidden = true;
  $("progress-text").textContent = t("running");
  showCommandLine(commandLine(pairs.filter(([k]) => !(view === "lesson" && k === "format"))));
  $("command").dataset.say = view === "lesson" ? t("command.line") + " " : "";
  // A lesson page's table shows each cell as the command line's table prints it: the
  // worker reads them from the run's JSON rows (capsim::query::readable_rows).
  worker.postMessage({ id: jobId, pairs, readable: view === "lesson" });
}

function showProgress(done, total) {
  window.capsimProgress = { reports: window.capsimProgress.reports + 1, done, total };
  if (total < 2) return;
  const bar = $("progress");
  bar.hidden = false;
  bar.max = total;
  bar.value = done;
  $("progress-text").textContent = localized(String(done)) + " / " + localized(String(total)) + " " + t("runs");
}

function showResult(m) {
  busy = false;
  if (pending) {
    const next = pending;
    pending = null;
    run(next);
    return;
  }
  let error = m.error;
  if (view === "formula") {
    // A formula's located error is shown once: the live check's line, its place marked.
    if (error && errorPlace(error)) error = "";
    evaluationLog(urlPairs(), m);
  }
  if (view === "lesson") {
    if (m.error === "" && m.cells.error) error = m.cells.error;
    if (error === "") showMetrics(m.cells.rows);
    else $("metrics").textContent = "";
  } else {
    $("output").textContent = m.stdout;
  }
  $("error").textContent = error;
  $("error").hidden = error === "";
  // The formula's warnings, as the command line writes them to stderr before its output;
  // the formula editor shows them under its check instead (once).
  const warnings = view === "formula" ? [] : m.warnings;
  $("warnings").textContent = warnings.join("\n");
  $("warnings").hidden = warnings.length === 0;
  $("chart-box").innerHTML = m.chart; // an <svg id="chart"> written by the capsim library
  window.capsimChart = m.chart; // its bytes, for the tests
  $("progress").hidden = true;
  $("progress-text").textContent = "";
  if (window.capsimTimings.firstOutput === undefined) {
    // Milliseconds since navigation started (performance.now's origin).
    window.capsimTimings.firstOutput = performance.now();
  }
  document.body.dataset.state = "done";
}

// The every-flag page's form changed: the URL and the run follow.
function onEdit() {
  const pairs = formPairs();
  setUrl(pairs);
  run([...pairs, ...chartPairs()]);
}

// ---------------------------------------------------------------- the formula editor

// Where a formula error points: the command line's `line L, col C: ` (or a compiler's
// `FILE:L:C: error: `), 1-based, columns in characters. null when it names no place.
function errorPlace(error) {
  const m = /line (\d+), col (\d+): /.exec(error) || /:(\d+):(\d+): error: /.exec(error);
  return m ? { line: Number(m[1]), col: Number(m[2]) } : null;
}

// Where a formula warning points: the command line's `FILE:L:C: warning: `, 1-based.
function warningPlace(warning) {
  const m = /:(\d+):(\d+): warning: /.exec(warning);
  return m ? { line: Number(m[1]), col: Number(m[2]) } : null;
}

// The text's line at `place` with its character (or the line's end) in a <mark>, after
// `L:C │ `: the nodes to put in a box. Lines end at \n, \r\n and a lone \r, as the formula
// lexer counts them; columns count characters.
function placeNodes(place) {
  const lines = $("formula-text").value.split(/\r\n|\r|\n/);
  const chars = Array.from(lines[place.line - 1] ?? "");
  const at = Math.min(Math.max(place.col - 1, 0), chars.length);
  const head = document.createElement("span");
  head.className = "place";
  head.textContent = `${place.line}:${place.col} │ `;
  const mark = document.createElement("mark");
  mark.textContent = chars[at] ?? " ";
  return [head, chars.slice(0, at).join(""), mark, chars.slice(at + 1).join("")];
}

// Selects the character at `place` in the text area (its offsets count UTF-16 units).
function selectPlace(place) {
  const text = $("formula-text").value;
  const lines = text.split(/\r\n|\r|\n/);
  const chars = Array.from(lines[place.line - 1] ?? "");
  const at = Math.min(Math.max(place.col - 1, 0), chars.length);
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

// Marks the place an error names in the text: #formula-mark shows the line with the
// character (or the line's end) in a <mark> (the message itself is the check's line, once),
// and the text area selects it.
function markFormula(error) {
  const box = $("formula-mark");
  const place = error ? errorPlace(error) : null;
  box.textContent = "";
  box.hidden = !place;
  if (!place) return;
  box.dataset.line = place.line;
  box.dataset.col = place.col;
  box.append(...placeNodes(place));
  selectPlace(place);
}

// The check's warnings under its line, each once: the command line's line (`editor.formula:
// L:C: warning: …`), the text's line with its column marked under it; a click selects the
// place in the text area.
function showWarnings(warnings) {
  const list = $("formula-warnings");
  list.textContent = "";
  list.hidden = warnings.length === 0;
  for (const w of warnings) {
    const li = document.createElement("li");
    li.className = "warning";
    const message = document.createElement("div");
    message.className = "message";
    message.textContent = w;
    li.append(message);
    const place = warningPlace(w);
    if (place) {
      const line = document.createElement("pre");
      line.append(...placeNodes(place));
      li.dataset.line = place.line;
      li.dataset.col = place.col;
      li.title = "click: mark its place in the formula";
      li.append(line);
      li.addEventListener("click", () => selectPlace(place));
    }
    list.append(li);
  }
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
  const n = m.warnings.length;
  const with_ = n === 0 ? "" : `, with ${n} warning${n === 1 ? "" : "s"}:`;
  line.textContent = m.error || "ok: capsim formula check " + FORMULA_FILE + " accepts it" + with_;
  line.className = "check " + (m.error ? "bad" : n ? "warn" : "good");
  markFormula(m.error);
  showWarnings(m.warnings);
  document.body.dataset.check = "done";
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
  // The run's error is shown once, above; the log only says there is none.
  if (m.error) return settle("No run, so no evaluations.");
  const model = formulaCommand(pairs).filter(([k]) => !["model", "format", "summary", "threads", "columns", "shard"].includes(k));
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
  // The command line writes the formula's warnings before the records; the page shows them
  // once, under the check.
  const n = log.warnings.length;
  const warned = n === 0 ? "" : ` Its ${n === 1 ? "warning" : n + " warnings"} (written before the records) ${n === 1 ? "is" : "are"} under the check above.`;
  settle(
    `${records.length} evaluations, ${failed} failed (capsim trace autoscale --formula ${FORMULA_FILE} ` +
    "--evaluations: the run of the chart and the output). A failed evaluation leaves the group as it was." + warned
  );
}

// The formula page's command: autoscale with the editor's text and the URL's other flags.
function formulaCommand(pairs) {
  const rest = pairs.filter(([k]) => !["page", "lang", "model", "formula-text"].includes(k));
  return [["model", "autoscale"], ...rest, ["formula-text", $("formula-text").value]];
}

// The formula page's URL: the page, the URL's flags, the text.
function formulaUrl(pairs) {
  const rest = pairs.filter(([k]) => !["page", "model", "formula-text"].includes(k));
  return [["page", "formula"], ...rest, ["formula-text", $("formula-text").value]];
}

// Loads the examples' names (examples/formulas/, copied beside the page by playground.sh);
// resolves to them.
async function formulaExamples() {
  let names = [];
  try {
    const r = await fetch("formulas/index.txt");
    if (r.ok) names = (await r.text()).split("\n").filter((n) => n.endsWith(".formula"));
  } catch {}
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
  return names;
}

function formulaEdited() {
  checkFormula();
  setUrl(formulaUrl(urlPairs()));
  runFormula();
}

function runFormula() {
  run([...formulaCommand(urlPairs()), ...chartPairs()]);
}

async function showFormula(pairs) {
  const names = await formulaExamples();
  let text = get(pairs, "formula-text");
  if (text === undefined && names.includes("demand.formula")) {
    // The bare page opens on the demand-driven example.
    const r = await fetch("formulas/demand.formula");
    text = r.ok ? await r.text() : "";
  }
  $("formula-text").value = text ?? "";
  let typing = 0;
  $("formula-text").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(formulaEdited, 300);
  });
  $("eval-run").addEventListener("click", evalFormula);
  checkFormula();
  runFormula();
}

// ---------------------------------------------------------------- the page

// Puts the page's words in its language: every [data-text] element, the title, the links
// (which keep the language), the switch.
function applyWords() {
  const english = view === "formula" || view === "command";
  document.documentElement.lang = english ? "en" : lang;
  document.title = t("title");
  for (const el of document.querySelectorAll("[data-text]")) el.textContent = t(el.dataset.text);
  for (const a of document.querySelectorAll("a[href^='?']")) {
    a.dataset.href ??= a.getAttribute("href");
    const q = a.dataset.href === "?" ? "" : a.dataset.href.slice(1);
    const pairs = q === "" ? [] : [...new URLSearchParams(q)];
    if (chosen !== "tr") pairs.push(["lang", chosen]);
    const href = pairs.map(([k, v]) => k + "=" + encodeURIComponent(v)).join("&");
    a.setAttribute("href", "?" + href);
  }
  for (const a of document.querySelectorAll("#lessons a")) {
    a.textContent = t("lesson." + a.dataset.lesson);
  }
  $("lang").value = chosen;
  // The formula editor and the every-flag page are in the command line's English.
  $("lang").closest("label").hidden = english;
  const current = view === "lesson" ? page : view;
  for (const a of document.querySelectorAll("#top a")) {
    a.classList.toggle("current", a.dataset.page === current);
  }
}

function show(pairs) {
  [view, page] = route(pairs);
  const asked = get(pairs, "lang");
  chosen = asked && TEXT[asked] ? asked : "tr";
  // The formula editor and the every-flag page are the command line's, in English.
  lang = view === "formula" || view === "command" ? "en" : chosen;
  document.body.className = "page-" + view;
  applyWords();
  if (view === "start") {
    document.body.dataset.state = "done";
    return;
  }
  if (view === "lesson") {
    showLesson(page);
    runLesson();
    return;
  }
  if (view === "formula") {
    showFormula(pairs);
    return;
  }
  if (view === "printout") {
    const lesson = get(pairs, "lesson");
    for (const a of document.querySelectorAll("#lessons a")) {
      a.classList.toggle("current", a.dataset.lesson === lesson);
    }
    run([["lesson", lesson], ...(chosen !== "tr" ? [["lang", chosen]] : [])]);
    return;
  }
  // The every-flag page: the command's pairs (a link from an English page adds its lang).
  pairs = pairs.filter(([k]) => !PAGE_KEYS.includes(k));
  fillForm(pairs);
  $("advanced").open = true;
  const model = get(pairs, "model") !== undefined;
  run(model ? [...pairs, ...chartPairs()] : pairs);
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
  $("lang").addEventListener("change", () => {
    const pairs = urlPairs().filter(([k]) => k !== "lang");
    if ($("lang").value !== "tr") pairs.push(["lang", $("lang").value]);
    setUrl(pairs);
    show(pairs);
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
  // A chart is drawn for its box's width: a new width (a phone turned) draws it again.
  let resizing = 0;
  addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => {
      const w = Math.floor($("chart-box").clientWidth);
      if (drawnFor === 0 || Math.abs(w - drawnFor) < 8) return;
      if (view === "lesson") runLesson();
      else if (view === "formula") runFormula();
      else if (view === "command" && get(urlPairs(), "model") !== undefined) onEdit();
    }, 250);
  });
  show(urlPairs());
}

main();
