#!/usr/bin/env bash
# Issue 13, row 3, and issue 21: the peak memory (maximum resident set size,
# /usr/bin/time -f %M) and wall time of the whole build of TOOLS tools ×
# COMMITS commits in the profile PROFILE (light or heavy, see lib.sh), beside
# the git floor's peak memory (its largest process), interleaved in one run
# (RUNS rounds). BEFORE=binary adds, in each round, a build by that binary
# (an older wellknown) with the same key, and checks that both wrote the
# same files byte for byte (diff -r). Beside each build's peak memory it
# prints its Go heap at its largest: the most the heap held live after a
# collection (GODEBUG=gctrace=1), what the process itself keeps, without the
# collector's headroom; and, for each (the floor at git's own settings),
# the most its processes held at once (tree_peak in lib.sh), where
# /usr/bin/time gives only the largest one's.
# Usage: PROFILE=heavy testdata/bench/memory.sh [TOOLS [COMMITS]]   (RUNS=5; WELLKNOWN=binary)
source "$(dirname "$0")/lib.sh"
history_repo "$@"
export -f floor
machine
# measure BINARY NAME builds into $shm/NAME, recording its peak memory in MB
# as NAME, its largest live Go heap in MB as NAME.heap and its wall time in
# ms as NAME.ms.
measure() {
  rm -rf "$shm/$2"
  GODEBUG=gctrace=1 /usr/bin/time -f '%M %e' -o "$work/rss" "$1" build --force --out "$shm/$2" >/dev/null 2>"$work/gctrace" &
  background=$!
  tree_peak "$background" >>"$work/$2.tree"
  wait "$background" || { grep -v '^gc ' "$work/gctrace" >&2; exit 1; }
  background=
  read -r kb s <"$work/rss"
  echo $(( kb / 1024 )) >>"$work/$2"
  # A gctrace line holds "heap at start->at end->live MB".
  grep -o '[0-9]*->[0-9]*->[0-9]* MB' "$work/gctrace" | awk -F'->' '{split($3, l, " "); if (l[1] > m) m = l[1]} END {print m + 0}' >>"$work/$2.heap"
  awk -v s="$s" 'BEGIN {printf "%d\n", s * 1000}' >>"$work/$2.ms"
}
for _ in $(seq "$runs"); do
  /usr/bin/time -f %M -o "$work/rss" bash -c floor &
  background=$!
  tree_peak "$background" >>"$work/floor.tree"
  wait "$background"
  background=
  echo $(( $(cat "$work/rss") / 1024 )) >>"$work/floor"
  [ -z "${BEFORE:-}" ] || measure "$BEFORE" before
  measure "$bin" build
done
echo "$profile profile, $tools tools, $commits commits; medians of $runs (range)"
echo "peak memory of the git floor:  $(median <"$work/floor") MB ($(spread <"$work/floor")); its processes at once $(median <"$work/floor.tree") MB (at git's own settings)"
if [ -n "${BEFORE:-}" ]; then
  echo "peak memory, before:           $(median <"$work/before") MB ($(spread <"$work/before")); Go heap $(median <"$work/before.heap") MB ($(spread <"$work/before.heap")); build $(median <"$work/before.ms") ms ($(spread <"$work/before.ms")); its processes at once $(median <"$work/before.tree") MB ($(spread <"$work/before.tree"))"
fi
echo "peak memory of the build:      $(median <"$work/build") MB ($(spread <"$work/build")); Go heap $(median <"$work/build.heap") MB ($(spread <"$work/build.heap")); build $(median <"$work/build.ms") ms ($(spread <"$work/build.ms")) (goal <= 150 MB at 10,000 commits, <= 200 MB at 100,000)"
echo "  its processes at once:       $(median <"$work/build.tree") MB ($(spread <"$work/build.tree")) (wellknown and its git processes, sampled every 20 ms; see tree_peak)"
if [ -n "${BEFORE:-}" ]; then
  if diff -r "$shm/before" "$shm/build" >/dev/null; then
    echo "outputs of before and now: identical (diff -r, $(find "$shm/build" -type f | wc -l) files)"
  else
    echo "outputs of before and now: DIFFERENT (diff -r)"
    exit 1
  fi
fi
