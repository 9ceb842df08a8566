package generator

import (
	"time"

	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/feed"
	"github.com/wellknown-dev/wellknown/generator/keyguard"
	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/generator/replay"
)

// Cache carries the stages' caches from one build to the next given it
// (Options.Cache; serve's rebuilds): each stage reuses what it made from
// the same inputs and makes the same bytes; documents and deploy files are
// made every time, unless the whole last build is kept (see Changed).
// Build holds a stage's cache only until the stage has run, so a build no
// other follows frees it. One build at a time, each with the same Options.
type Cache struct {
	tools   *tools.Cache
	replay  *replay.Cache
	feed    *feed.Cache
	pages   *pages.Cache
	scanned *keyguard.Scanned
	parsed  int         // tool files parsed by the builds before
	watch   *watchState // see Changed
}

// watchState is what a Watched Cache knows of the changes since the last
// build.
type watchState struct {
	watched bool
	changed []string // what Changed was told since the last build
	last    *Result  // the last build, when it succeeded
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{tools: tools.NewCache(), replay: new(replay.Cache), feed: new(feed.Cache), pages: pages.NewCache(),
		scanned: keyguard.NewScanned(), watch: &watchState{}}
}

// Reuse says what a build did not do again, given the last one's Cache.
type Reuse struct {
	Replay        bool // the replay of git history was reused
	ReplayResumed bool // it went on with only the new commits
	Feed          bool // the signed feed was reused
	ToolFiles     int  // tool files parsed (the others were reused)
	PagesRendered int  // pages rendered (the others were reused)
	// Build: the last build was kept, with only the pages of the changed
	// Markdown rendered again (see Cache.Changed); nothing else was read.
	Build bool
}

// Watched tells the Cache that its user watches every input of the
// builds and says what changed before each (Changed), and Moved when a
// repository did (see replay.Cache.Watched). The next build reads every
// input: the watch may have begun after the last one read them.
func (c *Cache) Watched() {
	c.replay.Watched()
	c.watch.watched, c.watch.last = true, nil
}

// Moved: see replay.Cache.Moved.
func (c *Cache) Moved() { c.replay.Moved() }

// Changed tells a Watched Cache paths (absolute and clean) that changed
// since the last build; the paths of several calls add up. When they are
// only Markdown files of pages of the last build, which keep their
// titles, the next build is the last one with those pages rendered again
// (see pages.Cache.Rerender): a full build would make every other file
// the same. Then it reads no other input, and so does not judge an EDP
// attestation's expiry anew, which decides only warnings.
func (c *Cache) Changed(paths []string) { c.watch.changed = append(c.watch.changed, paths...) }

// rerender returns the last build with the pages of the changed Markdown
// rendered again, or ok false when a full build is needed.
func (c *Cache) rerender() (_ *Result, ok bool, err error) {
	w := c.watch
	changed, last := w.changed, w.last
	w.changed, w.last = nil, nil // kept again once this build succeeds
	if !w.watched || last == nil || len(changed) == 0 {
		return nil, false, nil
	}
	start := time.Now()
	files, ok := c.pages.Rerender(changed)
	if !ok {
		return nil, false, nil
	}
	bodies := make(map[string][]byte, len(files))
	for _, f := range files {
		bodies[f.Path] = f.Body
	}
	b, err := last.Bundle.Replaced(bodies)
	if err != nil {
		return nil, true, err
	}
	if err := c.scanned.Scan(b, last.Key); err != nil {
		return nil, true, err
	}
	r := *last
	r.Bundle, r.Written = b, bundle.WriteStats{}
	r.Reuse = Reuse{Replay: true, Feed: true, PagesRendered: len(files), Build: true}
	r.Stages = Stages{Render: time.Since(start)}
	w.last = &r
	return &r, true, nil
}
