// Package heapfloor lets a program's heap grow to a floor before Go's
// collector runs, and leaves the collector's percentage (GOGC) as it is
// for a heap that grows past the floor anyway.
//
// The collector starts a cycle once the heap has grown by GOGC percent
// over what the last cycle found live, or to the runtime's least heap
// (4 MB at a percentage of 100). A program whose live heap is small then
// collects every few megabytes it allocates, though it has memory to
// spare. Keep raises the percentage after each cycle while the live heap
// is so small that the next cycle would start under the floor, and sets it
// back once it is not: a program whose live heap is large, for which the
// percentage was chosen, is collected as tightly as before.
package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// minimumHeap is the runtime's least heap goal at a percentage of 100;
// at another percentage it is scaled by it.
const minimumHeap = 4 << 20

// Keep sets the collector's percentage to percent, or higher while the
// live heap is so small that the next cycle would start under floor bytes,
// and works it out again after every cycle until stop is called, which
// sets it to percent. One Keep at a time: two would set the one
// percentage by turns.
func Keep(floor uint64, percent int) (stop func()) {
	k := &keeper{floor: floor, percent: percent, live: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	k.mu.Lock()
	k.adjust()
	k.mu.Unlock()
	k.arm()
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		k.stopped = true
		debug.SetGCPercent(percent)
	}
}

type keeper struct {
	floor   uint64
	percent int
	live    []metrics.Sample

	// mu keeps a cycle's adjustment from setting the percentage after
	// stop has set it back.
	mu      sync.Mutex
	stopped bool
}

// sentinel is what a cycle collects to tell the keeper it ran. At 16
// bytes it is allocated on its own: the runtime packs smaller objects
// without pointers into shared blocks, which may keep a cleanup from
// ever running.
type sentinel struct{ _ [16]byte }

// arm has the next cycle adjust the percentage: a cleanup runs once a
// cycle has found its object unreachable, as this one is at once.
func (k *keeper) arm() {
	runtime.AddCleanup(new(sentinel), func(k *keeper) {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.stopped {
			return
		}
		k.adjust()
		k.arm()
	}, k)
}

// adjust sets the percentage for the live heap the last cycle measured.
// The next cycle starts at the larger of the live heap grown by the
// percentage and the runtime's least heap scaled by it, so the percentage
// that starts it at the floor is the smaller of the two that reach it.
// The caller holds mu.
func (k *keeper) adjust() {
	metrics.Read(k.live)
	live := int64(max(k.live[0].Value.Uint64(), 1))
	floor := int64(k.floor)
	p := min(floor*100/live-100, floor*100/minimumHeap)
	debug.SetGCPercent(int(max(p, int64(k.percent))))
}
