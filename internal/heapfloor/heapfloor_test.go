package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

const floor = 64 << 20

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

func nearFloor(_, goal uint64) bool { return goal > floor*95/100 && goal < floor*105/100 }

// skipUnderAMemoryLimit skips a test where GOMEMLIMIT would set the heap's
// goal instead of the floor.
func skipUnderAMemoryLimit(t *testing.T) {
	if limit := debug.SetMemoryLimit(-1); limit < 4*floor {
		t.Skipf("GOMEMLIMIT is %d MB: the heap goals the test checks are under it", limit>>20)
	}
}

func TestKeepFollowsTheLiveHeap(t *testing.T) {
	skipUnderAMemoryLimit(t)
	stop := Keep(floor, 75)
	defer stop()
	collectUntil(t, "a small live heap", func(percent, goal uint64) bool { return percent > 75 && nearFloor(percent, goal) })

	// 48 MB live: 75% more is past the floor.
	held := make([][]byte, 48)
	for i := range held {
		held[i] = make([]byte, 1<<20)
		held[i][0] = 1
	}
	collectUntil(t, "48 MB live", func(percent, goal uint64) bool { return percent == 75 && goal > 48<<20*7/4 })

	// 16 MB live: the floor again, at a percentage that reaches it.
	clear(held[16:])
	collectUntil(t, "16 MB live", func(percent, goal uint64) bool { return percent > 75 && nearFloor(percent, goal) })
	runtime.KeepAlive(held)
}

// Stop sets the percentage back, also while cycles run and adjust it, and
// no cycle after it changes it again.
func TestStopSetsThePercentage(t *testing.T) {
	skipUnderAMemoryLimit(t)
	for range 20 {
		stop := Keep(floor, 75)
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
