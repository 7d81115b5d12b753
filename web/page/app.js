// The playground page: the editor, the model selector, the run, the outcomes table, and the
// selected execution's picture and explanation. All work happens in worker.js (WebAssembly);
// this file only talks to it and draws the answers.
//
// Contract (tests outside the repository use it): index.html#model=MODEL&test=TEXT loads and
// runs TEXT; when the run ends, #verdict has data-holds="true"|"false" and data-model, #outcomes
// holds the table, #graph the SVG of the selected execution and #why its explanation; an error
// in the test puts data-error on #verdict (and the error is shown at its line and column).
"use strict";

const $ = (id) => document.getElementById(id);
const editor = $("editor");
const gutter = $("gutter");
const verdict = $("verdict");

let worker = null;
let nextId = 1;
const pending = new Map();
let runTimer = null;
let current = null; // { test, model, budget, answer, executions, step }

function startWorker() {
  worker = new Worker("worker.js");
  worker.onmessage = (ev) => {
    const p = pending.get(ev.data.id);
    if (p) {
      pending.delete(ev.data.id);
      p(ev.data.answer);
    }
  };
}

function ask(request) {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    worker.postMessage({ id, request });
  });
}

// Ends the worker (a run past its time limit, or Stop) and answers what it had pending.
function restartWorker(message) {
  worker.terminate();
  const waiting = [...pending.values()];
  pending.clear();
  startWorker();
  for (const p of waiting) p({ ok: false, error: { kind: "budget", message } });
}

// --- the editor ---------------------------------------------------------------------------

function renumber(errorLine) {
  const n = editor.value.split("\n").length;
  let s = "";
  for (let i = 1; i <= n; i++) {
    s += i === errorLine ? `<span class="bad">${i}</span>\n` : `${i}\n`;
  }
  gutter.innerHTML = s;
  gutter.scrollTop = editor.scrollTop;
}
editor.addEventListener("input", () => renumber(0));
editor.addEventListener("scroll", () => {
  gutter.scrollTop = editor.scrollTop;
});

function showError(err) {
  const box = $("error");
  box.hidden = false;
  if (err.kind === "parse") {
    const lines = editor.value.split("\n");
    const text = lines[err.line - 1] ?? "";
    const caret = " ".repeat(Math.max(0, err.col - 1)) + "^";
    box.textContent = `line ${err.line}, column ${err.col}: ${err.message}\n${text}\n${caret}`;
    renumber(err.line);
    // Put the caret at the error.
    let offset = 0;
    for (let i = 0; i < err.line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
    offset += Math.max(0, err.col - 1);
    editor.focus();
    editor.setSelectionRange(offset, Math.min(offset + 1, editor.value.length));
  } else {
    box.textContent = err.message;
  }
}

function clearError() {
  $("error").hidden = true;
  $("error").textContent = "";
  renumber(0);
}

// --- links --------------------------------------------------------------------------------

function linkFor(test, model) {
  return `#model=${encodeURIComponent(model)}&test=${encodeURIComponent(test)}`;
}

function fromLink() {
  const h = location.hash.replace(/^#/, "");
  if (!h) return null;
  const params = new URLSearchParams(h.replace(/\+/g, "%2B"));
  const test = params.get("test");
  if (test === null) return null;
  return { test, model: params.get("model") || "ptx-v7.5" };
}

// --- running ------------------------------------------------------------------------------

function setVerdictRunning() {
  for (const a of ["data-holds", "data-condition-holds", "data-model", "data-error", "data-error-kind", "data-reachable", "data-line", "data-col"]) {
    verdict.removeAttribute(a);
  }
  verdict.dataset.state = "running";
  verdict.className = "verdict running";
  verdict.textContent = "Running…";
}

function budget() {
  const n = Number($("budget").value);
  return Number.isInteger(n) && n > 0 ? n : 2000000;
}

function timeLimit() {
  const n = Number($("timelimit").value);
  return n > 0 ? n : 60;
}

async function run() {
  const test = editor.value;
  const model = $("model").value;
  history.replaceState(null, "", linkFor(test, model));
  clearError();
  setVerdictRunning();
  $("outcomes").innerHTML = "";
  $("graph").innerHTML = "";
  $("why").textContent = "";
  $("stepper").hidden = true;
  $("run").disabled = true;
  $("stop").disabled = false;
  const limit = timeLimit();
  runTimer = setTimeout(() => {
    restartWorker(`stopped after ${limit} s (the time limit): the test has too many executions to explore in the browser; shrink it, or run it with the ptxemu command line`);
  }, limit * 1000);
  const answer = await ask({ op: "run", test, model, max_candidates: budget() });
  clearTimeout(runTimer);
  $("run").disabled = false;
  $("stop").disabled = true;
  if (!answer.ok) {
    failed(answer.error, model);
    return;
  }
  current = { test, model, answer };
  drawOutcomes(answer);
  showExplanation(answer.explanation, conditionRowKey(answer));
  // Last: the attributes that say the run has ended.
  verdict.className = "verdict " + (answer.holds ? "holds" : "fails");
  verdict.textContent = `${answer.name}: ${answer.quantifier} ${answer.condition} ${answer.holds ? "holds" : "does not hold"} under ${answer.model}` +
    ` (${answer.candidates} candidate executions, ${answer.allowed} allowed)`;
  verdict.dataset.reachable = String(answer.reachable);
  verdict.dataset.model = answer.model;
  verdict.dataset.state = "done";
  // The contract: data-holds says whether the condition's proposition is reachable (some allowed
  // execution ends in a state satisfying it); data-condition-holds is herd's verdict on the
  // quantified condition (they differ for ~exists and forall tests).
  verdict.dataset.conditionHolds = String(answer.holds);
  verdict.dataset.holds = String(answer.reachable);
}

function failed(err, model) {
  verdict.className = "verdict error";
  verdict.textContent = (err.kind === "parse" ? `Error in the test at line ${err.line}, column ${err.col}: ` : "") + err.message;
  showError(err);
  verdict.dataset.errorKind = err.kind;
  if (err.kind === "parse") {
    verdict.dataset.line = String(err.line);
    verdict.dataset.col = String(err.col);
  }
  verdict.dataset.model = model;
  verdict.dataset.state = "error";
  verdict.dataset.error = err.message;
}

$("stop").addEventListener("click", () => {
  clearTimeout(runTimer);
  restartWorker("stopped by the Stop button");
});

// --- outcomes -----------------------------------------------------------------------------

const CONDITION = "condition";

function conditionRowKey(answer) {
  const row = answer.states.findIndex((s) => s.satisfies);
  return answer.quantifier === "exists" && row >= 0 ? String(row) : CONDITION;
}

function drawOutcomes(answer) {
  const t = document.createElement("table");
  const head = t.insertRow();
  for (const name of [...answer.terms, "executions", "satisfies the condition"]) {
    const th = document.createElement("th");
    th.textContent = name;
    head.appendChild(th);
  }
  answer.states.forEach((s, i) => {
    const tr = t.insertRow();
    tr.dataset.key = String(i);
    tr.dataset.outcome = s.outcome;
    tr.className = "outcome " + (s.satisfies ? "yes" : "no");
    tr.title = "click to see an execution with this outcome, and why it is allowed";
    for (const v of s.values) tr.insertCell().textContent = String(v);
    tr.insertCell().textContent = String(s.count);
    tr.insertCell().textContent = s.satisfies ? "yes" : "no";
    tr.addEventListener("click", () => explainOutcome(s.outcome, String(i)));
  });
  // The condition itself, allowed or not: click it for its explanation (a forbidden one shows
  // the candidate executions and the cycle of the axiom each breaks).
  const tr = t.insertRow();
  tr.dataset.key = CONDITION;
  tr.className = "outcome condition";
  const td = tr.insertCell();
  td.colSpan = answer.terms.length + 2;
  td.textContent = `the condition ${answer.condition}: ${answer.reachable ? "reachable" : "forbidden (no allowed execution)"} — why?`;
  tr.addEventListener("click", () => explainOutcome("", CONDITION));
  const box = $("outcomes");
  box.innerHTML = "";
  box.appendChild(t);
}

function selectRow(key) {
  for (const tr of $("outcomes").querySelectorAll("tr.outcome")) {
    tr.classList.toggle("selected", tr.dataset.key === key);
  }
}

async function explainOutcome(outcome, key) {
  if (!current) return;
  selectRow(key);
  $("why").textContent = "Explaining…";
  const answer = await ask({ op: "explain", test: current.test, model: current.model, outcome, max_candidates: budget() });
  if (!answer.ok) {
    $("why").textContent = answer.error.message;
    return;
  }
  showExplanation(answer.explanation, key);
}

function showExplanation(x, key) {
  selectRow(key);
  current.executions = x.executions;
  current.summary = x.summary;
  current.step = 0;
  if (x.executions.length === 0) {
    $("graph").innerHTML = "";
    $("why").textContent = x.text;
    $("stepper").hidden = true;
    return;
  }
  showStep();
}

function showStep() {
  const ex = current.executions[current.step];
  $("graph").innerHTML = ex.svg;
  const svg = $("graph").querySelector("svg");
  if (svg) {
    svg.removeAttribute("height");
    svg.setAttribute("width", "100%");
  }
  $("why").textContent = current.summary + "\n" + ex.caption + ":\n" + ex.why;
  const n = current.executions.length;
  $("stepper").hidden = n <= 1;
  $("step-caption").textContent = `${ex.caption} (${current.step + 1} of ${n})`;
  $("prev").disabled = current.step === 0;
  $("next").disabled = current.step === n - 1;
}

$("prev").addEventListener("click", () => {
  if (current && current.step > 0) {
    current.step--;
    showStep();
  }
});
$("next").addEventListener("click", () => {
  if (current && current.step < current.executions.length - 1) {
    current.step++;
    showStep();
  }
});

// --- examples, sharing, start -------------------------------------------------------------

async function loadExamples() {
  const answer = await ask({ op: "examples" });
  const sel = $("examples");
  sel.innerHTML = "";
  const none = document.createElement("option");
  none.value = "";
  none.textContent = "(choose a library test)";
  sel.appendChild(none);
  if (!answer.ok) return [];
  const all = [];
  answer.steps.forEach((step, i) => {
    const g = document.createElement("optgroup");
    g.label = `${i + 1}. ${step.title}`;
    for (const t of step.tests) {
      const o = document.createElement("option");
      o.value = String(all.length);
      o.textContent = t.name;
      g.appendChild(o);
      all.push(t);
    }
    sel.appendChild(g);
  });
  sel.addEventListener("change", () => {
    const t = all[Number(sel.value)];
    if (sel.value !== "" && t) {
      editor.value = t.source;
      renumber(0);
      run();
    }
  });
  return all;
}

$("run").addEventListener("click", run);
editor.addEventListener("keydown", (ev) => {
  if ((ev.ctrlKey || ev.metaKey) && ev.key === "Enter") {
    ev.preventDefault();
    run();
  }
});
$("share").addEventListener("click", async () => {
  const url = location.href.split("#")[0] + linkFor(editor.value, $("model").value);
  history.replaceState(null, "", linkFor(editor.value, $("model").value));
  try {
    await navigator.clipboard.writeText(url);
    $("shared").textContent = "link copied";
  } catch (_) {
    $("shared").textContent = "the link is in the address bar";
  }
  $("shared").hidden = false;
  setTimeout(() => ($("shared").hidden = true), 2500);
});
window.addEventListener("hashchange", () => {
  const l = fromLink();
  if (l && (l.test !== editor.value || l.model !== $("model").value)) {
    editor.value = l.test;
    $("model").value = l.model;
    renumber(0);
    run();
  }
});

async function start() {
  startWorker();
  const examples = await loadExamples();
  const l = fromLink();
  if (l) {
    editor.value = l.test;
    if ([...$("model").options].some((o) => o.value === l.model)) {
      $("model").value = l.model;
    } else {
      // An unknown model: run with it anyway, so that the page says why it cannot.
      const o = document.createElement("option");
      o.value = o.textContent = l.model;
      $("model").appendChild(o);
      $("model").value = l.model;
    }
  } else if (examples.length > 0) {
    editor.value = examples[0].source;
  }
  renumber(0);
  run();
}

if ("serviceWorker" in navigator) {
  // Keeps the page's files for use offline; without it the page still works once loaded.
  navigator.serviceWorker.register("sw.js").catch(() => {});
}
start();
