// Package parallel spreads independent work over every processor.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls f(0) … f(n-1), on every processor; it returns when all calls
// have. The calls must be independent of each other.
func For(n int, f func(i int)) { ForAtMost(runtime.GOMAXPROCS(0), n, f) }

// ForAtMost is For with at most workers calls at a time, for work that
// waits on something other than the processors (the network).
func ForAtMost(workers, n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		})
	}
	wg.Wait()
}
