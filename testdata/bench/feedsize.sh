#!/usr/bin/env bash
# Issue 13, row 6: the size of the feed document that subscribers fetch
# (.well-known/agent-feed.xml) at 200 tools × 10,000 commits, against the
# 1 MB goal and the 16 MiB a document may have in wellknown verify. The
# build is deterministic, so one build gives the figure.
# Usage: testdata/bench/feedsize.sh [TOOLS [COMMITS]]   (WELLKNOWN=binary)
source "$(dirname "$0")/lib.sh"
history_repo "$@"
"$bin" build --json >"$work/json"
feed=public/.well-known/agent-feed.xml
size=$(stat -c %s "$feed")
echo "$tools tools, $commits commits: $(json_field "$work/json" entries) entries"
echo "feed document: $size bytes = $(ratio "$size" 1048576) MiB, $(grep -c '<entry' "$feed") entries in it (goal <= 1 MB; verify refuses > 16 MiB)"
echo "sha256 $(sha256sum <"$feed" | cut -d' ' -f1)"
