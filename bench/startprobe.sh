#!/usr/bin/env bash
# startprobe.sh: what the CLI's cold start would be without some of its
# dependencies. It builds programs that link what cmd/promptkit links (its
# imports outside the standard library, blank-imported, so each package's
# initialization runs) and do nothing else: all of them; all but fleet
# (oras-go and its OCI packages); all but mcpserver (the MCP SDK); all but
# both; and a hello world. Each is started COLD_RUNS times as a fresh
# process (cmd/coldstart), in turn, ROUNDS times; the medians are printed.
#
#   bench/startprobe.sh                 # from anywhere in the checkout
#   COLD_RUNS=30 ROUNDS=3 bench/startprobe.sh
set -euo pipefail
COLD_RUNS=${COLD_RUNS:-30}
ROUNDS=${ROUNDS:-3}
bench=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$bench/.." && pwd)
work=$(mktemp -d "$root/.startprobe.XXXXXX") # inside the module: the probes import its internal packages
trap 'rm -rf "$work"' EXIT
cd "$root"
mod=$(go list -m)
imports=$(go list -f '{{join .Imports "\n"}}' ./cmd/promptkit | grep '\.' || true)
probe() { # name, packages left out (a regular expression)
  local dir="$work/$1"
  mkdir -p "$dir"
  {
    echo "package main"
    echo "import ("
    grep -v -E "^$mod/($2)\$" <<<"$imports" | sed 's/.*/\t_ "&"/'
    echo ")"
    echo "func main() {}"
  } >"$dir/main.go"
  CGO_ENABLED=0 go build -o "$work/$1.bin" "./$(basename "$work")/$1"
}
probe all 'none'
probe no-oci 'fleet'
probe no-mcp 'mcpserver'
probe neither 'fleet|mcpserver'
(cd "$bench" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -o "$work/hello.bin" ./cmd/hello)
(cd "$bench" && GOFLAGS=-mod=mod go build -o "$work/coldstart" ./cmd/coldstart)
for r in $(seq "$ROUNDS"); do
  for p in all no-oci no-mcp neither hello; do
    printf '%s\t%s\t' "$r" "$p"
    "$work/coldstart" -n "$COLD_RUNS" -label "$p" -- "$work/$p.bin" |
      sed -E 's/.*"median_ns": *([0-9]+).*/\1/' | awk '{ printf "%.1f\n", $1 / 1e6 }'
  done
done | awk -F'\t' '{ v[$2] = v[$2] " " $3 } END {
  print "| linked | median of each round, ms |"; print "|---|---|"
  split("all no-oci no-mcp neither hello", order, " ")
  for (i = 1; i <= 5; i++) print "| " order[i] " |" v[order[i]] " |"
}'
