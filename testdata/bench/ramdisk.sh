#!/usr/bin/env bash
# Issue 13, row 2: the whole build of 200 tools × 10,000 commits into a RAM
# disk (--out /dev/shm/…), beside the same build on disk and the git floor,
# interleaved in one run (RUNS rounds); every build starts from an empty
# output directory.
# Usage: testdata/bench/ramdisk.sh [TOOLS [COMMITS]]   (RUNS=5; WELLKNOWN=binary)
source "$(dirname "$0")/lib.sh"
history_repo "$@"
machine
for _ in $(seq "$runs"); do
  ms floor >>"$work/floor"
  rm -rf "$shm"
  ms "$bin" build --force --out "$shm" >>"$work/ram"
  rm -rf public
  ms "$bin" build >>"$work/disk"
done
r=$(median <"$work/ram")
echo "$tools tools, $commits commits, $(find "$shm" -type f | wc -l) files; medians of $runs (range)"
echo "git floor:                    $(median <"$work/floor") ms ($(spread <"$work/floor"))"
echo "whole build into a RAM disk:  $r ms ($(spread <"$work/ram")) (goal <= 1500 ms)"
echo "whole build on disk:          $(median <"$work/disk") ms ($(spread <"$work/disk"))"
