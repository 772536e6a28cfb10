// The set's fixtures on the preview page: saved samples to fill the form
// with, saving the form as a new one (when the server may write into the
// set's directory), and what the last reload did to every fixture's
// output — the rendered diff between the last two generations.
"use strict";

const fixtures = {
  list: [],        // GET /v1/fixtures: every fixture, with its input
  writable: false, // the server saves new fixtures
  problems: [],    // the fixture files' problems
};

async function loadFixtures() {
  const r = await getJSON("/v1/fixtures");
  if (!r.ok) return;
  fixtures.list = r.body.fixtures;
  fixtures.writable = r.body.writable;
  fixtures.problems = r.body.problems;
}

// showSamples offers the fixtures of template t.
function showSamples(t) {
  const box = $("samples");
  const pick = $("sample-pick");
  const mine = fixtures.list.filter((f) => f.kind === "template" && f.target === t.name);
  const chosen = pick.dataset.template === t.name ? pick.value : "";
  pick.replaceChildren(new Option(mine.length ? "— fill the form with a saved sample —" : "no saved sample yet", ""));
  for (const f of mine) pick.appendChild(new Option(f.name + (f.description ? " — " + f.description : ""), f.id));
  pick.dataset.template = t.name;
  pick.value = mine.some((f) => f.id === chosen) ? chosen : "";
  pick.disabled = !mine.length;
  box.hidden = !mine.length && !fixtures.writable;
  if (!pick.value) $("sample-note").textContent = "";
  $("save-box").hidden = !fixtures.writable;
}

async function pickSample() {
  const t = currentTemplate();
  const f = fixtures.list.find((x) => x.id === $("sample-pick").value);
  if (!t || !f) return;
  const unknown = Object.keys(f.input).filter((k) => !t.variables.some((v) => v.name === k));
  setValues(t, f.input);
  await showTemplate(true);
  $("sample-pick").value = f.id;
  $("sample-note").textContent = unknown.length
    ? "This sample also passes " + unknown.join(", ") + ", which the template does not declare: its fixture expects that error."
    : "From " + f.file + ":" + f.line + ".";
  render();
}

async function saveSample() {
  const t = currentTemplate();
  if (!t) return;
  const vars = body(t);
  const result = $("save-result");
  if (vars === null) { result.textContent = "a field is not valid JSON"; return; }
  const name = $("save-name").value.trim();
  const r = await fetch("/v1/fixtures", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ template: t.name, name, vars, golden: $("save-golden").checked }),
  });
  const b = await r.json().catch(() => ({ message: "HTTP " + r.status }));
  if (!r.ok) {
    result.className = "meta bad";
    result.textContent = b.message;
    return;
  }
  result.className = "meta good";
  result.textContent = "saved to " + b.file + (b.golden ? ", output in " + b.golden : "");
  $("save-name").value = "";
  await loadFixtures();
  showSamples(t);
  $("sample-pick").value = b.id;
  loadChanges();
}

// ---- what the last reload did to every fixture ----

async function loadChanges() {
  const r = await getJSON("/v1/fixtures/diff");
  const box = $("changes-box");
  if (!r.ok || !r.body.after) { box.hidden = true; return; }
  const d = r.body;
  box.hidden = false;
  const list = $("changes");
  list.replaceChildren();
  const shown = d.rendered.filter((x) => x.status !== "unchanged");
  $("changes-meta").textContent = (d.before ? "generation " + d.before.generation + " → " + d.after.generation
    : "generation " + d.after.generation + " (no earlier one yet)") + " · " + d.rendered.length + " fixtures, " +
    (d.before ? shown.length + " changed" : "every one new");
  document.body.dataset.changes = String(d.after.generation);
  for (const p of d.after.problems) list.appendChild(el("div", "problem", p));
  if (!d.before) return;
  if (!shown.length && !d.after.problems.length) list.appendChild(el("p", "note", "No fixture renders differently."));
  for (const x of shown) {
    const item = el("div", "change");
    item.dataset.fixture = x.fixture;
    const head = el("div", "change-head");
    head.appendChild(el("span", "badge " + (x.status === "changed" ? "warn" : "muted"), x.status));
    head.appendChild(el("code", "", x.fixture));
    head.appendChild(el("span", "meta", x.kind.replace("_", " ") + " " + x.target + (x.input_changed ? " · its input changed too" : "")));
    if (x.tokens) head.appendChild(el("span", "meta tokens", x.tokens.before + " → " + x.tokens.after + " tokens"));
    item.appendChild(head);
    const pre = el("pre", "diff");
    for (const line of x.diff.replace(/\n$/, "").split("\n")) {
      const cls = line.startsWith("+++") || line.startsWith("---") ? "file" : line.startsWith("@@") ? "hunk"
        : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
      pre.appendChild(el("span", cls, line + "\n"));
    }
    item.appendChild(pre);
    list.appendChild(item);
  }
}
