package replay

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/wellknown-dev/wellknown/format/canonjson"
	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
)

// comparisons are the schema comparisons a replay will ask for, made on
// the other cores while it runs instead of one after the other in it: at
// each tool file's path, each version against the one before. They are
// known from the log alone, and they were the largest part of the replay's
// time.
type comparisons struct {
	forms   *forms            // where the versions' canonical forms are
	index   map[[2]string]int // by the SHA-256 of the two versions
	pairs   [][2]tools.Tool   // the versions to compare, dropped once compared
	files   []fileAt          // the file each pair's versions are at
	results []schemadiff.Result
	claimed []atomic.Bool // set by whoever makes the comparison
	stopped atomic.Bool   // the replay is over: compare no more
	workers sync.WaitGroup
	next    int // the first comparison compare may make ahead (see compare), read by it only

	mu sync.Mutex
	// done says, under mu, which results are there; doneCond signals each.
	// One flag a comparison, not a channel: a long history has a hundred
	// thousand of them.
	done     []bool
	doneCond *sync.Cond
	// last holds, by file, the newer version of its last comparison,
	// decoded: the older version of its next one, which is then not
	// decoded a second time, and from which the version after it takes
	// every value it did not change (see canonjson.DecodeForm). One
	// object per file, not per version.
	last map[fileAt]decoded
}

// decoded is a version of a tool file decoded.
type decoded struct {
	sha256 string
	form   *canonjson.Form
}

// fileAt is a tool file of repository repo.
type fileAt struct {
	repo int
	path string
}

// compareAhead starts comparing, oldest first, the versions of each tool
// file the steps change, as far as they parsed, with the same name: what
// the timeline compares when a tool stays in one file. Its compare method
// waits for a comparison under way, and makes one not started yet or not
// planned itself; stop ends the work.
func (h *historyReader) compareAhead(steps []step) *comparisons {
	c := &comparisons{forms: h.forms, index: map[[2]string]int{}, last: map[fileAt]decoded{}}
	last := make([]map[string]tools.Tool, len(h.repos)) // by repository, the last version at each path
	for i := range last {
		last[i] = map[string]tools.Tool{}
	}
	for _, s := range steps {
		rh := h.repos[s.repo]
		for _, ch := range s.commit.Changes {
			if ch.Blob == "" {
				delete(last[s.repo], ch.Path)
				continue
			}
			parsed, ok := rh.parsed[ch.Blob]
			if !ok || parsed.err != nil {
				continue // not a tool file, or one that keeps its previous state
			}
			next := parsed.tool
			before, had := last[s.repo][ch.Path]
			last[s.repo][ch.Path] = next
			key := [2]string{before.SHA256, next.SHA256}
			if _, known := c.index[key]; !had || before.Name != next.Name || before.SHA256 == next.SHA256 || known {
				continue
			}
			c.index[key] = len(c.pairs)
			c.pairs = append(c.pairs, [2]tools.Tool{before, next})
			c.files = append(c.files, fileAt{s.repo, ch.Path})
		}
	}
	c.results = make([]schemadiff.Result, len(c.pairs))
	c.claimed = make([]atomic.Bool, len(c.pairs))
	c.done = make([]bool, len(c.pairs))
	c.doneCond = sync.NewCond(&c.mu)
	// One core is the replay's: it makes a comparison itself rather than
	// wait for one no worker has started.
	for range max(1, runtime.GOMAXPROCS(0)-1) {
		c.workers.Go(func() {
			for i := range c.pairs {
				if c.stopped.Load() {
					return
				}
				c.make(i)
			}
		})
	}
	return c
}

// make makes comparison i unless someone else has claimed it.
func (c *comparisons) make(i int) {
	if !c.claimed[i].CompareAndSwap(false, true) {
		return
	}
	// The versions were kept without their objects (see parse): each
	// comparison decodes what c.last does not hold, and the newer version
	// as far as it differs from the older.
	file, before, after := c.files[i], c.pairs[i][0], c.pairs[i][1]
	c.mu.Lock()
	kept := c.last[file]
	c.mu.Unlock()
	if kept.sha256 != before.SHA256 {
		kept = decoded{before.SHA256, decodeForm(c.forms.canonical(before), nil)}
	}
	next := decoded{after.SHA256, decodeForm(c.forms.canonical(after), kept.form)}
	before.Object, _ = kept.form.Value.(map[string]any)
	after.Object, _ = next.form.Value.(map[string]any)
	c.results[i] = timeline.CompareObjects(before, after)
	c.pairs[i] = [2]tools.Tool{}
	c.mu.Lock()
	c.last[file] = next
	c.done[i] = true
	c.doneCond.Broadcast()
	c.mu.Unlock()
}

// compare returns the comparison of two versions of a tool, made ahead when
// it could be. While a worker still makes the one asked for, the replay
// makes those after it that no one has started, which it asks for next,
// instead of waiting: the comparisons cost more than the rest of the
// replay, and one worker alone kept it waiting half the time.
func (c *comparisons) compare(before, after tools.Tool) schemadiff.Result {
	if i, ok := c.index[[2]string{before.SHA256, after.SHA256}]; ok {
		c.make(i)
		for c.next = max(c.next, i+1); c.next < len(c.pairs) && !c.made(i); c.next++ {
			c.make(c.next)
		}
		c.mu.Lock()
		for !c.done[i] {
			c.doneCond.Wait()
		}
		c.mu.Unlock()
		return c.results[i]
	}
	return c.forms.compare(before, after)
}

// made reports whether comparison i is made.
func (c *comparisons) made(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done[i]
}

// decodeForm decodes a canonical form like an earlier one (see
// canonjson.DecodeForm). The form was made by parse from a decoded object
// held to the limits, so decoding it cannot fail.
func decodeForm(canonical []byte, like *canonjson.Form) *canonjson.Form {
	f, err := canonjson.DecodeForm(canonical, like)
	if err != nil {
		return &canonjson.Form{}
	}
	return f
}

// compare compares two versions, decoding those kept without their
// objects (see parse).
func (f *forms) compare(before, after tools.Tool) schemadiff.Result {
	return timeline.CompareObjects(f.decode(before), f.decode(after))
}

// stop ends the comparisons not made yet, and returns once none is running.
func (c *comparisons) stop() {
	c.stopped.Store(true)
	c.workers.Wait()
	c.last = nil
}
