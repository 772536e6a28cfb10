// The form of a template's variables, driven by each variable's JSON
// Schema: an enum (or a boolean) is a choice, an object or a list is JSON
// filled in with a skeleton of its schema, a number is JSON, and a string
// may be passed as an explicit empty string — an empty field is not
// passed at all. A variable without a schema is a text that can be ticked
// JSON. Schema files a variable's $ref names come from /v1/schemas/.
"use strict";

const schemaFiles = new Map(); // path -> Promise of the file's JSON

function schemaFile(path) {
  if (!schemaFiles.has(path)) {
    schemaFiles.set(path, fetch("/v1/schemas/" + path.split("/").map(encodeURIComponent).join("/"), { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : null)).catch(() => null));
  }
  return schemaFiles.get(path);
}

function joinPath(base, rel) {
  const parts = base ? base.split("/").slice(0, -1) : [];
  for (const p of rel.split("/")) {
    if (p === "..") parts.pop();
    else if (p !== "." && p !== "") parts.push(p);
  }
  return parts.join("/");
}

function pointer(doc, frag) {
  let v = doc;
  for (const raw of frag.replace(/^\//, "").split("/")) {
    if (raw === "") continue;
    const k = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (v === null || typeof v !== "object" || !(k in v)) return undefined;
    v = v[k];
  }
  return v;
}

// resolve follows a schema's $ref (a file of the set, a pointer in it, or
// both), as the server resolves it; at is {file, doc} of the schema.
async function resolve(schema, at, depth = 0) {
  if (!schema || typeof schema !== "object" || typeof schema.$ref !== "string" || depth > 16) return { schema, at };
  const [file, frag] = schema.$ref.split("#");
  let next = at;
  if (file) {
    const path = joinPath(at.file, file);
    next = { file: path, doc: await schemaFile(path) };
  }
  if (!next.doc) return { schema: null, at: next };
  const target = pointer(next.doc, frag || "");
  return resolve(target, next, depth + 1);
}

function typesOf(s) {
  if (!s || typeof s !== "object") return [];
  return Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
}

// skeleton is a value of the schema's shape: objects with every property,
// lists of one item, empty strings, zeros, the first of an enum.
async function skeleton(schema, at, depth = 0) {
  const r = await resolve(schema, at);
  const s = r.schema;
  if (!s || typeof s !== "object" || depth > 5) return null;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if ("const" in s) return s.const;
  const types = typesOf(s);
  if (types.includes("object") || (!types.length && s.properties)) {
    const out = {};
    for (const [k, p] of Object.entries(s.properties || {})) out[k] = await skeleton(p, r.at, depth + 1);
    return out;
  }
  if (types.includes("array")) {
    return s.items && typeof s.items === "object" && !Array.isArray(s.items) ? [await skeleton(s.items, r.at, depth + 1)] : [];
  }
  if (types.includes("string")) return "";
  if (types.includes("integer") || types.includes("number")) return 0;
  if (types.includes("boolean")) return false;
  return null;
}

// describeVar says how the form asks for a variable: kind is "choice"
// (options: its values), "string", "json" (skeleton: a value to start
// from) or "text" (no schema, or one the form does not read).
async function describeVar(v) {
  if (!v.schema) return { kind: "text" };
  const r = await resolve(v.schema, { file: "", doc: v.schema });
  const s = r.schema;
  if (!s || typeof s !== "object") return { kind: "text" };
  if (Array.isArray(s.enum)) return { kind: "choice", options: s.enum };
  if ("const" in s) return { kind: "choice", options: [s.const] };
  const types = typesOf(s);
  if (types.length === 1 && types[0] === "boolean") return { kind: "choice", options: [true, false] };
  if (types.length === 1 && types[0] === "string") return { kind: "string" };
  if (types.some((t) => t === "object" || t === "array")) {
    return { kind: "json", skeleton: JSON.stringify(await skeleton(s, r.at), null, 2) };
  }
  if (types.length && types.every((t) => t === "integer" || t === "number" || t === "null")) return { kind: "json" };
  return { kind: "text" };
}

function valuesOf(name) {
  if (!state.values[name]) state.values[name] = {};
  return state.values[name];
}

// initialValue is a field's value before anyone typed: the default, or
// a required object's or list's skeleton.
function initialValue(v, d) {
  if (v.has_default) {
    const isText = typeof v.default === "string" && d.kind !== "choice";
    return { text: isText ? v.default : JSON.stringify(v.default), json: !isText, empty: false };
  }
  if (d.kind === "json" && v.required && d.skeleton) return { text: d.skeleton, json: true, empty: false };
  return { text: "", json: d.kind === "json" || d.kind === "choice", empty: false };
}

// buildFields fills #fields for template t; it returns false when the
// template changed while its schemas were read.
async function buildFields(t) {
  const descs = await Promise.all(t.variables.map(describeVar));
  if (currentTemplate() !== t) return false;
  const vals = valuesOf(t.name);
  const fields = $("fields");
  fields.replaceChildren();
  if (!t.variables.length) fields.appendChild(el("p", "note", "This template declares no variables."));
  t.variables.forEach((v, i) => {
    if (!vals[v.name]) vals[v.name] = initialValue(v, descs[i]);
    fields.appendChild(field(v, descs[i], vals[v.name]));
  });
  return true;
}

function field(v, d, val) {
  const wrap = el("div", "field");
  wrap.dataset.var = v.name;
  wrap.dataset.kind = d.kind;
  const head = el("div", "field-head");
  const label = el("label", "", v.name);
  label.htmlFor = "var-" + v.name;
  head.appendChild(label);
  head.appendChild(el("span", v.required ? "req" : "opt", v.required ? "required" : "optional"));
  wrap.appendChild(head);
  const err = el("div", "field-error");
  err.hidden = true;
  const changed = () => scheduleRender();

  if (d.kind === "choice") {
    const sel = document.createElement("select");
    sel.id = "var-" + v.name;
    sel.appendChild(new Option(v.required ? "(choose one)" : "(not passed)", ""));
    for (const o of d.options) sel.appendChild(new Option(typeof o === "string" ? o : JSON.stringify(o), JSON.stringify(o)));
    sel.value = val.text;
    if (sel.value !== val.text) sel.value = ""; // a value no longer among the options
    sel.addEventListener("change", () => { val.text = sel.value; val.json = true; changed(); });
    wrap.appendChild(sel);
  } else {
    const ta = document.createElement("textarea");
    ta.id = "var-" + v.name;
    ta.name = v.name;
    ta.rows = Math.min(d.kind === "json" ? 10 : 8, Math.max(1, val.text.split("\n").length));
    ta.value = val.text;
    ta.spellcheck = false;
    if (v.has_default) ta.placeholder = "default: " + JSON.stringify(v.default);
    else if (d.kind === "json" && d.skeleton) ta.placeholder = d.skeleton;
    else if (!v.required) ta.placeholder = "not passed: undefined in the template";
    wrap.appendChild(ta);
    if (d.kind === "text") {
      // No schema to go by: the author says whether it is JSON.
      head.appendChild(toggle("json", " JSON", val.json, (on) => { val.json = on; changed(); }));
    } else if (d.kind === "json") {
      head.appendChild(el("span", "opt", "JSON"));
    }
    let empty = null;
    if (d.kind === "string" || d.kind === "text") {
      // An empty field is not passed; this passes "" instead.
      empty = toggle("empty", ' empty string ""', val.empty, (on) => {
        val.empty = on;
        if (on) { ta.value = ""; val.text = ""; }
        changed();
      });
      head.appendChild(empty);
    }
    ta.addEventListener("input", () => {
      val.text = ta.value;
      if (val.text !== "" && empty) { val.empty = false; empty.querySelector("input").checked = false; }
      changed();
    });
  }
  wrap.appendChild(err);
  if (v.description) wrap.appendChild(el("div", "help", v.description));
  return wrap;
}

function toggle(role, text, checked, onChange) {
  const box = el("label", "json-toggle");
  const cb = document.createElement("input");
  cb.type = "checkbox";
  cb.checked = checked;
  cb.dataset.role = role;
  cb.addEventListener("change", () => onChange(cb.checked));
  box.appendChild(cb);
  box.appendChild(document.createTextNode(text));
  return box;
}

// body collects the variables to send: an empty field is not passed (an
// explicit empty string is), JSON fields must parse. It returns null when
// one does not (and says where).
function body(t) {
  const vals = valuesOf(t.name);
  const out = {};
  let ok = true;
  for (const v of t.variables) {
    const val = vals[v.name];
    const wrap = document.querySelector('.field[data-var="' + CSS.escape(v.name) + '"]');
    const err = wrap && wrap.querySelector(".field-error");
    if (err) err.hidden = true;
    if (!val) continue;
    if (val.empty) { out[v.name] = ""; continue; }
    if (val.text === "") continue;
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

// setValues puts a sample's variables in the form: those it has, as it
// has them; the others are not passed.
function setValues(t, input) {
  const vals = valuesOf(t.name);
  for (const v of t.variables) {
    if (!(v.name in input)) { vals[v.name] = { text: "", json: false, empty: false }; continue; }
    const x = input[v.name];
    if (typeof x === "string") {
      const wrap = document.querySelector('.field[data-var="' + CSS.escape(v.name) + '"]');
      const choice = wrap && wrap.dataset.kind === "choice";
      vals[v.name] = choice ? { text: JSON.stringify(x), json: true, empty: false } : { text: x, json: false, empty: x === "" };
    } else {
      vals[v.name] = { text: JSON.stringify(x, null, 2), json: true, empty: false };
    }
  }
}
