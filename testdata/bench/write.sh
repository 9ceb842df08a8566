#!/usr/bin/env bash
# Benchmark of writing the output: the first build into an empty output
# directory against a rebuild with nothing changed (which writes no file),
# on the example site and on a generated site of about 4,000 files
# (go run ./internal/benchrepo). Prints the medians of RUNS runs of the
# whole build and of its write stage (build --json).
# Usage: testdata/bench/write.sh [TOOLS [COMMITS]]   (RUNS=5 by default;
# WELLKNOWN=path measures that binary instead of one built from here)
source "$(dirname "$0")/lib.sh"
tools=${1:-200}
commits=${2:-4000}
mkdir "$work/example"
cp -r content "$work/example/" && cp site.example.toml "$work/example/site.toml"
(cd "$work/example" && git init -q -b main && git add -A &&
  git -c user.name=b -c user.email=b@example.com commit -q -m example)
go run ./internal/benchrepo -tools "$tools" -commits "$commits" "$work/generated"
field() { json_field "$work/json" "$1"; }
# measure SITE FIRST: one build, after emptying the output when FIRST is 1;
# records the whole build's and the write stage's milliseconds.
measure() {
  (cd "$work/$1" && { [ "$2" = 0 ] || rm -rf public; } && "$bin" build --json >"$work/json" 2>/dev/null)
  echo "$(field ms) $(field write) $(field written) $(field unchanged)" >>"$work/$1.$2"
}
echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3)"
for site in example generated; do
  for _ in $(seq "$runs"); do measure "$site" 1; measure "$site" 0; done
  col() { awk -v c="$2" '{print $c}' "$work/$site.$1" | median; }
  echo "$site: $(field files) files"
  echo "  first build:          $(col 1 1) ms, write stage $(col 1 2) ms ($(col 1 3) files written)"
  echo "  rebuild, no change:   $(col 0 1) ms, write stage $(col 0 2) ms ($(col 0 3) written, $(col 0 4) unchanged)"
done
echo "(medians of $runs runs)"
