#!/usr/bin/env node
// Times nunjucks on promptkit's benchmark workloads.
//
// Each template is compiled once (autoescape off, throwOnUndefined), its
// output is checked byte for byte against the golden file (Jinja2's), and
// then it is rendered many times, each render encoded to UTF-8 bytes as a
// host would before sending it. One JSON object per workload goes to
// stdout: the median ns per render over several timed rounds.
//
//   node bench/nunjucks_bench.js [--rounds 6] [--min-time 0.5] [--only large]
//
// nunjucks comes from bench/node_modules (npm ci in bench/, which run.sh does).
'use strict';

const fs = require('fs');
const path = require('path');
const nunjucks = require('nunjucks');

function arg(name, def) {
  const i = process.argv.indexOf('--' + name);
  return i >= 0 ? process.argv[i + 1] : def;
}

const managerDir = path.join(__dirname, '..', 'manager', 'testdata', 'bench');
// The workloads nunjucks is timed on, and where their files are.
const workloads = [
  ['prompt', managerDir],
  ['tiny', managerDir],
  ['large', path.join(__dirname, 'testdata', 'large')],
];
const only = arg('only', '');
const rounds = Number(arg('rounds', 6));
const minTime = Number(arg('min-time', 0.5));

const env = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: true });
const version = 'nunjucks ' + require('nunjucks/package.json').version + ', Node ' + process.versions.node;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

for (const [name, dir] of workloads) {
  if (only && name !== only) continue;
  const tpl = nunjucks.compile(fs.readFileSync(path.join(dir, name + '.jinja'), 'utf8'), env);
  const vars = JSON.parse(fs.readFileSync(path.join(dir, 'vars.json'), 'utf8'))[name];
  const golden = fs.readFileSync(path.join(dir, name + '.golden'), 'utf8');
  if (tpl.render(vars) !== golden) {
    console.error(`nunjucks ${name}: output differs from ${name}.golden`);
    process.exit(1);
  }
  const run = (n) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) Buffer.from(tpl.render(vars), 'utf8');
    return Number(process.hrtime.bigint() - start);
  };
  let n = 1;
  while (run(n) < (minTime * 1e9) / 10) n *= 2;
  n *= 10;
  const perOp = [];
  for (let r = 0; r < rounds; r++) perOp.push(run(n) / n);
  console.log(JSON.stringify({
    engine: 'nunjucks', workload: name, ns_per_op: median(perOp),
    rounds_ns_per_op: perOp, renders_per_round: n, version,
  }));
}
