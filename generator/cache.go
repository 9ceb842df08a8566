package generator

import (
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator/feed"
	"github.com/wellknown-dev/wellknown/generator/keyguard"
	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/generator/replay"
)

// Cache carries the stages' caches from one build to the next given it
// (Options.Cache; serve's rebuilds): each stage reuses what it made from
// the same inputs and makes the same bytes; documents and deploy files are
// made every time. Build holds a stage's cache only until the stage has
// run, so a build no other follows frees it. One build at a time.
type Cache struct {
	tools   *tools.Cache
	replay  *replay.Cache
	feed    *feed.Cache
	pages   *pages.Cache
	scanned *keyguard.Scanned
	parsed  int // tool files parsed by the builds before
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{tools: tools.NewCache(), replay: new(replay.Cache), feed: new(feed.Cache), pages: pages.NewCache(),
		scanned: keyguard.NewScanned()}
}

// Reuse says what a build did not do again, given the last one's Cache.
type Reuse struct {
	Replay        bool // the replay of git history was reused
	ReplayResumed bool // it went on with only the new commits
	Feed          bool // the signed feed was reused
	ToolFiles     int  // tool files parsed (the others were reused)
	PagesRendered int  // pages rendered (the others were reused)
}

// Watched and Moved: see replay.Cache.Watched.
func (c *Cache) Watched() { c.replay.Watched() }
func (c *Cache) Moved()   { c.replay.Moved() }
