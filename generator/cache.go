package generator

import (
	"github.com/wellknown-dev/wellknown/generator/feed"
	"github.com/wellknown-dev/wellknown/generator/keyguard"
	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/generator/replay"
	"github.com/wellknown-dev/wellknown/generator/tools"
)

// Cache carries the stages' caches from one build to the next given it
// (Options.Cache; serve's rebuilds): each stage reuses what it made from
// inputs that are what they were (tools.Cache, replay.Cache, feed.Cache,
// pages.Cache, keyguard.Scanned), and makes the same bytes. The documents,
// attestations and deploy files cost little and are made every time.
// Build holds a stage's cache only until the stage has run, so that a
// build no other follows frees what the stage kept (the replay's state,
// the feed's files). A Cache serves one build at a time.
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

// newCacheOnce returns an empty Cache for a build no other follows, whose
// pages are rendered without the keys a next build would look them up by
// (see pages.NewCacheOnce).
func newCacheOnce() *Cache {
	c := NewCache()
	c.pages = pages.NewCacheOnce()
	return c
}

// Reuse says what a build did not do again, given the last one's Cache.
type Reuse struct {
	Replay        bool // the replay of git history was reused
	ReplayResumed bool // it went on with only the new commits
	Feed          bool // the signed feed was reused
	ToolFiles     int  // tool files parsed (the others were reused)
	PagesRendered int  // pages rendered (the others were reused)
}
