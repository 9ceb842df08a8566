#!/usr/bin/env bash
# Issue 13, row 1: the history stage (read + replay) of 200 tools × 10,000
# commits against the git floor (lib.sh, floor), interleaved in one run:
# each of RUNS rounds runs the floor, then a build, whose read and diff
# stages (build --json) are the history stage. BEFORE=binary adds, in each
# round, a build by that binary (an older wellknown), for a before/after
# measured under the same load.
# Usage: testdata/bench/history.sh [TOOLS [COMMITS]]   (RUNS=5; WELLKNOWN=binary)
source "$(dirname "$0")/lib.sh"
history_repo "$@"
machine
# stages BINARY NAME builds once and records the history stage as NAME.
stages() {
  rm -rf public
  "$1" build --json >"$work/json"
  echo $(( $(json_field "$work/json" read) + $(json_field "$work/json" diff) )) >>"$work/$2"
  echo "$(json_field "$work/json" read) $(json_field "$work/json" diff)" >>"$work/$2.stages"
}
# report NAME prints the history stage recorded as NAME against the floor.
report() {
  local h; h=$(median <"$work/$1")
  printf '%-55s %s ms (%s) = %sx the floor (goal <= 2x)\n' "history stage (read + replay), $1:" "$h" "$(spread <"$work/$1")" "$(ratio "$h" "$f")"
  echo "  read $(awk '{print $1}' "$work/$1.stages" | median) ms, replay $(awk '{print $2}' "$work/$1.stages" | median) ms"
}
for _ in $(seq "$runs"); do
  ms floor >>"$work/floor"
  stages "$bin" this
  [ -z "${BEFORE:-}" ] || stages "$BEFORE" before
done
f=$(median <"$work/floor")
echo "$(json_field "$work/json" entries) entries; medians of $runs (range)"
printf '%-55s %s ms (%s)\n' "git floor (log of directory prefixes | cat-file --batch):" "$f" "$(spread <"$work/floor")"
report this
[ -z "${BEFORE:-}" ] || report before
