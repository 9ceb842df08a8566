package replay

import (
	"bytes"
	"runtime"
	"sync"

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
//
// They are planned a window ahead of the replay (compareWindow, see at)
// and dropped once it has gone past their commit: a long history has a
// hundred thousand of them, and planned all at once they held more
// memory than any other part of the replay but the timeline itself.
type comparisons struct {
	forms *forms // where the versions' canonical forms are
	// The replay plans (at) and looks comparisons up (compare); index is
	// its alone, and the workers read plan under mu only.
	plan  planner
	index map[[2]string]int // by the SHA-256 of the two versions: the comparison's number

	mu   sync.Mutex
	cond *sync.Cond // signals a comparison made, more planned, or stop
	// planned holds the comparisons numbered from base on, in the steps'
	// order; those before base are dropped. It holds pointers: dropped
	// from the front and appended to at the back, it is copied whole
	// whenever it grows, a hundred times in a long history.
	base    int
	planned []*comparison
	free    int  // no comparison numbered below is unclaimed
	stopped bool // the replay is over: compare no more
	workers sync.WaitGroup
	// last holds, by file, the newer version of its last comparison,
	// decoded: the older version of its next one, which is then not
	// decoded a second time, and from which the version after it takes
	// every value it did not change (see canonjson.DecodeFormInto). One
	// object per file, not per version. A comparison takes it out while
	// it compares: it reuses it once done (see spare).
	last map[fileAt]decoded
	// spare holds the decoded versions no one uses any more, whose
	// buffers the next decodes reuse: reading each version back into a
	// new slice and recording its form anew was a third of what a long
	// history's replay allocated, faster than a collection ends, and what
	// is allocated during a collection counts as live in it.
	spare []decoded
}

// compareWindow is how many comparisons are planned from the replay's
// step on: enough to keep the other cores busy, few enough that
// their versions and results cost little memory.
var compareWindow = 1024

// comparison is one comparison planned.
type comparison struct {
	before, after tools.Tool // their objects are not held (see parse)
	file          fileAt     // the file both versions are at
	step          int        // the step that changes the file
	claimed, done bool       // by whoever makes it; the result is there
	result        schemadiff.Result
}

// planner walks the steps to plan their comparisons.
type planner struct {
	h     *historyReader
	steps []step
	at    int                     // the next step to plan
	last  []map[string]tools.Tool // by repository, the last version at each path
}

// decoded is a version of a tool file decoded, and the buffer its
// canonical form was read into, which the form holds. Each is in one place
// only (last, spare, or a comparison), since its form and buffer are
// reused.
type decoded struct {
	sha256    string
	form      *canonjson.Form
	refs      bool // it may have a $ref (see holdsRefs)
	canonical []byte
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
	c := &comparisons{forms: h.forms, index: map[[2]string]int{}, last: map[fileAt]decoded{},
		plan: planner{h: h, steps: steps, last: make([]map[string]tools.Tool, len(h.repos))}}
	for i := range c.plan.last {
		c.plan.last[i] = map[string]tools.Tool{}
	}
	c.cond = sync.NewCond(&c.mu)
	if len(steps) > 0 {
		c.at(0)
	}
	// One core is the replay's: it makes a comparison itself rather than
	// wait for one no worker has started.
	for range max(1, runtime.GOMAXPROCS(0)-1) {
		c.workers.Go(c.work)
	}
	return c
}

// at tells the comparisons that the replay is at step i: those of the
// steps before are dropped, and the steps from i on are planned until a
// window of comparisons is. A comparison asked for again after it was
// dropped (two versions met again later) is made on the spot.
func (c *comparisons) at(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := 0
	for k < len(c.planned) && c.planned[k].step < i {
		cmp := c.planned[k]
		key := [2]string{cmp.before.SHA256, cmp.after.SHA256}
		if c.index[key] == c.base+k {
			delete(c.index, key)
		}
		k++
	}
	clear(c.planned[:k])
	c.planned = c.planned[k:]
	c.base += k
	planned := c.base + len(c.planned)
	for c.plan.at <= i {
		c.planStep()
	}
	for len(c.planned) < compareWindow && c.plan.at < len(c.plan.steps) {
		c.planStep()
	}
	if c.base+len(c.planned) > planned || c.plan.at == len(c.plan.steps) {
		c.cond.Broadcast() // work for the workers, or the end of it
	}
}

// planStep plans the comparisons of the next step. The caller is the
// replay, holding mu.
func (c *comparisons) planStep() {
	p := &c.plan
	s := p.steps[p.at]
	rh := p.h.repos[s.repo]
	for _, ch := range p.h.commit(s).Changes {
		if ch.Blob == "" {
			delete(p.last[s.repo], ch.Path)
			continue
		}
		parsed, ok := rh.parsed.get(ch.Blob)
		if !ok || parsed.err() != nil {
			continue // not a tool file, or one that keeps its previous state
		}
		next := parsed.tool(rh.forms)
		before, had := p.last[s.repo][ch.Path]
		p.last[s.repo][ch.Path] = next
		key := [2]string{before.SHA256, next.SHA256}
		if _, known := c.index[key]; !had || before.Name != next.Name || before.SHA256 == next.SHA256 || known {
			continue
		}
		c.index[key] = c.base + len(c.planned)
		c.planned = append(c.planned, &comparison{before: before, after: next, file: fileAt{int(s.repo), ch.Path}, step: p.at})
	}
	p.at++
}

// work makes the comparisons no one has claimed, oldest first, until the
// replay stops it or every step's are made.
func (c *comparisons) work() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.stopped {
		c.free = max(c.free, c.base)
		for c.free < c.base+len(c.planned) && c.planned[c.free-c.base].claimed {
			c.free++
		}
		switch {
		case c.free < c.base+len(c.planned):
			c.make(c.free)
		case c.plan.at == len(c.plan.steps):
			return
		default:
			c.cond.Wait()
		}
	}
}

// make makes comparison i, which is planned and unclaimed. The caller
// holds mu, which make releases while it compares.
func (c *comparisons) make(i int) {
	cmp := c.planned[i-c.base]
	cmp.claimed = true
	// The versions were kept without their objects (see parse): each
	// comparison decodes what c.last does not hold, and the newer version
	// as far as it differs from the older.
	file, before, after := cmp.file, cmp.before, cmp.after
	kept, ok := c.last[file]
	if ok {
		delete(c.last, file)
	} else {
		kept = c.takeSpare()
	}
	next := c.takeSpare()
	c.mu.Unlock()
	if kept.sha256 != before.SHA256 {
		kept = c.decode(kept, before, nil)
	}
	next = c.decode(next, after, kept.form)
	compare := schemadiff.Compare
	if !kept.refs || !next.refs {
		compare = schemadiff.CompareWithoutRefs
	}
	b, _ := kept.form.Value.(map[string]any)
	a, _ := next.form.Value.(map[string]any)
	result := compare(b, a)
	c.mu.Lock()
	if newer, ok := c.last[file]; ok {
		c.spare = append(c.spare, newer) // put there by a comparison made meanwhile
	}
	c.last[file] = next
	c.spare = append(c.spare, kept)
	// The replay may have dropped cmp meanwhile: then no one reads this.
	cmp.result, cmp.done = result, true
	c.cond.Broadcast()
}

// takeSpare returns a decoded version no one uses any more, to decode
// another into, or a new one. The caller holds mu.
func (c *comparisons) takeSpare() decoded {
	if len(c.spare) == 0 {
		return decoded{form: &canonjson.Form{}}
	}
	d := c.spare[len(c.spare)-1]
	c.spare[len(c.spare)-1] = decoded{}
	c.spare = c.spare[:len(c.spare)-1]
	d.sha256 = "" // it holds no version from here
	return d
}

// decode decodes version t into d, like an earlier form (see
// canonjson.DecodeFormInto). The form was made by parse from a decoded object
// held to the limits, so decoding it cannot fail; if it did, the form
// would hold no value.
func (c *comparisons) decode(d decoded, t tools.Tool, like *canonjson.Form) decoded {
	d.canonical = c.forms.canonicalInto(d.canonical, t)
	if cap(d.canonical) > 2*len(d.canonical)+minBuffer {
		// A buffer grown for a far larger version: last would hold it
		// for this one, and in time every file's version would be in one.
		d.canonical = bytes.Clone(d.canonical)
	}
	_ = canonjson.DecodeFormInto(d.form, d.canonical, like)
	d.sha256, d.refs = t.SHA256, holdsRefs(d.canonical)
	return d
}

// minBuffer is how much larger than twice a version a buffer may be and
// still hold it: below, the bytes held for nothing cost less than a copy.
const minBuffer = 4 << 10

// compare returns the comparison of two versions of a tool, made ahead when
// it could be. While a worker still makes the one asked for, the replay
// makes those after it that no one has started, which it asks for next,
// instead of waiting: the comparisons cost more than the rest of the
// replay, and one worker alone kept it waiting half the time.
func (c *comparisons) compare(before, after tools.Tool) schemadiff.Result {
	i, ok := c.index[[2]string{before.SHA256, after.SHA256}]
	c.mu.Lock()
	if !ok || i < c.base {
		c.mu.Unlock()
		return c.forms.compare(before, after)
	}
	for j := i; !c.planned[i-c.base].done; {
		for j < c.base+len(c.planned) && c.planned[j-c.base].claimed {
			j++
		}
		if j < c.base+len(c.planned) {
			c.make(j)
		} else {
			c.cond.Wait()
		}
	}
	r := c.planned[i-c.base].result
	c.mu.Unlock()
	return r
}

// holdsRefs reports whether a canonical form may have a "$ref" member:
// a canonical form writes the key as it is, never escaped, so one without
// the text has none, and a comparison with it need not look for
// references (schemadiff.CompareWithoutRefs). The text looked for starts
// at the dollar sign, which is rare: starting at the quote, which JSON is
// full of, the search took a tenth of the comparisons' time. A string
// that ends in "$ref" matches too, which costs only the walk.
func holdsRefs(canonical []byte) bool { return bytes.Contains(canonical, []byte(`$ref"`)) }

// compare compares two versions, decoding those kept without their
// objects (see parse).
func (f *forms) compare(before, after tools.Tool) schemadiff.Result {
	return timeline.CompareObjects(f.decode(before), f.decode(after))
}

// stop ends the comparisons not made yet, and returns once none is running,
// letting go of all they hold.
func (c *comparisons) stop() {
	c.mu.Lock()
	c.stopped = true
	c.cond.Broadcast()
	c.mu.Unlock()
	c.workers.Wait()
	c.last, c.spare, c.planned, c.index, c.plan = nil, nil, nil, nil, planner{}
}
