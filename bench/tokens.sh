#!/usr/bin/env bash
# Counting tokens: promptkit's tokens against OpenAI's tiktoken (the Rust
# library as WASM, npm "tiktoken") and js-tiktoken, on the same texts, in
# interleaved rounds, and one Markdown table (also results/tokens.md).
#   ROUNDS=8       rounds; each runs every engine once
#   BENCHTIME=0.5s go test -benchtime of one Go benchmark in one round
#   MIN_MS=500     the least time of one timed JavaScript round, in ms
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${ROUNDS:-8}
BENCHTIME=${BENCHTIME:-0.5s}
MIN_MS=${MIN_MS:-500}
gob() { GOFLAGS=-mod=mod go "$@"; }
out=results
mkdir -p "$out"
: > "$out/tokens-go.txt"
: > "$out/tokens-load.txt"
: > "$out/tokens-node.jsonl"
if [ ! -f node_modules/tiktoken/package.json ] || [ ! -f node_modules/js-tiktoken/package.json ]; then
  echo "== npm ci (tiktoken, js-tiktoken)" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
gob test -c -o "$out/tokens.test" .
"./$out/tokens.test" -test.run 'TokenCounts' -test.v > "$out/tokens-counts.txt"
for i in $(seq "$ROUNDS"); do
  "./$out/tokens.test" -test.run '^$' -test.bench '^BenchmarkTokens$' -test.benchtime "$BENCHTIME" -test.count 1 >> "$out/tokens-go.txt"
  "./$out/tokens.test" -test.run '^$' -test.bench '^BenchmarkTokensFirstLoad$' -test.benchtime 1x -test.count 1 >> "$out/tokens-load.txt"
  node tokens_bench.js --round "$i" --min-ms "$MIN_MS" >> "$out/tokens-node.jsonl"
  echo "   round $i/$ROUNDS done" >&2
done
gob run ./cmd/tokentable -go "$out/tokens-go.txt" -load "$out/tokens-load.txt" -node "$out/tokens-node.jsonl" \
  -counts "$out/tokens-counts.txt" | tee "$out/tokens.md"
