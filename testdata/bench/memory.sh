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
# collector's headroom, and the same in each stage of the build, which at
# two lengths of history shows what grows with it; and, for each (the
# floor at git's own settings), the most its processes held at once
# (tree_peak in lib.sh), where /usr/bin/time gives only the largest one's.
# Usage: PROFILE=heavy testdata/bench/memory.sh [TOOLS [COMMITS]]   (RUNS=5; WELLKNOWN=binary)
source "$(dirname "$0")/lib.sh"
history_repo "$@"
export -f floor
machine
# measure BINARY NAME builds into $shm/NAME, recording its peak memory in MB
# as NAME, its largest live Go heap in MB as NAME.heap, the largest in each
# stage as NAME.stages (see stage_heaps) and its wall time in ms as NAME.ms.
measure() {
  rm -rf "$shm/$2"
  GODEBUG=gctrace=1 /usr/bin/time -f '%M %e' -o "$work/rss" "$1" build --force --json --out "$shm/$2" >"$work/json" 2>"$work/gctrace" &
  background=$!
  tree_peak "$background" >>"$work/$2.tree"
  wait "$background" || { grep -v '^gc ' "$work/gctrace" >&2; exit 1; }
  background=
  read -r kb s <"$work/rss"
  echo $(( kb / 1024 )) >>"$work/$2"
  # A gctrace line holds "heap at start->at end->live MB".
  grep -o '[0-9]*->[0-9]*->[0-9]* MB' "$work/gctrace" | awk -F'->' '{split($3, l, " "); if (l[1] > m) m = l[1]} END {print m + 0}' >>"$work/$2.heap"
  awk -v s="$s" 'BEGIN {printf "%d\n", s * 1000}' >>"$work/$2.ms"
  stage_heaps >>"$work/$2.stages"
}
# stages are the build's stages, in the order they run.
stages=(read diff sign render write)
# stage_heaps prints, for the build whose output is in $work/json and
# $work/gctrace, the largest live Go heap in MB a cycle found in each stage
# ("-" for a stage no cycle ran in): what the stage holds, so that runs at
# two lengths of history show which stage's memory grows with it. A cycle
# is placed in a stage by its time since the process started ("@1.234s")
# and the stages' times in build --json, which follow one another.
stage_heaps() {
  local bounds=() end=0 name
  for name in "${stages[@]}"; do
    end=$((end + $(json_field "$work/json" "$name")))
    bounds+=("$end")
  done
  grep '^gc ' "$work/gctrace" | awk -v bounds="${bounds[*]}" '
    BEGIN { n = split(bounds, end, " ") }
    {
      at = substr($3, 2) * 1000
      match($0, /[0-9]+->[0-9]+->[0-9]+ MB/)
      split(substr($0, RSTART, RLENGTH), h, "->")
      live = h[3] + 0
      for (i = 1; i < n && at > end[i]; i++)
        ;
      if (live > max[i]) max[i] = live
      seen[i] = 1
    }
    END { for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? " " : ""), (seen[i] ? max[i] : "-"); print "" }'
}
# stage_medians NAME prints the median of each stage's largest live heap.
stage_medians() {
  local i m out=()
  for i in "${!stages[@]}"; do
    m=$(awk -v f=$((i + 1)) '$f != "-" {print $f}' "$work/$1.stages" | median)
    out+=("${stages[$i]} ${m:--}")
  done
  local IFS=,
  echo "${out[*]}" | sed 's/,/, /g'
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
[ -z "${BEFORE:-}" ] || echo "Go heap by stage, before:      $(stage_medians before) MB (the most a cycle found live in each)"
echo "Go heap by stage:              $(stage_medians build) MB (the most a cycle found live in each)"
if [ -n "${BEFORE:-}" ]; then
  if diff -r "$shm/before" "$shm/build" >/dev/null; then
    echo "outputs of before and now: identical (diff -r, $(find "$shm/build" -type f | wc -l) files)"
  else
    echo "outputs of before and now: DIFFERENT (diff -r)"
    exit 1
  fi
fi
