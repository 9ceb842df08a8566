#!/usr/bin/env bash
# Issue 13, row 5: wellknown serve, from saving a file to the reload event
# (the 100 ms debounce included), beside the rebuild's own time: the Go
# benchmarks of generator/serve, RUNS times each. They edit a tool file of
# the example site, of a site of 1,000 tools, and of internal/benchsite's
# site (2,000 Markdown pages, 1,000 tools), save one Markdown page of the
# latter, and commit a tool edit there (the edit's own rebuild untimed).
# Usage: testdata/bench/serve.sh   (RUNS=5)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
go test ./generator/serve/ -run '^$' -bench Rebuild -benchtime 10x -count "$runs" >"$out"
for name in $(awk '/^BenchmarkRebuild/ {sub(/-[0-9]+$/, "", $1); print $1}' "$out" | sort -u); do
  event=$(awk -v n="$name" '$1 ~ "^" n "(-[0-9]+)?$" {print $3 / 1e6}' "$out" | median)
  build=$(awk -v n="$name" '$1 ~ "^" n "(-[0-9]+)?$" {print $5}' "$out" | median)
  case $name in
  *Markdown) what="a Markdown page saved"; goal=" (goal <= 160 ms)" ;;
  *Commit) what="a tool edit committed"; goal="" ;;
  *) what="a tool file saved"; goal=" (goal <= 250 ms)" ;;
  esac
  echo "$name: $what -> reload event $event ms$goal, of which the rebuild $build ms; medians of $runs"
done
