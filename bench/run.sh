#!/usr/bin/env bash
# Runs promptkit's side-by-side benchmark and prints one Markdown report.
# See README.md. Environment:
#   ROUNDS=10      rounds of the Go benchmarks (each round runs every engine once)
#   BENCHTIME=0.5s go test -benchtime of one engine in one round
#   SET_ROUNDS=6   rounds of the template-set and contextstack benchmarks (loads of 10,000 templates are slow)
#   COLD_RUNS=30   runs of the CLI cold start
#   CHAT_ROUNDS=8  rounds of the chat-template suite (each round times every engine on the six templates)
#   INSTALL=1      install what is missing with apt-get/npm (0: only say how)
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${ROUNDS:-10}
BENCHTIME=${BENCHTIME:-0.5s}
SET_ROUNDS=${SET_ROUNDS:-6}
COLD_RUNS=${COLD_RUNS:-30}
CHAT_ROUNDS=${CHAT_ROUNDS:-8}
INSTALL=${INSTALL:-1}
# In this module, go.sum may have to follow promptkit's own dependencies
# (replace => ../): its go commands may update it. The root's are readonly.
gob() { GOFLAGS=-mod=mod go "$@"; }
BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
out=results
rm -rf "$out" && mkdir -p "$out"
: > "$out/external.jsonl"

say() { echo "== $*" >&2; }
missing() { # engine reason
  printf '{"engine":"%s","missing":"%s"}\n' "$1" "$2" >> "$out/external.jsonl"
  echo "!! $1 not run: $2" >&2
}
can_apt() { [ "$INSTALL" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; }

command -v go >/dev/null || { echo "Go is required (the toolchain in ../go.mod)" >&2; exit 2; }

# --- Python's Jinja2 (Debian's python3-jinja2 under /usr/bin/python3)
PY=/usr/bin/python3
if ! { [ -x "$PY" ] && "$PY" -c 'import jinja2' 2>/dev/null; }; then
  if can_apt; then
    say "installing python3-jinja2 (apt-get)"
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-jinja2 >&2
  else
    echo "to include Jinja2: sudo apt-get install python3-jinja2" >&2
  fi
fi

# --- nunjucks (npm, into bench/node_modules)
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if can_apt; then
    say "installing nodejs and npm (apt-get)"
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >&2
  else
    echo "to include nunjucks: sudo apt-get install nodejs npm" >&2
  fi
fi
if command -v npm >/dev/null && { [ ! -f node_modules/nunjucks/package.json ] || [ ! -f node_modules/@huggingface/jinja/package.json ]; }; then
  if [ "$INSTALL" = 1 ]; then
    say "installing nunjucks (npm ci into bench/node_modules)"
    npm ci --no-audit --no-fund --loglevel=error >&2
  else
    echo "to include nunjucks: (cd bench && npm ci)" >&2
  fi
fi

# --- Go modules of the peers (Go module proxy)
say "go mod download"
gob mod download

# --- outputs: every engine byte-identical to Jinja2's before anything is timed
say "checking every Go engine's output against Jinja2's"
gob test -count=1 -run TestOutputsIdentical . >&2

# --- Go engines, interleaved rounds
say "Go engines: $ROUNDS rounds of go test -bench (benchtime $BENCHTIME)"
gob test -c -o "$out/engines.test" .
for i in $(seq "$ROUNDS"); do
  "./$out/engines.test" -test.run '^$' -test.bench Engines -test.benchmem -test.count 1 \
    -test.benchtime "$BENCHTIME" >> "$out/engines.txt"
  echo "   round $i/$ROUNDS done" >&2
done

# --- out-of-process engines
if [ -x "$PY" ] && "$PY" -c 'import jinja2' 2>/dev/null; then
  say "Jinja2 (Python)"
  "$PY" jinja2_bench.py --rounds "$ROUNDS" >> "$out/external.jsonl"
else
  missing jinja2 "python3-jinja2 is not installed (apt-get install python3-jinja2)"
fi
if command -v node >/dev/null && [ -f node_modules/nunjucks/package.json ]; then
  say "nunjucks (Node)"
  node nunjucks_bench.js --rounds "$ROUNDS" >> "$out/external.jsonl"
else
  missing nunjucks "node or bench/node_modules/nunjucks is missing (apt-get install nodejs npm; cd bench && npm ci)"
fi

# --- chat templates: six models' templates, promptkit against Jinja2, minja and @huggingface/jinja
# (bench/cmd/chatbench; every output checked against Jinja2's first)
if ! { command -v g++ >/dev/null && [ -f /usr/include/nlohmann/json.hpp ]; } && can_apt; then
  say "installing g++ and nlohmann-json3-dev for minja (apt-get)"
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ nlohmann-json3-dev >&2
fi
minja_bin=""
if command -v g++ >/dev/null && [ -f /usr/include/nlohmann/json.hpp ] && ./minja.sh >&2; then
  minja_bin="$out/minja_chat_bench"
else
  echo "!! minja not run: it needs git, g++ and nlohmann-json3-dev (bench/minja.sh)" >&2
fi
chat_py="$PY"; [ -x "$PY" ] && "$PY" -c 'import jinja2' 2>/dev/null || chat_py=""
chat_node=""; command -v node >/dev/null && [ -f node_modules/@huggingface/jinja/package.json ] && chat_node=node
say "chat templates: $CHAT_ROUNDS rounds"
gob run ./cmd/chatbench -root .. -rounds "$CHAT_ROUNDS" -py "$chat_py" -node "$chat_node" -minja "$minja_bin" > "$out/chat.md"

# --- template sets of 10, 1,000 and 10,000 (promptkit's own benchmarks)
say "template sets: load and render ($SET_ROUNDS rounds)"
(cd .. && go test -c -o bench/"$out"/manager.test ./manager)
for i in $(seq "$SET_ROUNDS"); do
  (cd ../manager && "../bench/$out/manager.test" -test.run '^$' -test.bench 'Load$|RenderInSet' -test.benchmem \
    -test.count 1) >> "$out/sets.txt"
  echo "   round $i/$SET_ROUNDS done" >&2
done

# --- contextstack's assembly: 50 layers, 100 tools, 8 renders (its own benchmarks)
say "contextstack: AssembleRender, AssembleWithoutRender and the stages ($SET_ROUNDS rounds)"
(cd .. && go test -c -o bench/"$out"/contextstack.test ./contextstack)
for i in $(seq "$SET_ROUNDS"); do
  (cd ../contextstack && "../bench/$out/contextstack.test" -test.run '^$' -test.bench 'Assemble|Stages' \
    -test.benchmem -test.count 1) >> "$out/contextstack.txt"
  echo "   round $i/$SET_ROUNDS done" >&2
done

# --- cold start of the CLI, on built binaries: static (CGO_ENABLED=0, as a
# release is built) and go build's default (dynamically linked, since the
# CLI imports net); a hello-world Go binary for scale
say "cold start: promptkit render, $COLD_RUNS runs"
(cd .. && CGO_ENABLED=0 go build -o bench/"$out"/promptkit ./cmd/promptkit)
(cd .. && go build -o bench/"$out"/promptkit-default ./cmd/promptkit)
gob build -o "$out/coldstart" ./cmd/coldstart
gob build -o "$out/hello" ./cmd/hello
set_dir="$out/coldstart-set"
"./$out/coldstart" -setup "$set_dir"
cold() { # binary label output
  "./$out/coldstart" -n "$COLD_RUNS" -want ../manager/testdata/bench/prompt.golden -label "$2" -- \
    "./$out/$1" render prompt --dir "$set_dir" --vars "$set_dir/vars.json" > "$out/$3"
}
cold promptkit "promptkit render prompt --dir DIR --vars DIR/vars.json (CGO_ENABLED=0 build)" coldstart.json
cold promptkit-default "the same with a default go build (dynamically linked)" coldstart-default.json
"./$out/coldstart" -n "$COLD_RUNS" -label "a hello-world Go binary" -- "./$out/hello" > "$out/coldstart-baseline.json"

# --- benchstat of the Go rounds (optional)
if go run "$BENCHSTAT" "$out/engines.txt" > "$out/benchstat.txt" 2>/dev/null; then
  say "benchstat: $out/benchstat.txt"
else
  echo "(benchstat unavailable: $BENCHSTAT)" > "$out/benchstat.txt"
fi

# --- the report
gob run ./cmd/table -go "$out/engines.txt" -manager "$out/sets.txt" -contextstack "$out/contextstack.txt" \
  -ext "$out/external.jsonl" \
  -coldstart "$out/coldstart.json" -coldstart-default "$out/coldstart-default.json" \
  -coldstart-baseline "$out/coldstart-baseline.json" | tee "$out/report.md"
cat "$out/chat.md" | tee -a "$out/report.md"
