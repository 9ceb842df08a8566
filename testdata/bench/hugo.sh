#!/usr/bin/env bash
# Issue 13, row 4, and issue 21: the same content built by wellknown and by Hugo
# (go run ./internal/benchsite: PAGES Markdown pages of about 460 words and
# TOOLS tools with 2 to 10 parameters), interleaved in one run (RUNS rounds):
# wellknown on disk into an empty output, Hugo on disk into an empty output,
# wellknown again with nothing changed, wellknown into a RAM disk, and cp -r
# of that output onto the disk (the floor of writing those files).
# Installs Debian's hugo with apt-get when it is missing.
# Usage: testdata/bench/hugo.sh [PAGES [TOOLS]]   (RUNS=5; WELLKNOWN=binary)
source "$(dirname "$0")/lib.sh"
pages=${1:-2000}
tools=${2:-1000}
if ! command -v hugo >/dev/null; then
  sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get install -y --no-install-recommends hugo >/dev/null
fi
go run ./internal/benchsite -pages "$pages" -tools "$tools" "$work/site"
machine
echo "$(hugo version | cut -d' ' -f1-2)"
wk=$work/site/wellknown
for _ in $(seq "$runs"); do
  rm -rf "$wk/public" "$work/site/hugo/public"
  (cd "$wk" && ms "$bin" build) >>"$work/first"
  (cd "$work/site/hugo" && ms hugo --quiet -d public) >>"$work/hugo"
  (cd "$wk" && ms "$bin" build) >>"$work/again"
  rm -rf "$shm"
  (cd "$wk" && ms "$bin" build --force --out "$shm") >>"$work/ram"
  rm -rf "$work/copy"
  ms cp -r "$shm" "$work/copy" >>"$work/copy.ms"
done
first=$(median <"$work/first"); hugo=$(median <"$work/hugo"); again=$(median <"$work/again"); ram=$(median <"$work/ram")
echo "$pages pages, $tools tools: wellknown $(find "$wk/public" -type f | wc -l) files, Hugo $(find "$work/site/hugo/public" -type f | wc -l) files; medians of $runs (range)"
echo "wellknown on disk:              $first ms ($(spread <"$work/first"))"
echo "Hugo on disk:                   $hugo ms ($(spread <"$work/hugo")): wellknown takes $(ratio "$first" "$hugo")x Hugo's time (goal < 1x; issue 13's: <= 0.5x)"
echo "wellknown into a RAM disk:      $ram ms ($(spread <"$work/ram"))"
copy=$(median <"$work/copy.ms")
echo "cp -r of that output to disk:   $copy ms ($(spread <"$work/copy.ms")): the disk's share of a build on disk"
echo "wellknown, nothing changed:     $again ms ($(spread <"$work/again")) = $(ratio "$again" "$ram")x the RAM-disk build (goal <= 1.3x)"
