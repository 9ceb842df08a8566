#!/usr/bin/env bash
# Issue 21's goals side by side, measured in one run by the scripts beside
# this one (their own output is shown as they go), then a table: the peak
# memory of the heavy profile at 10,000 and 100,000 commits (memory.sh),
# the history stage against the git floor on both profiles (history.sh),
# a cold build on disk against Hugo's on the same content (hugo.sh), and
# the reload after a Markdown save on the 2,000-page site (serve.sh).
# SKIP_100K=1 leaves out the 100,000-commit build, which takes minutes.
# Usage: testdata/bench/goals.sh   (RUNS=3; SKIP_100K=1; WELLKNOWN=binary)
RUNS=${RUNS:-3}
source "$(dirname "$0")/lib.sh"
export WELLKNOWN=$bin RUNS
machine
# run NAME COMMAND... runs a benchmark script, its output shown and kept as NAME.
run() {
  local name=$1
  shift
  echo "== $*"
  "$@" 2>&1 | tee "$work/$name.out" || echo "== it failed: its goal is reported as not run"
}
run mem10k env PROFILE=heavy testdata/bench/memory.sh 200 10000
[ -n "${SKIP_100K:-}" ] || run mem100k env PROFILE=heavy testdata/bench/memory.sh 200 100000
run light env PROFILE=light testdata/bench/history.sh
run heavy env PROFILE=heavy testdata/bench/history.sh
run hugo testdata/bench/hugo.sh
run reload env BENCH=RebuildBenchSiteMarkdown testdata/bench/serve.sh
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# figure NAME PATTERN prints the number just before the end of the first
# line of NAME's output that matches PATTERN (an extended regular
# expression ending in a unit).
figure() { grep -soE "[0-9.]+$2" "$work/$1.out" | head -1 | grep -oE '^[0-9.]+' || true; }
# row GOAL MEASURED UNIT LIMIT OP prints a row of the table: met when
# MEASURED OP LIMIT (<= or <), MISSED otherwise, "not run" without a figure.
row() {
  local verdict="not run" measured=-
  if [ -n "$2" ]; then
    verdict=$(awk -v m="$2" -v l="$4" -v op="$5" 'BEGIN {print (op == "<" ? m < l : m <= l) ? "met" : "MISSED"}')
    measured=$2$3
  fi
  printf '%-50s %12s %12s   %s\n' "$1" "$measured" "$5 $4$3" "$verdict"
}
echo
printf '%-50s %12s %12s   %s\n' "issue 21 (medians of $RUNS)" measured goal verdict
row "peak memory, heavy, 200 tools x 10,000 commits" "$(figure mem10k ' MB \([^)]*\); Go heap')" " MB" 150 "<="
mem100k=
[ -n "${SKIP_100K:-}" ] || mem100k=$(figure mem100k ' MB \([^)]*\); Go heap')
row "peak memory, heavy, 200 tools x 100,000 commits" "$mem100k" " MB" 200 "<="
# A build's peak is its largest process's, git's included: beside it, what
# the git floor alone peaks at on the same history.
[ -z "$mem100k" ] || echo "  (the git floor alone: $(grep -soE 'git floor: +[0-9]+ MB' "$work/mem100k.out" | grep -oE '[0-9]+ MB' | head -1))"
row "history stage / git floor, light profile" "$(figure light 'x the floor')" "x" 2 "<="
row "history stage / git floor, heavy profile" "$(figure heavy 'x the floor')" "x" 2 "<="
row "cold build on disk / Hugo's, 2,000 pages" "$(figure hugo "x Hugo's time")" "x" 1 "<"
row "reload after a Markdown save, 2,000 pages" "$(figure reload ' ms \(goal')" " ms" 120 "<="
