// Writes promptkit's token-count vectors from the reference tokenizers:
// OpenAI's tiktoken (the Rust library, compiled to WASM: the npm package
// tiktoken) for the OpenAI encodings, and Hugging Face's tokenizers.js
// (@huggingface/tokenizers) for tokenizer.json files.
//
//   npm ci && node gen.mjs [--out DIR]     (DIR defaults to ../vectors)
//
// Inputs: ../corpus.json (hand-written texts, bytes and files) plus
// generated texts (a fixed-seed generator, so every run writes the same).
// Outputs: DIR/texts.json (every text, as text or, when it is not UTF-8,
// base64) and DIR/NAME.json (the ids of each text) for each tokenizer.
// Bytes that are not UTF-8 reach the references as TextDecoder decodes
// them (each maximal invalid subsequence becomes U+FFFD), which is what
// promptkit defines for such text.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";
import { get_encoding } from "tiktoken";
import { Tokenizer } from "@huggingface/tokenizers";

const here = path.dirname(fileURLToPath(import.meta.url));
const testdata = path.join(here, "..");
const outArg = process.argv.indexOf("--out");
const out = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(testdata, "vectors");

// The tokenizers. A tokenizer.json variant takes a vendored file and
// replaces some of its parts by those of another model (named in
// "overrides"), to test a pipeline promptkit implements with a vocabulary
// that is vendored; the Go test applies the same overrides.
const DEEPSEEK_V3_PRE_TOKENIZER = {
  type: "Sequence",
  pretokenizers: [
    { type: "Split", pattern: { Regex: "\\p{N}{1,3}" }, behavior: "Isolated", invert: false },
    { type: "Split", pattern: { Regex: "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+" }, behavior: "Isolated", invert: false },
    {
      type: "Split",
      pattern: {
        Regex:
          "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
      },
      behavior: "Isolated",
      invert: false,
    },
    { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: false },
  ],
};
const O200K_PATTERN =
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

const TOKENIZERS = [
  { name: "o200k_base", encoding: "o200k_base" },
  { name: "cl100k_base", encoding: "cl100k_base" },
  { name: "p50k_base", encoding: "p50k_base" },
  { name: "r50k_base", encoding: "r50k_base" },
  { name: "qwen3", file: "tokenizers/qwen3/tokenizer.json.gz" },
  { name: "llama3", file: "tokenizers/llama3/tokenizer.json.gz" },
  { name: "llama2", file: "tokenizers/llama2/tokenizer.json.gz" },
  {
    name: "qwen3-deepseek_v3-pre_tokenizer",
    file: "tokenizers/qwen3/tokenizer.json.gz",
    overrides: { normalizer: null, pre_tokenizer: DEEPSEEK_V3_PRE_TOKENIZER },
  },
  {
    name: "qwen3-o200k-split",
    file: "tokenizers/qwen3/tokenizer.json.gz",
    overrides: {
      pre_tokenizer: {
        type: "Sequence",
        pretokenizers: [
          { type: "Split", pattern: { Regex: O200K_PATTERN }, behavior: "Isolated", invert: false },
          { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false },
        ],
      },
    },
  },
  {
    name: "qwen3-gpt2-bytelevel",
    file: "tokenizers/qwen3/tokenizer.json.gz",
    overrides: { pre_tokenizer: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true } },
  },
  {
    name: "llama2-metaspace",
    file: "tokenizers/llama2/tokenizer.json.gz",
    overrides: {
      normalizer: null,
      pre_tokenizer: { type: "Metaspace", replacement: "\u2581", prepend_scheme: "first", split: false },
    },
  },
];

// --- the texts

function mulberry32(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Fragments the generated texts are made of: every class the
// pre-tokenizers tell apart, and their borders. No code point newer than
// Unicode 15.0 (Go's tables), so both sides classify alike.
const FRAGMENTS = [
  "a", "b", "Z", "Q", "hello", "World", "HTTP", "xml", "'s", "'T", "'re", "'LL", "'ve", "'m", "'d", "'", "'x",
  " ", " ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", "\r", " \n", "\n ", "\u00a0", "\u3000", "\u2003", "\u0085",
  "\ufeff", "\u2028", "\u000b", "\u000c",
  "0", "7", "42", "123", "2024", "3.14", "٣", "Ⅻ", "½", "²",
  ".", ",", "!", "?", "-", "_", "/", "//", "\\", "(", ")", "{", "}", "[", "]", "<", ">", "|", "#", "@", "$", "%",
  "^", "&", "*", "+", "=", "~", "`", "\"", ";", ":", "...", "->", "==", "!=",
  "中", "文", "查询", "天气", "の", "ひらがな", "カタカナ", "ｶﾀ", "한국", "ё", "Ж", "É", "é", "ß", "ǅ", "ǈ", "İ", "ı", "ſ",
  "\u0301", "\u0308", "\u093f", "न", "म", "स्", "ت", "ب", "ש", "ก", "ี", "Ω", "ω",
  "👍", "🏽", "👨", "\u200d", "👩", "👧", "❤", "\ufe0f", "🔥", "🇨", "🇳", "😀", "©", "€", "→", "★", "♪",
  "\u200b", "\u200e", "\ue000", "\u00ad",
  "<|", "|>", "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<s>", "</s>", "<unk>", "[INST]", "<|eot_id|>",
  "▁", "\u2581\u2581", "<0x41>",
];

function generated(n, seed) {
  const rnd = mulberry32(seed);
  const cases = [];
  for (let i = 0; i < n; i++) {
    const len = Math.floor(rnd() * 40);
    let s = "";
    for (let j = 0; j < len; j++) s += FRAGMENTS[Math.floor(rnd() * FRAGMENTS.length)];
    cases.push({ name: `generated-${String(i).padStart(3, "0")}`, text: s });
  }
  return cases;
}

function texts() {
  const corpus = JSON.parse(fs.readFileSync(path.join(testdata, "corpus.json"), "utf8"));
  const cases = corpus.cases.map((c) => {
    if (c.text !== undefined) return { name: c.name, text: c.text };
    if (c.base64 !== undefined) return { name: c.name, base64: c.base64 };
    return { name: c.name, text: fs.readFileSync(path.join(testdata, c.file), "utf8") };
  });
  return cases.concat(generated(300, 20261201));
}

// decoded is the string a reference reads for a case.
function decoded(c) {
  if (c.text !== undefined) return c.text;
  return new TextDecoder("utf-8").decode(Buffer.from(c.base64, "base64"));
}

// --- the references

function hfTokenizer(t) {
  const json = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(testdata, t.file))).toString("utf8"));
  Object.assign(json, t.overrides ?? {});
  const dir = path.dirname(path.join(testdata, t.file));
  const config = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8"));
  const tok = new Tokenizer(json, config);
  return (s) => tok.encode(s, { add_special_tokens: false }).ids;
}

function tiktokenEncoder(t) {
  const enc = get_encoding(t.encoding);
  return (s) => Array.from(enc.encode_ordinary(s));
}

const cases = texts();
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(
  path.join(out, "texts.json"),
  JSON.stringify({ generated_by: "gen/gen.mjs", cases }, null, 0).replace(/\},\{/g, "},\n{") + "\n",
);
const versions = JSON.parse(fs.readFileSync(path.join(here, "package-lock.json"), "utf8")).packages;
for (const t of TOKENIZERS) {
  const encode = t.encoding ? tiktokenEncoder(t) : hfTokenizer(t);
  const reference = t.encoding
    ? `tiktoken ${versions["node_modules/tiktoken"].version} encode_ordinary`
    : `@huggingface/tokenizers ${versions["node_modules/@huggingface/tokenizers"].version} encode(text, {add_special_tokens: false})`;
  const ids = {};
  for (const c of cases) ids[c.name] = encode(decoded(c));
  const header = { tokenizer: t.encoding ?? t.file, overrides: t.overrides ?? null, reference };
  const body = Object.entries(ids)
    .map(([name, v]) => `${JSON.stringify(name)}: ${JSON.stringify(v)}`)
    .join(",\n");
  fs.writeFileSync(
    path.join(out, `${t.name}.json`),
    `{"header": ${JSON.stringify(header)},\n"ids": {\n${body}\n}}\n`,
  );
  console.error(`${t.name}: ${cases.length} texts`);
}
