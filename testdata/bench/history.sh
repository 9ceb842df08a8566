#!/usr/bin/env bash
# Issue 13, row 1: the history stage (read + replay) of 200 tools × 10,000
# commits against the git floor (lib.sh, floor), interleaved in one run:
# each of RUNS rounds runs the floor, then a build, whose read and diff
# stages (build --json) are the history stage.
# Usage: testdata/bench/history.sh [TOOLS [COMMITS]]   (RUNS=5; WELLKNOWN=binary)
source "$(dirname "$0")/lib.sh"
history_repo "$@"
machine
for _ in $(seq "$runs"); do
  ms floor >>"$work/floor"
  rm -rf public
  "$bin" build --json >"$work/json"
  echo $(( $(json_field "$work/json" read) + $(json_field "$work/json" diff) )) >>"$work/history"
  json_field "$work/json" read >>"$work/read"
  json_field "$work/json" diff >>"$work/diff"
done
f=$(median <"$work/floor"); h=$(median <"$work/history")
echo "$tools tools, $commits commits, $(json_field "$work/json" entries) entries; medians of $runs (range)"
echo "git floor (log of directory prefixes | cat-file --batch): $f ms ($(spread <"$work/floor"))"
echo "history stage (read + replay):                           $h ms ($(spread <"$work/history")) = $(ratio "$h" "$f")x the floor (goal <= 2x)"
echo "  read $(median <"$work/read") ms, replay $(median <"$work/diff") ms"
