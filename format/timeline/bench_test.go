package timeline

import (
	"fmt"
	"runtime"
	"testing"
)

// benchEvents is how many events the events benchmark holds: about the
// schema changes of a history of 200,000 commits, to 200 tools.
const benchEvents = 200_000

// The heap a long history's schema changes cost the timeline's events,
// from the replay until the changelog is planned.
func BenchmarkEventsHeld(b *testing.B) {
	tools := make([]*ToolHistory, 200)
	for i := range tools {
		tools[i] = &ToolHistory{Server: "com.example/bench", Name: fmt.Sprintf("tool_%d", i)}
	}
	var heap uint64
	for b.Loop() {
		b.StopTimer()
		before := heapAlloc()
		b.StartTimer()
		var l eventList
		toolAt := map[*ToolHistory]uint32{}
		for i := range benchEvents {
			l.append(eventAt{l.toolIndex(tools[i%len(tools)], toolAt) + 1, int32(i / len(tools))})
		}
		b.StopTimer()
		heap = heapAlloc() - before
		runtime.KeepAlive(l)
		b.StartTimer()
	}
	b.ReportMetric(float64(heap)/benchEvents, "bytes/event")
}

// heapAlloc is the heap in use once the garbage is collected.
func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
