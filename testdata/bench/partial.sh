#!/usr/bin/env bash
# Benchmark of a build in a partial ("blobless") clone, Netlify's default,
# against the same build in a full clone: a synthetic site repository with
# TOOLS tool files and COMMITS commits (go run ./internal/benchrepo), served
# from a file:// remote that allows filters, and the median of RUNS builds
# of each, every one in a fresh clone (a build leaves the partial clone
# complete), with the clone flushed to disk first (the build's own writes
# would otherwise wait for the clone's). Each line gives the whole build and
# its read stage (git history and blobs), where the two differ. For scale,
# (c) is what reading the blobs costs when git fetches each one on demand,
# as builds did before: git cat-file --batch in a fresh partial clone (once).
# Usage: testdata/bench/partial.sh [TOOLS [COMMITS]]   (RUNS=5 by default)
source "$(dirname "$0")/lib.sh"
tools=${1:-50}
commits=${2:-600}
go run ./internal/benchrepo -tools "$tools" -commits "$commits" "$work/origin"
git -C "$work/origin" config uploadpack.allowFilter true
# quiet_ms is lib.sh's ms, with the command's standard error silenced too.
quiet_ms() { ms "$@" 2>/dev/null; }
fresh() { rm -rf "$work/clone"; git clone --quiet "$@" "file://$work/origin" "$work/clone"; sync; }
# build appends "<whole build ms> <read stage ms>" to the file $1.
build() {
  local json
  json=$(cd "$work/clone" && "$bin" build --json 2>/dev/null | tr -d ' \n')
  echo "$json" | sed -E 's/.*"read":([0-9]+).*"ms":([0-9]+).*/\2 \1/' >>"$1"
}
on_demand() {
  git -C "$work/clone" log --format= --raw --no-abbrev --no-renames HEAD |
    awk '{print $4}' | grep -v '^0\{40\}$' | sort -u | git -C "$work/clone" cat-file --batch
}

: >"$work/full"; : >"$work/partial"
for _ in $(seq "$runs"); do
  fresh; build "$work/full"
  fresh --filter=blob:none; build "$work/partial"
done
fresh --filter=blob:none
demand=$(quiet_ms on_demand)
fresh --filter=blob:none
notice=$(cd "$work/clone" && "$bin" build 2>&1 >/dev/null | grep 'partial clone' || true)

col() { awk -v c="$2" '{print $c}' "$1" | median; }
full=$(col "$work/full" 1)
partial=$(col "$work/partial" 1)
echo "machine:  $(nproc) cores, $(git --version), $(go version | cut -d' ' -f3)"
echo "history:  $tools tools, $commits commits"
echo "(a) build, full clone:                  ${full} ms (read stage $(col "$work/full" 2) ms)"
echo "(b) build, partial clone (blob:none):   ${partial} ms (read stage $(col "$work/partial" 2) ms) = $(awk -v b="$partial" -v a="$full" 'BEGIN {printf "%.2f", b / a}')x the full clone"
echo "(c) on-demand blob reads, partial clone: ${demand} ms (git cat-file --batch alone, one run)"
echo "    ${notice#*notice: }"
echo "(medians of $runs runs, each in a fresh clone)"
