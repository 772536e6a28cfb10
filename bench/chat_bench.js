// Times @huggingface/jinja (the Jinja engine of transformers.js) applying
// the chat-template workload of ../manager/testdata/bench/chat, as
// chat_bench.py times Jinja2: each template compiled once, its output
// checked byte for byte against NAME.golden before it is timed (an output
// that differs is reported beside its times, which are then for scale
// only: @huggingface/jinja prints the float 1500.0 as 1500), then timed in
// process CPU time (process.cpuUsage) from JavaScript values and from
// JSON (JSON.parse of the messages and tools, then the render).
//
//   node bench/chat_bench.js [--samples 5] [--min-time 0.2] [--only qwen3]
//
// One JSON object per template and way on stdout. Needs bench/node_modules
// (cd bench && npm ci).
"use strict";

const fs = require("fs");
const path = require("path");
const { Template } = require("@huggingface/jinja");

const root = path.join(__dirname, "..");
const workload = path.join(root, "manager", "testdata", "bench", "chat");

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : def;
}
const samples = Number(arg("--samples", "5"));
const minTime = Number(arg("--min-time", "0.2"));
const only = arg("--only", "");

const readJSON = (p) => JSON.parse(fs.readFileSync(p, "utf8"));
const spec = readJSON(path.join(workload, "templates.json"));
const conv = readJSON(path.join(workload, "conversation.json"));
const messagesJSON = JSON.stringify(conv.messages);
const toolsJSON = JSON.stringify(conv.tools);
const version = "@huggingface/jinja " + JSON.parse(fs.readFileSync(path.join(__dirname, "node_modules", "@huggingface", "jinja", "package.json"), "utf8")).version + ", Node " + process.version;

function cpuNs() {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

for (const t of spec.templates) {
  if (only && t.name !== only) continue;
  const c = readJSON(path.join(root, "testdata", "corpus", "chat", t.case + ".json"));
  const golden = fs.readFileSync(path.join(workload, t.name + ".golden"), "utf8");
  const tokens = {};
  for (const k of ["bos_token", "eos_token"]) if (c[k] != null) tokens[k] = c[k];
  let tpl, out;
  try {
    tpl = new Template(c.template);
    out = tpl.render({ messages: conv.messages, tools: conv.tools, documents: null, add_generation_prompt: true, ...tokens });
  } catch (e) {
    console.log(JSON.stringify({ engine: "hfjinja", template: t.name, missing: "error: " + String(e.message || e).slice(0, 120), version }));
    continue;
  }
  // An output that differs is reported with the times, which are then
  // for scale only.
  let differs;
  if (out !== golden) {
    const at = firstDifference(out, golden);
    differs = `output differs from Jinja2's at byte ${at}: ${JSON.stringify(out.slice(at, at + 24))} for ${JSON.stringify(golden.slice(at, at + 24))}`;
  }
  const fromValues = () => tpl.render({ messages: conv.messages, tools: conv.tools, documents: null, add_generation_prompt: true, ...tokens });
  const fromJSON = () => tpl.render({ messages: JSON.parse(messagesJSON), tools: JSON.parse(toolsJSON), documents: null, add_generation_prompt: true, ...tokens });
  for (const [engine, fn] of [["hfjinja", fromValues], ["hfjinja-json", fromJSON]]) {
    const run = (n) => {
      const start = cpuNs();
      for (let i = 0; i < n; i++) fn();
      return cpuNs() - start;
    };
    let n = 1;
    while (run(n) < (minTime * 1e9) / 10) n *= 2;
    n = Math.max(1, Math.round((n * minTime * 1e9) / Math.max(run(n), 1)));
    const s = [];
    for (let i = 0; i < samples; i++) s.push(run(n) / n);
    const sorted = [...s].sort((a, b) => a - b);
    console.log(JSON.stringify({ engine, template: t.name, ns_per_op: sorted[Math.floor(sorted.length / 2)], samples_ns_per_op: s, ops_per_sample: n, version, differs }));
  }
}
