package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

const (
	floor    = 64 << 20
	headroom = 32 << 20
)

// read returns the collector's percentage and heap goal now.
func read() (percent, goal uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// collectUntil runs cycles until ok holds: the keeper adjusts after a
// cycle, in the cleanups' goroutine.
func collectUntil(t *testing.T, what string, ok func(percent, goal uint64) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		time.Sleep(time.Millisecond)
		percent, goal := read()
		if ok(percent, goal) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: after cycles the percentage is %d and the heap goal %d MB", what, percent, goal>>20)
		}
	}
}

// near reports whether goal is within 5% of want.
func near(goal, want uint64) bool { return goal > want*95/100 && goal < want*105/100 }

func nearFloor(_, goal uint64) bool { return near(goal, floor) }

// skipUnderAMemoryLimit skips a test where GOMEMLIMIT would set the heap's
// goal instead of the floor or the headroom.
func skipUnderAMemoryLimit(t *testing.T) {
	if limit := debug.SetMemoryLimit(-1); limit < 4*floor {
		t.Skipf("GOMEMLIMIT is %d MB: the heap goals the test checks are under it", limit>>20)
	}
}

// The percentage at each bound, for the build's floor of 64 MB, headroom
// of 32 MB and percentage of 75: the heap goal (live grown by it) meets
// each bound where the next takes over.
func TestPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 1600},            // before a cycle: the runtime's least heap, scaled to the floor
		{2 * mb, 1600},       // the same, below the least heap
		{16 * mb, 300},       // 16 MB grows to the floor
		{36 * mb, 77},        // just under 75% from the floor
		{40 * mb, 75},        // between the bounds
		{42 * mb, 75},        // 75% of it is 31.5 MB, within the headroom
		{48 * mb, 66},        // 32 MB over 48 MB
		{96 * mb, 33},        // 32 MB over 96 MB
		{128 * mb, 25},       // a quarter of it is the headroom
		{512 * mb, 25},       // a quarter of it, not 32 MB
		{64 * 1024 * mb, 25}, // however large
	} {
		if got := percentFor(c.live, floor, headroom, 75); got != c.want {
			t.Errorf("%d MB live: percentage %d, want %d", c.live/mb, got, c.want)
		}
	}
	if got := percentFor(512*mb, floor, headroom, 20); got != 20 {
		t.Errorf("a percentage under a quarter: %d, want the 20 given", got)
	}
}

// hold returns mb megabytes the heap keeps live while they are reachable.
func hold(mb int) [][]byte {
	held := make([][]byte, mb)
	for i := range held {
		held[i] = make([]byte, 1<<20)
		held[i][0] = 1
	}
	return held
}

func TestKeepFollowsTheLiveHeap(t *testing.T) {
	skipUnderAMemoryLimit(t)
	stop := Keep(floor, headroom, 75)
	defer stop()
	collectUntil(t, "a small live heap", func(percent, goal uint64) bool { return percent > 75 && nearFloor(percent, goal) })

	// 40 MB live: 75% more is past the floor, and within the headroom
	// (which 75% of 42.7 MB reaches).
	held := hold(40)
	collectUntil(t, "40 MB live", func(percent, goal uint64) bool { return percent == 75 && goal > 40<<20*7/4 })

	// 96 MB live: 75% more would be 72 MB over it; the headroom is 32.
	held = append(held, hold(56)...)
	collectUntil(t, "96 MB live", func(percent, goal uint64) bool {
		return percent > 25 && percent < 75 && near(goal, 96<<20+headroom)
	})

	// 16 MB live: the floor again, at a percentage that reaches it.
	clear(held[16:])
	collectUntil(t, "16 MB live", func(percent, goal uint64) bool { return percent > 75 && nearFloor(percent, goal) })
	runtime.KeepAlive(held)
}

// A headroom that is a small part of the live heap takes the percentage
// down to a quarter, not under it.
func TestKeepGrowsALargeHeapByAQuarter(t *testing.T) {
	skipUnderAMemoryLimit(t)
	stop := Keep(floor, 8<<20, 75)
	defer stop()
	held := hold(96) // 8 MB would be 8%
	collectUntil(t, "96 MB live", func(percent, goal uint64) bool { return percent == 25 && near(goal, 96<<20*5/4) })
	runtime.KeepAlive(held)
}

// Stop sets the percentage back, also while cycles run and adjust it, and
// no cycle after it changes it again.
func TestStopSetsThePercentage(t *testing.T) {
	skipUnderAMemoryLimit(t)
	for range 20 {
		// A headroom of 64 MB keeps 75 for 48 MB live (32 MB would not).
		stop := Keep(floor, 64<<20, 75)
		// A cycle's adjustment has run once 48 MB live brings 75 back.
		held := make([]byte, 48<<20)
		held[0] = 1
		collectUntil(t, "48 MB live", func(percent, _ uint64) bool { return percent == 75 })
		runtime.KeepAlive(held)
		done := make(chan bool)
		go func() {
			for i := 0; i < 3; i++ {
				runtime.GC()
			}
			close(done)
		}()
		stop()
		<-done
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		if percent, _ := read(); percent != 75 {
			t.Fatalf("after stop, and cycles, the percentage is %d, not 75", percent)
		}
	}
}
