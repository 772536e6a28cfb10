// Times OpenAI's tiktoken (the Rust library as WASM: npm "tiktoken") and
// js-tiktoken (pure JavaScript) counting the texts of testdata/tokens, as
// BenchmarkTokens times promptkit: one JSON line per engine, encoding and
// text, with the count (which the table holds to promptkit's), the median
// ns per count over --rounds timed rounds of at least --min-ms each, and
// the time to load the encoding.
//
//   node tokens_bench.js [--rounds 1] [--min-ms 500] [--round N]
const fs = require("fs");
const path = require("path");

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const rounds = arg("--rounds", 1);
const round = arg("--round", 0);
const minNs = arg("--min-ms", 500) * 1e6;
const texts = { english: "english.md", chinese: "chinese.md", code: "code.go.txt" };
const now = () => Number(process.hrtime.bigint());

function load(engine, enc) {
  const t0 = now();
  let count;
  if (engine === "tiktoken (WASM)") {
    const e = require("tiktoken").get_encoding(enc);
    count = (s) => e.encode_ordinary(s).length;
  } else {
    const { Tiktoken } = require("js-tiktoken/lite");
    const ranks = require(`js-tiktoken/ranks/${enc}`);
    const e = new Tiktoken(ranks.default || ranks);
    count = (s) => e.encode(s).length;
  }
  count("warm up");
  return { count, loadNs: now() - t0 };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

for (const engine of ["tiktoken (WASM)", "js-tiktoken"]) {
  for (const enc of ["o200k_base", "cl100k_base"]) {
    const { count, loadNs } = load(engine, enc);
    for (const [name, file] of Object.entries(texts)) {
      const text = fs.readFileSync(path.join(__dirname, "testdata", "tokens", file), "utf8");
      const bytes = Buffer.byteLength(text);
      const n = count(text);
      const per = [];
      for (let r = 0; r < rounds; r++) {
        let runs = 0;
        const t0 = now();
        while (now() - t0 < minNs) {
          count(text);
          runs++;
        }
        per.push((now() - t0) / runs);
      }
      console.log(JSON.stringify({ round, engine, encoding: enc, text: name, bytes, count: n, ns_per_op: median(per), load_ns: loadNs }));
    }
  }
}
