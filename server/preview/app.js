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

function select(name, path) {
  state.current = name;
  state.sourcePath = path || null;
  state.renderError = null;
  history.replaceState(null, "", "#" + encodeURIComponent(name));
  showTemplates();
  showTemplate(true);
  loadSource();
  render();
}

// ---- the form ----

function valuesOf(name) {
  if (!state.values[name]) state.values[name] = {};
  return state.values[name];
}

function showTemplate(force) {
  const t = currentTemplate();
  $("empty").hidden = !!t;
  $("template").hidden = !t;
  if (!t) return;
  $("t-name").textContent = t.name;
  $("t-path").textContent = t.path;
  $("t-desc").textContent = t.description;
  const key = t.name + "\n" + JSON.stringify(t.variables);
  if (!force && key === state.formKey) return; // keep the fields, and the focus, as they are
  state.formKey = key;
  const vals = valuesOf(t.name);
  const fields = $("fields");
  fields.replaceChildren();
  if (!t.variables.length) fields.appendChild(el("p", "note", "This template declares no variables."));
  for (const v of t.variables) {
    if (!vals[v.name]) {
      // Defaults are filled in; a string default as text, anything else as JSON.
      if (v.has_default) {
        const isText = typeof v.default === "string";
        vals[v.name] = { text: isText ? v.default : JSON.stringify(v.default), json: !isText };
      } else {
        vals[v.name] = { text: "", json: false };
      }
    }
    fields.appendChild(field(t.name, v, vals[v.name]));
  }
}

function field(tname, v, val) {
  const wrap = el("div", "field");
  wrap.dataset.var = v.name;
  const head = el("div", "field-head");
  const label = el("label", "", v.name);
  label.htmlFor = "var-" + v.name;
  head.appendChild(label);
  head.appendChild(el("span", v.required ? "req" : "opt", v.required ? "required" : "optional"));
  const jsonBox = el("label", "json-toggle");
  const cb = document.createElement("input");
  cb.type = "checkbox";
  cb.checked = val.json;
  cb.dataset.role = "json";
  jsonBox.appendChild(cb);
  jsonBox.appendChild(document.createTextNode(" JSON"));
  head.appendChild(jsonBox);
  wrap.appendChild(head);
  const ta = document.createElement("textarea");
  ta.id = "var-" + v.name;
  ta.name = v.name;
  ta.rows = Math.min(8, Math.max(1, val.text.split("\n").length));
  ta.value = val.text;
  ta.spellcheck = false;
  if (v.has_default) ta.placeholder = "default: " + JSON.stringify(v.default);
  else if (!v.required) ta.placeholder = "not passed: undefined in the template";
  wrap.appendChild(ta);
  const err = el("div", "field-error");
  err.hidden = true;
  wrap.appendChild(err);
  if (v.description) wrap.appendChild(el("div", "help", v.description));
  const changed = () => {
    val.text = ta.value;
    val.json = cb.checked;
    scheduleRender();
  };
  ta.addEventListener("input", changed);
  cb.addEventListener("change", changed);
  return wrap;
}

// body collects the variables to send: empty fields are not passed, JSON
// fields must parse. It returns null when one does not (and says where).
function body(t) {
  const vals = valuesOf(t.name);
  const out = {};
  let ok = true;
  for (const v of t.variables) {
    const val = vals[v.name];
    const wrap = document.querySelector('.field[data-var="' + CSS.escape(v.name) + '"]');
    const err = wrap && wrap.querySelector(".field-error");
    if (err) err.hidden = true;
    if (!val || val.text === "") continue;
    if (!val.json) { out[v.name] = val.text; continue; }
    try {
      out[v.name] = JSON.parse(val.text);
    } catch (e) {
      ok = false;
      if (err) { err.textContent = "not JSON: " + e.message; err.hidden = false; }
    }
  }
  return ok ? out : null;
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
  if (vars === null) return;
  const seq = ++state.seq;
  const action = state.chat[t.name] === t.hash ? "messages" : "render";
  let r;
  try {
    r = await fetch("/v1/templates/" + encodeURIComponent(t.name) + ":" + action, {
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
  if (r.ok) {
    state.renderError = null;
    if (action === "render") showText(await r.text(), meta);
    else showMessages(await r.json(), meta);
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

function showText(text, meta) {
  $("result-title").textContent = "Rendered prompt";
  $("render-error").hidden = true;
  $("messages").hidden = true;
  const out = $("output");
  out.hidden = false;
  out.textContent = text;
  $("result-meta").textContent = meta + " · " + new TextEncoder().encode(text).length + " bytes";
}

function showMessages(msgs, meta) {
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
  $("result-meta").textContent = meta + " · " + msgs.length + " messages";
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
  showStatus();
  showTemplates();
  showTemplate(false);
  await loadSource();
  await render();
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
refresh();
follow();
