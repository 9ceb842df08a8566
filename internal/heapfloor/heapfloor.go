// Package heapfloor lets a program's heap grow to a floor before Go's
// collector runs, and keeps the collector's percentage (GOGC) above it.
//
// The collector starts a cycle once the heap has grown by GOGC percent
// over what the last cycle found live. A build whose live heap is small
// then collects every few megabytes it allocates: a short history's build
// spent a tenth of its history stage collecting a heap of 20 MB, with
// memory to spare. Keep raises the percentage while the live heap is
// small, so that the next cycle starts at the floor, and sets it back once
// the percentage alone reaches past the floor: a long history's build,
// whose memory is what the collector's percentage was chosen for, is
// collected as tightly as before.
package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// minimumLive is the live heap the percentage is worked out from before
// the first cycle has measured one: the runtime's own minimum heap is
// 4 MB at a percentage of 100.
const minimumLive = 4 << 20

// Keep sets the collector's percentage to percent, or higher while the
// live heap is so small that the next cycle would start under floor bytes,
// and works it out again after every cycle until stop is called, which
// sets it to percent.
func Keep(floor uint64, percent int) (stop func()) {
	k := &keeper{floor: floor, percent: percent, live: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	k.adjust()
	k.arm()
	return func() {
		k.stopped.Store(true)
		debug.SetGCPercent(percent)
	}
}

type keeper struct {
	floor   uint64
	percent int
	live    []metrics.Sample
	stopped atomic.Bool
}

// sentinel is what a cycle collects to tell the keeper it ran: a 16-byte
// object, which the runtime allocates on its own (smaller ones without
// pointers share a block, and are collected together).
type sentinel struct{ _ [16]byte }

// arm has the next cycle call adjust: a cleanup runs once a cycle found
// its object unreachable, and this one is at once.
func (k *keeper) arm() {
	runtime.AddCleanup(new(sentinel), func(k *keeper) {
		if k.stopped.Load() {
			return
		}
		k.adjust()
		k.arm()
	}, k)
}

// adjust sets the percentage for the live heap the last cycle measured.
func (k *keeper) adjust() {
	metrics.Read(k.live)
	live := max(k.live[0].Value.Uint64(), minimumLive)
	p := k.percent
	if grown := live + live*uint64(k.percent)/100; grown < k.floor {
		p = int(k.floor*100/live) - 100
	}
	debug.SetGCPercent(p)
}
