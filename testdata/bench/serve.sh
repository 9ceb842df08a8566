#!/usr/bin/env bash
# Issue 13, row 5, and issue 21: wellknown serve, from saving a file to the
# reload event (the debounce window included), beside the rebuild's own
# time: the Go benchmarks of command/serve, RUNS rounds. They edit a tool
# file of the example site, of a site of 1,000 tools, and of
# internal/benchsite's site (2,000 Markdown pages, 1,000 tools), save one
# Markdown page of the latter, and commit a tool edit there (the edit's own
# rebuild untimed). BENCH selects benchmarks by name (a go test -bench
# pattern); BEFORE=directory, an older checkout of wellknown, runs the same
# benchmarks there in each round, for a before/after under the same load.
# Usage: testdata/bench/serve.sh   (RUNS=5; BENCH=Rebuild; BEFORE=dir)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-5}
bench=${BENCH:-Rebuild}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
range() { sort -n | awk '{a[NR]=$1} END {print a[1] "-" a[NR]}'; }
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
for _ in $(seq "$runs"); do
  go test ./command/serve/ -run '^$' -bench "$bench" -benchtime 10x -count 1 >>"$out/now"
  [ -z "${BEFORE:-}" ] || (cd "$BEFORE" && go test ./command/serve/ -run '^$' -bench "$bench" -benchtime 10x -count 1) >>"$out/before"
done
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
# events FILE NAME and builds FILE NAME print each round's reload event
# and rebuild (ms) of benchmark NAME in FILE.
events() { awk -v n="$2" '$1 ~ "^" n "(-[0-9]+)?$" {print $3 / 1e6}' "$1"; }
builds() { awk -v n="$2" '$1 ~ "^" n "(-[0-9]+)?$" {print $5}' "$1"; }
# report FILE LABEL prints the medians and ranges of the benchmarks in FILE.
report() {
  for name in $(awk '/^BenchmarkRebuild/ {sub(/-[0-9]+$/, "", $1); print $1}' "$1" | sort -u); do
    event=$(events "$1" "$name" | median)
    build=$(builds "$1" "$name" | median)
    case $name in
    *Markdown) what="a Markdown page saved"; goal=" (goal <= 120 ms)" ;;
    *Commit) what="a tool edit committed"; goal="" ;;
    *) what="a tool file saved"; goal=" (goal <= 250 ms)" ;;
    esac
    echo "$2$name: $what -> reload event $event ms$goal, of which the rebuild $build ms; medians of $runs"
    echo "$2$name: ranges: reload event $(events "$1" "$name" | range) ms, rebuild $(builds "$1" "$name" | range) ms"
  done
}
report "$out/now" ""
[ -z "${BEFORE:-}" ] || report "$out/before" "before: "
