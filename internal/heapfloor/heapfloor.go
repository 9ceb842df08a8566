// Package heapfloor paces Go's collector between two bounds: it lets a
// program's heap grow to a floor before the collector runs, and, once the
// live heap is large, by no more than a headroom over it, or a quarter of
// it where that is more.
//
// The collector starts a cycle once the heap has grown by GOGC percent
// over what the last cycle found live, or to the runtime's least heap
// (4 MB at a percentage of 100). A program whose live heap is small then
// collects every few megabytes it allocates, though it has memory to
// spare: Keep raises the percentage after each cycle while the live heap
// is so small that the next cycle would start under the floor. A program
// whose live heap is large holds, at its peak, the percentage of it on
// top, which grows with the heap: Keep lowers the percentage while it
// would grow the heap by more than the headroom, so that up to four times
// the headroom the peak is the live heap and a constant. Past that the
// heap grows by a quarter of itself (see leastPercent). Between the
// bounds, the percentage is left as given.
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

// leastPercent is as low as the headroom takes the percentage. A cycle
// marks the whole live heap, so a fixed headroom over a heap many times
// larger would have the collector mark it again every few megabytes: past
// four times the headroom, the heap grows by a quarter of itself.
const leastPercent = 25

// Keep sets the collector's percentage to percent; higher while the live
// heap is so small that the next cycle would start under floor bytes; and
// lower, though not under leastPercent, while it would let the heap grow
// by more than headroom bytes (a percent under leastPercent is kept). It
// works the percentage out again after every cycle until stop is called,
// which sets it to percent. One Keep at a time: two would set the one
// percentage by turns.
func Keep(floor, headroom uint64, percent int) (stop func()) {
	k := &keeper{floor: floor, headroom: headroom, percent: percent, live: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
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
	floor    uint64
	headroom uint64
	percent  int
	live     []metrics.Sample

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

// adjust sets the percentage for the live heap the last cycle measured
// (see percentFor). The caller holds mu.
func (k *keeper) adjust() {
	metrics.Read(k.live)
	debug.SetGCPercent(percentFor(k.live[0].Value.Uint64(), k.floor, k.headroom, k.percent))
}

// percentFor is the percentage for a live heap of live bytes. The next
// cycle starts at the larger of the live heap grown by the percentage and
// the runtime's least heap scaled by it, so the percentage that starts it
// at the floor is the smaller of the two that reach it. Past the floor,
// the percentage is the smaller of the one given and the one that grows
// the live heap by the headroom, but not under leastPercent.
func percentFor(live, floor, headroom uint64, percent int) int {
	l, f := int64(max(live, 1)), int64(floor)
	toFloor := min(f*100/l-100, f*100/minimumHeap)
	toHeadroom := min(int64(percent), max(int64(headroom)*100/l, leastPercent))
	return int(max(toFloor, toHeadroom))
}
