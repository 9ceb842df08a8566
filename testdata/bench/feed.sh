#!/usr/bin/env bash
# Benchmark of the change feed: a synthetic site repository with TOOLS tool
# files and COMMITS commits changing them (go run ./internal/benchrepo), and,
# in the same run, the median of RUNS runs of:
#   (a) the floor: git log of the same paths, plus git cat-file --batch of the
#       same blobs (what any reader of this history must at least pay);
#   (b) wellknown's history stage: reading it, diffing, versions and events
#       (the read + diff stages of build --json);
#   (c) the whole build, by stage (read, diff, sign, render, write), with its
#       peak memory (maximum resident set size);
#   (d) the feed's documents: the subscription document's size, the archive
#       documents' count and the total, and the time of one wellknown verify
#       of the built directory, which follows the archives.
# Usage: testdata/bench/feed.sh [TOOLS [COMMITS]]   (RUNS=5 by default; PROFILE=heavy for 2-3 KB tool files)
# SITE=last adds site.toml in the last commit instead of the first (a
# repository adopted after its history); the feed's digest, printed last, is
# the same either way.
source "$(dirname "$0")/lib.sh"
tools=${1:-200}
commits=${2:-10000}
site_last=false
if [ "${SITE:-first}" = last ]; then site_last=true; fi
go run ./internal/benchrepo -tools "$tools" -commits "$commits" -site-last="$site_last" -profile "${PROFILE:-light}" "$work/repo"
cd "$work/repo"

specs=(':(literal)site.toml')
for dir in tools/*/; do specs+=(":(glob)${dir}*.json"); done
log() {
  git -c core.quotepath=off log -z --first-parent --diff-merges=first-parent --raw --no-abbrev \
    --no-renames --root --format=%H%x00%ct HEAD -- "${specs[@]}"
}
log | tr '\0' '\n' | awk '/^:[0-7]+ [0-7]+ /{print $4}' | grep -v '^0\{40\}$' | sort -u >"$work/blobs"

floor_once() { log >/dev/null; git cat-file --batch <"$work/blobs" >/dev/null; }

: >"$work/floor"; : >"$work/builds"
for _ in $(seq "$runs"); do
  ms floor_once >>"$work/floor"
  rm -rf public
  /usr/bin/time -f '%M' -o "$work/rss" "$bin" build --json >"$work/json"
  stage() { grep -o "\"$1\": [0-9]*" "$work/json" | grep -o '[0-9]*$'; }
  echo "$(stage read) $(stage diff) $(stage sign) $(stage render) $(stage write) $(grep -o '"ms": [0-9]*' "$work/json" | grep -o '[0-9]*$') $(cat "$work/rss")" >>"$work/builds"
done

col() { awk -v c="$1" '{print $c}' "$work/builds" | median; }
floor=$(median <"$work/floor")
history=$(awk '{print $1 + $2}' "$work/builds" | median)
echo "machine:  $(nproc) cores, $(git --version), $(go version | cut -d' ' -f3)"
echo "history:  $tools tools, $commits commits, $(wc -l <"$work/blobs") blobs; $(grep -o '"entries": [0-9]*' "$work/json"), $(grep -o '"files": [0-9]*' "$work/json")"
echo "(a) floor (git log + git cat-file --batch):   ${floor} ms"
echo "(b) history stage (read + diff):              ${history} ms = $(awk -v b="$history" -v a="$floor" 'BEGIN {printf "%.2f", b / a}')x the floor"
echo "(c) whole build:                              $(col 6) ms, peak memory $(( $(col 7) / 1024 )) MB"
echo "    by stage: read $(col 1) ms, diff $(col 2) ms, sign $(col 3) ms, render $(col 4) ms, write $(col 5) ms"
feed=public/.well-known/agent-feed.xml
archives=(public/.well-known/agent-feed/archive-*.xml)
[[ -e ${archives[0]} ]] || archives=()
echo "(d) feed: subscription document $(stat -c %s "$feed") bytes, ${#archives[@]} archives, $(cat "$feed" "${archives[@]}" | wc -c) bytes in all;"
echo "    verify of the directory: $(ms "$bin" verify public) ms"
echo "(medians of $runs runs; (d) from the last build)"
echo "feed:     site.toml ${SITE:-first}, sha256 $(sha256sum <public/.well-known/agent-feed.xml | cut -d' ' -f1)"
