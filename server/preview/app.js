// The promptkit preview page. It renders nothing itself: it posts the
// form's values to the server and shows what the server rendered, the
// set's problems beside the lines they are about, and follows the server's
// event stream so an edit on disk shows up by itself.
"use strict";

const $ = (id) => document.getElementById(id);

const state = {
  status: null,      // the last status from /v1/status or the event stream
  templates: [],     // declarations from /v1/templates
  current: null,     // name of the chosen template
  sourcePath: null,  // file shown in the source pane (a problem may point elsewhere)
  values: {},        // template -> variable -> {text, json}: survives reloads
  chat: {},          // template -> its hash when the server said it renders to messages
  renderError: null, // the problem of the last render, if any
  seq: 0,            // drops answers to requests that a newer one replaced
  formKey: "",       // the declaration the form was built from
  refreshing: null,
  again: false,
};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

async function getJSON(url) {
  const r = await fetch(url, { credentials: "same-origin" });
  let body = null;
  try { body = await r.json(); } catch (_) { /* not JSON */ }
  return { ok: r.ok, status: r.status, body, headers: r.headers };
}

function where(p) {
  let s = p.path || "";
  if (p.line) s += ":" + p.line + (p.column ? ":" + p.column : "");
  return s;
}

// ---- status and the set's problems ----

function showStatus() {
  const st = state.status;
  const badge = $("set-status");
  if (!st) return;
  document.body.dataset.generation = String(st.generation);
  document.body.dataset.ok = String(st.ok);
  if (!st.serving) {
    badge.textContent = "no set serving: it does not load";
    badge.className = "badge bad";
  } else {
    const digest = st.digest ? st.digest.replace("sha256:", "").slice(0, 12) : "";
    badge.textContent = "generation " + st.generation + " · " + st.templates + " templates · " + digest;
    badge.className = st.ok ? "badge good" : "badge warn";
  }
  const box = $("set-problems-box");
  const list = $("set-problems");
  list.replaceChildren();
  const problems = st.problems || [];
  box.hidden = problems.length === 0;
  $("set-problems-count").textContent = String(problems.length);
  $("set-problems-note").textContent = st.serving
    ? "The files on disk do not load; the last good set (generation " + st.generation + ") keeps serving."
    : "No set has loaded yet; the server tries again as the files change.";
  for (const p of problems) {
    const li = el("li", "problem-item");
    li.appendChild(el("code", "where", where(p)));
    li.appendChild(el("span", "msg", " " + p.message));
    li.title = p.error;
    li.addEventListener("click", () => {
      if (p.template && state.templates.some((t) => t.name === p.template)) select(p.template, p.path);
      else { state.sourcePath = p.path; loadSource(); }
    });
    list.appendChild(li);
  }
}

// ---- the template list ----

function showTemplates() {
  const ul = $("templates");
  ul.replaceChildren();
  const f = $("filter").value.trim().toLowerCase();
  for (const t of state.templates) {
    if (f && !t.name.toLowerCase().includes(f) && !t.description.toLowerCase().includes(f)) continue;
    const li = el("li", t.name === state.current ? "active" : "");
    li.dataset.name = t.name;
    li.appendChild(el("span", "name", t.name));
    if (problemsOf(t.name).length) li.appendChild(el("span", "dot", "●"));
    if (t.description) li.appendChild(el("span", "tdesc", t.description));
    li.addEventListener("click", () => select(t.name));
    ul.appendChild(li);
  }
}

function problemsOf(name) {
  return ((state.status && state.status.problems) || []).filter((p) => p.template === name);
}

function currentTemplate() {
  return state.templates.find((t) => t.name === state.current) || null;
}

async function select(name, path) {
  state.current = name;
  state.sourcePath = path || null;
  state.renderError = null;
  history.replaceState(null, "", "#" + encodeURIComponent(name));
  showTemplates();
  loadSource();
  if (await showTemplate(true)) render();
}

// ---- the form (form.js builds it from the variables' schemas) ----

// showTemplate shows the chosen template and its form; it keeps the form
// as it is (and the focus) when the declaration did not change, unless
// force. It returns false when another template was chosen meanwhile.
async function showTemplate(force) {
  const t = currentTemplate();
  $("empty").hidden = !!t;
  $("template").hidden = !t;
  if (!t) return false;
  $("t-name").textContent = t.name;
  $("t-path").textContent = t.path;
  $("t-desc").textContent = t.description;
  showContract(t);
  showSamples(t);
  const key = t.name + "\n" + JSON.stringify(t.variables);
  if (!force && key === state.formKey) return true; // keep the fields, and the focus, as they are
  state.formKey = key;
  return buildFields(t);
}

// showContract shows the call the template's entry declares: the model
// settings, the tools, the answer's schema and the cache breakpoint.
function showContract(t) {
  const c = t.contract;
  $("contract").hidden = !c;
  if (!c) return;
  const list = $("contract-list");
  list.replaceChildren();
  const row = (term, text) => {
    list.appendChild(el("dt", "", term));
    list.appendChild(el("dd", "", text));
  };
  if (c.model) {
    const settings = Object.entries(c.model).filter(([k]) => k !== "name").map(([k, v]) => k + " " + JSON.stringify(v));
    row("model", (c.model.name || "(no name)") + (settings.length ? " · " + settings.join(" · ") : ""));
  }
  for (const tool of c.tools || []) row("tool " + tool.function.name, tool.function.description || "");
  if (c.output) row("output", "the answer matches the schema " + JSON.stringify(c.output.name) + (c.output.strict ? " (strict)" : ""));
  if (c.cache) row("cache", "the prefix up to message " + c.cache.message + " is the same for every render" + (c.cache.ttl ? " · ttl " + c.cache.ttl : ""));
  $("contract-json").textContent = JSON.stringify(c, null, 2);
}

// ---- rendering, on the server ----

let timer = null;
function scheduleRender() {
  clearTimeout(timer);
  timer = setTimeout(render, 150);
}

async function render() {
  const t = currentTemplate();
  if (!t) return;
  const vars = body(t);
  if (vars === null) { showStale("input"); return; } // the last render stays, marked
  const seq = ++state.seq;
  const action = state.chat[t.name] === t.hash ? "messages" : "render";
  let r;
  try {
    const tok = $("tokenizer").value;
    r = await fetch("/v1/templates/" + encodeURIComponent(t.name) + ":" + action + (tok ? "?tokens=" + encodeURIComponent(tok) : ""), {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(vars),
    });
  } catch (e) {
    return; // the server is gone; the event stream says so and brings us back
  }
  if (seq !== state.seq) return;
  const meta = "generation " + (r.headers.get("Promptkit-Generation") || "?") +
    " · template " + (r.headers.get("Promptkit-Template-Hash") || "").slice(0, 12);
  showStale(state.status && !state.status.ok ? "set" : null);
  if (r.ok) {
    state.renderError = null;
    // The count of the server's tokenizer, beside bytes (of the messages' text for messages).
    const tokens = r.headers.get("Promptkit-Tokens");
    const counted = tokens === null ? "" : " · " + tokens + " tokens (" + r.headers.get("Promptkit-Tokenizer") + ")";
    if (action === "render") showText(await r.text(), meta, counted);
    else showMessages(await r.json(), meta, counted);
  } else {
    const p = await r.json().catch(() => ({ kind: "other", message: "HTTP " + r.status, error: "HTTP " + r.status }));
    if (p.kind === "chat_template" && action === "render") {
      state.chat[t.name] = t.hash;
      return render();
    }
    if (seq !== state.seq) return;
    state.renderError = p;
    showRenderError(p);
  }
  if (seq === state.seq) showSourceProblems();
}

// showStale marks the result as not rendered from what the form and the
// files say now: "set" when the set on disk does not load (the last good
// set rendered it), "input" when a field is not valid JSON (the last
// render stays); null clears the mark.
function showStale(why) {
  const mark = $("stale");
  mark.hidden = !why;
  $("result").classList.toggle("stale", !!why);
  document.body.dataset.stale = why || "";
  if (why === "set") mark.textContent = "stale: the files do not load; the last good set rendered this";
  if (why === "input") mark.textContent = "stale: a field is not valid JSON; this is the last render";
}

function showText(text, meta, counted) {
  $("result-title").textContent = "Rendered prompt";
  $("render-error").hidden = true;
  $("messages").hidden = true;
  const out = $("output");
  out.hidden = false;
  out.textContent = text;
  $("result-meta").textContent = meta + " · " + new TextEncoder().encode(text).length + " bytes" + counted;
}

function showMessages(msgs, meta, counted) {
  $("result-title").textContent = "Rendered messages";
  $("render-error").hidden = true;
  $("output").hidden = true;
  const box = $("messages");
  box.hidden = false;
  box.replaceChildren();
  for (const m of msgs) {
    const card = el("div", "message role-" + m.role);
    card.appendChild(el("div", "role", m.role));
    const parts = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content || [];
    for (const p of parts) {
      if (p.type === "image_url") {
        const img = document.createElement("img");
        img.className = "thumb";
        img.alt = "image part";
        img.src = p.image_url.url;
        card.appendChild(img);
      } else {
        card.appendChild(el("pre", "output", p.text));
      }
    }
    box.appendChild(card);
  }
  $("result-meta").textContent = meta + " · " + msgs.length + " messages" + counted;
}

function showRenderError(p) {
  const box = $("render-error");
  box.replaceChildren();
  box.appendChild(el("div", "kind", p.kind));
  box.appendChild(el("div", "", (where(p) ? where(p) + ": " : "") + p.message));
  if (p.variables && p.variables.length) box.appendChild(el("div", "vars", "variables: " + p.variables.join(", ")));
  // An undefined value used: the expression as written, what it looked
  // into, and the name it may misspell.
  if (p.expression) box.appendChild(el("div", "expression", "expression: " + p.expression));
  if (p.value) box.appendChild(el("div", "value", "looked into: " + p.value));
  if (p.suggestion) box.appendChild(el("div", "suggestion", "did you mean " + p.suggestion + "?"));
  box.hidden = false;
  $("output").hidden = true;
  $("messages").hidden = true;
  $("result-meta").textContent = "";
}

// ---- the source, with problems beside their lines ----

let sourceText = null;
let sourceShown = null;

async function loadSource() {
  const t = currentTemplate();
  const path = state.sourcePath || (t && t.path);
  const box = $("source-box");
  if (!path) { box.hidden = true; return; }
  const r = await fetch("/v1/files/" + path.split("/").map(encodeURIComponent).join("/"), { credentials: "same-origin" });
  if ((state.sourcePath || (currentTemplate() && currentTemplate().path)) !== path) return;
  sourceText = r.ok ? await r.text() : null;
  sourceShown = path;
  box.hidden = false;
  $("source-path").textContent = path;
  $("source-meta").textContent = r.ok ? "" : "cannot be shown (HTTP " + r.status + ")";
  showSourceProblems();
}

function showSourceProblems() {
  const src = $("source");
  src.replaceChildren();
  if (sourceText === null) return;
  const problems = ((state.status && state.status.problems) || []).filter((p) => p.path === sourceShown);
  const re = state.renderError;
  // A render's own error goes beside its line when it has one; without a
  // line it is shown above the prompt already.
  if (re && re.path === sourceShown && re.line > 0 && !problems.some((p) => p.error === re.error)) problems.push(re);
  const byLine = new Map();
  const unplaced = [];
  for (const p of problems) {
    if (p.line > 0) {
      if (!byLine.has(p.line)) byLine.set(p.line, []);
      byLine.get(p.line).push(p);
    } else unplaced.push(p);
  }
  for (const p of unplaced) src.appendChild(inline(p, 0));
  const lines = sourceText.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  lines.forEach((text, i) => {
    const n = i + 1;
    const row = el("div", byLine.has(n) ? "line has-problem" : "line");
    row.dataset.line = String(n);
    row.appendChild(el("span", "ln", String(n)));
    row.appendChild(el("span", "code", text === "" ? " " : text));
    src.appendChild(row);
    for (const p of byLine.get(n) || []) src.appendChild(inline(p, n));
  });
  // A problem past the end of the file (a file that shrank) still shows.
  for (const [n, ps] of byLine) if (n > lines.length) for (const p of ps) src.appendChild(inline(p, n));
}

function inline(p, line) {
  const d = el("div", "problem-inline");
  d.dataset.line = String(line);
  d.dataset.kind = p.kind;
  const caret = p.column > 0 ? " ".repeat(p.column - 1) + "^ " : "";
  d.appendChild(el("span", "caret", caret));
  d.appendChild(el("span", "", (line ? "line " + line + (p.column ? ", column " + p.column : "") + ": " : "") + p.message + " [" + p.kind + "]"));
  return d;
}

// ---- loading everything, and following the server ----

async function refresh() {
  // One refresh at a time; news during one makes one more afterwards.
  if (state.refreshing) { state.again = true; return state.refreshing; }
  state.refreshing = (async () => {
    do {
      state.again = false;
      try { await refreshOnce(); } catch (e) { console.error(e); }
    } while (state.again);
    state.refreshing = null;
    document.body.dataset.refreshed = String(Date.now());
  })();
  return state.refreshing;
}

async function refreshOnce() {
  const st = await getJSON("/v1/status");
  if (st.ok) state.status = st.body;
  const list = await getJSON("/v1/templates");
  state.templates = list.ok ? list.body.templates : [];
  if (!state.current) {
    const wanted = decodeURIComponent(location.hash.slice(1));
    if (state.templates.some((t) => t.name === wanted)) state.current = wanted;
  }
  if (!state.current && !state.templates.length && state.status && state.status.problems.length) {
    state.sourcePath = state.sourcePath || state.status.problems[0].path;
  }
  await loadFixtures();
  showStatus();
  showTemplates();
  if (await showTemplate(false)) {
    await loadSource();
    await render();
  }
  await loadChanges();
}

function follow() {
  const es = new EventSource("/v1/events");
  es.addEventListener("open", () => {
    $("live").textContent = "live";
    $("live").className = "badge good";
  });
  es.addEventListener("error", () => {
    $("live").textContent = "reconnecting…";
    $("live").className = "badge warn";
  });
  es.addEventListener("status", (ev) => {
    const st = JSON.parse(ev.data);
    const old = state.status;
    state.status = st;
    if (!old || old.generation !== st.generation || old.time !== st.time || old.ok !== st.ok) refresh();
  });
}

$("filter").addEventListener("input", showTemplates);
$("form").addEventListener("submit", (e) => e.preventDefault());
$("sample-pick").addEventListener("change", pickSample);
$("save-btn").addEventListener("click", saveSample);
refresh();
// The tokenizers the server counts with; o200k_base first chosen.
async function loadTokenizers() {
  const sel = $("tokenizer");
  const list = await getJSON("/v1/tokenizers");
  sel.replaceChildren(el("option", "", "no token count"));
  sel.firstChild.value = "";
  for (const name of list.ok ? list.body.tokenizers : []) {
    const o = el("option", "", name);
    o.value = name;
    sel.appendChild(o);
  }
  sel.value = list.ok && list.body.tokenizers.includes("o200k_base") ? "o200k_base" : "";
  sel.addEventListener("change", render);
}

loadTokenizers().catch(console.error).then(follow);
