#!/usr/bin/env bash
# Issue 13, row 5: wellknown serve, from saving a file to the reload event
# (the 100 ms debounce included), on the example site and on 1,000 tools,
# beside the rebuild's own time: the Go benchmarks of generator/serve, which
# edit a tool file and wait for the reload event, RUNS times each.
# Usage: testdata/bench/serve.sh   (RUNS=5)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${RUNS:-5}
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
go test ./generator/serve/ -run '^$' -bench Rebuild -benchtime 10x -count "$runs" |
  awk '/^BenchmarkRebuild/ {name=$1; sub(/-[0-9]+$/, "", name); ev[name]=ev[name] " " $3/1e6; b[name]=b[name] " " $5}
    function med(s,   a, n) { n = split(s, a, " "); asort(a); return a[int((n+1)/2)] }
    END {for (n in ev) printf "%-28s save -> reload event %.0f ms (goal <= 250 ms for a tool edit), of which the rebuild %.0f ms; medians of %d\n", n, med(ev[n]), med(b[n]), split(ev[n], x, " ")}'
