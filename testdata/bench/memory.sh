#!/usr/bin/env bash
# Issue 13, row 3: the peak memory (maximum resident set size, /usr/bin/time
# -f %M) of the whole build of 200 tools × 10,000 commits, beside the git
# floor's (its largest process), interleaved in one run (RUNS rounds).
# Usage: testdata/bench/memory.sh [TOOLS [COMMITS]]   (RUNS=5; WELLKNOWN=binary)
source "$(dirname "$0")/lib.sh"
history_repo "$@"
export -f floor
machine
for _ in $(seq "$runs"); do
  /usr/bin/time -f %M -o "$work/rss" bash -c floor
  echo $(( $(cat "$work/rss") / 1024 )) >>"$work/floor"
  rm -rf "$shm"
  /usr/bin/time -f %M -o "$work/rss" "$bin" build --force --out "$shm" >/dev/null
  echo $(( $(cat "$work/rss") / 1024 )) >>"$work/build"
done
echo "$tools tools, $commits commits; medians of $runs (range)"
echo "peak memory of the git floor:  $(median <"$work/floor") MB ($(spread <"$work/floor"))"
echo "peak memory of the build:      $(median <"$work/build") MB ($(spread <"$work/build")) (goal <= 150 MB)"
