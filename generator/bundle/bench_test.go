//go:build unix

package bundle

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/paths"
)

// benchFiles is about the generated site of BENCHMARKS.md.
const benchFiles = 4000

// A write into an empty directory: every file staged and renamed.
func BenchmarkWriteDirFirst(b *testing.B) {
	site := sampleSite(b, 1, benchFiles)
	for b.Loop() {
		b.StopTimer()
		out := filepath.Join(b.TempDir(), "public")
		b.StartTimer()
		if _, err := site.WriteDir(out, WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// A write of the same site again: every file compared, none written.
func BenchmarkWriteDirUnchanged(b *testing.B) {
	site := sampleSite(b, 1, benchFiles)
	out := filepath.Join(b.TempDir(), "public")
	if _, err := site.WriteDir(out, WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := site.WriteDir(out, WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// archivePaths are n paths of archived tool versions, shaped like a long
// history's: 200 tools of 4 servers, each with n/200 versions, numbered
// (three tools in four) or timestamped, in the order a build adds them
// (tool by tool).
func archivePaths(n int) []string {
	const tools = 200
	out := make([]string, 0, n)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range n {
		tool, v := i/(n/tools), i%(n/tools)
		version := "1.0." + strconv.Itoa(v)
		if tool%4 == 3 {
			version = at.Add(time.Duration(v) * time.Hour).Format("2006-01-02T15-04-05Z")
		}
		out = append(out, paths.ToolVersion(fmt.Sprintf("bench-server-%d", tool%4), fmt.Sprintf("tool_%d_search", tool), version))
	}
	return out
}

// benchRecords is how many records the records benchmarks hold: about
// the archived versions of a history of 200,000 commits.
const benchRecords = 200_000

// Adding a long history's archived versions as the feed stage does: each
// looked for (Get), then added from the spool (AddSpooled, which checks
// its path); and the heap the bundle holds for them, once it is asked
// for their order as every stage after does.
func BenchmarkRecordsAdd(b *testing.B) {
	b.Setenv("TMPDIR", b.TempDir())
	s, err := NewSpool()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	at, err := s.Put([]byte("{}"))
	if err != nil {
		b.Fatal(err)
	}
	ps := archivePaths(benchRecords)
	var heap uint64
	for b.Loop() {
		b.StopTimer()
		before := heapAlloc()
		b.StartTimer()
		bundle := NewSpooled(s)
		for _, p := range ps {
			if _, ok := bundle.Get(p); ok {
				b.Fatal(p)
			}
			if err := bundle.AddSpooled(p, at, "application/json"); err != nil {
				b.Fatal(err)
			}
		}
		bundle.list()
		b.StopTimer()
		heap = heapAlloc() - before
		runtime.KeepAlive(bundle)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRecords), "ns/record")
	b.ReportMetric(float64(heap)/benchRecords, "bytes/record")
}

// Finding each record of a long history: in the order they were added,
// and shuffled.
func BenchmarkRecordsFind(b *testing.B) {
	ps := archivePaths(benchRecords)
	r := newRecords()
	for _, p := range ps {
		r.add(p, &Spooled{size: 3000}, "application/json")
	}
	r.order()
	find := func(b *testing.B, ps []string) {
		i := 0
		for b.Loop() {
			if _, ok := r.find(ps[i]); !ok {
				b.Fatal(ps[i])
			}
			i = (i + 1) % len(ps)
		}
	}
	b.Run("added", func(b *testing.B) { find(b, ps) })
	shuffled := slices.Clone(ps)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	b.Run("shuffled", func(b *testing.B) { find(b, shuffled) })
}

// heapAlloc is the heap in use once the garbage is collected.
func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
