package generator

import (
	"crypto/sha256"
	"fmt"
	"slices"

	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/feed"
	"github.com/wellknown-dev/wellknown/generator/keyguard"
	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/generator/replay"
	"github.com/wellknown-dev/wellknown/generator/timeline"
	"github.com/wellknown-dev/wellknown/generator/tools"
)

// Cache carries what a build made into the next build given it (in
// Options.Cache), for a development server that rebuilds on every change:
// a stage whose inputs are what they were reuses its output instead of
// running again, so that a build costs what changed, and makes the bytes a
// build without a Cache makes. A stage's inputs are identified whole:
//
//   - a tool file: its name and bytes (tools.Cache);
//   - the replay of git history: the config (site.Config.Fingerprint), the
//     options that steer it (Rev, Revs, AllowShallow, strictness) and the
//     state of every repository it read (replay.States: the commit read,
//     shallowness, tags, remotes), so a checkout replays again, and a
//     commit replays only the commits since (replay.Resume) when it can;
//   - the feed: the replay's timeline, the config and the signing key;
//   - the pages: see pages.Cache.
//
// The scan for the key scans only the files whose bodies are new
// (keyguard.Scanned). The documents, attestations and deploy files are
// made every time: they cost little. A Cache serves one build at a time.
type Cache struct {
	tools   *tools.Cache
	pages   *pages.Cache
	scanned *keyguard.Scanned
	replay  replayRun
	feed    feedRun
	parsed  int // tool files parsed by the builds before
	// watched and moved: see Watched.
	watched, moved bool
}

// replayRun is the last replay: its inputs' identity and its output.
type replayRun struct {
	key     [sha256.Size]byte
	sources []replay.Source // the repositories it read
	states  []string        // their states, when out may be reused
	out     *replay.Output  // nil when it may not
}

// feedRun is the last feed stage: its inputs' identity, the files it
// added and its output.
type feedRun struct {
	timeline *timeline.Timeline
	key      [sha256.Size]byte
	files    []*bundle.File
	out      *feed.Output
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{tools: tools.NewCache(), pages: pages.NewCache(), scanned: keyguard.NewScanned()}
}

// Reuse says what a build given a Cache did not do again.
type Reuse struct {
	Replay        bool // the replay of git history was reused
	ReplayResumed bool // it went on with only the new commits
	Feed          bool // the signed feed was reused
	ToolFiles     int  // tool files parsed (the others were reused)
	PagesRendered int  // pages rendered (the others were reused)
}

// Watched tells the Cache that its user watches the repositories the
// builds read (their HEAD, refs, shallow file and config, as serve does)
// and calls Moved after any of them changed: a build then reuses the last
// replay, when its other inputs are the same, without running git to
// compare the repositories' states, unless Moved was called since they
// were last compared. The next build compares them: the watch may have
// begun after the last comparison.
func (c *Cache) Watched() { c.watched, c.moved = true, true }

// Moved tells a Watched Cache that a repository changed: the next build
// compares the repositories' states.
func (c *Cache) Moved() { c.moved = true }

func (c *Cache) toolFiles() *tools.Cache {
	if c == nil {
		return nil
	}
	return c.tools
}

func (c *Cache) pageCache() *pages.Cache {
	if c == nil {
		return nil
	}
	return c.pages
}

func (c *Cache) keyScan() *keyguard.Scanned {
	if c == nil {
		return nil
	}
	return c.scanned
}

// replayKey identifies a replay's input but for the repositories' states.
func replayKey(in replay.Input, config [sha256.Size]byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write(config[:])
	fmt.Fprintf(h, "%q %q %v %v", in.Rev, in.Revs, in.AllowShallow, in.Strict) // a map prints sorted
	return [sha256.Size]byte(h.Sum(nil))
}

// readHistory is replay.Read, or the last replay's output when its inputs
// are the same, or that replay resumed with the commits since when only
// they differ. The repositories' states are taken before and after a read
// (before, of those the last replay read, or else of the site's): a read
// during which one changed (a commit landing) is not kept.
func (c *Cache) readHistory(in replay.Input, config [sha256.Size]byte) (*replay.Output, bool, error) {
	if c == nil {
		out, err := replay.Read(in)
		return out, false, err
	}
	key := replayKey(in, config)
	unmoved := c.watched && !c.moved
	c.moved = false // the states are compared below, or were and have not changed
	if c.replay.out != nil && c.replay.key == key {
		states, ok := c.replay.states, true
		if !unmoved {
			states, ok = replay.States(c.replay.sources)
		}
		if ok && slices.Equal(states, c.replay.states) {
			c.replay.out.ApplyTo(in.Config)
			out := *c.replay.out
			out.ReadTime, out.DiffTime = 0, 0 // it took no time now
			return &out, true, nil
		}
		if ok {
			if out, resumed := c.resume(in, states); resumed {
				return out, false, nil
			}
		}
	}
	sources := c.replay.sources
	if sources == nil {
		if site, ok := replay.SiteSource(in); ok {
			sources = []replay.Source{site}
		}
	}
	before, known := replay.States(sources)
	out, err := replay.Read(in)
	if err != nil {
		c.replay = replayRun{}
		return nil, false, err
	}
	c.replay = replayRun{key: key, sources: out.Sources}
	if after, ok := replay.States(out.Sources); known && ok && slices.Equal(sources, out.Sources) && slices.Equal(before, after) {
		c.replay.states, c.replay.out = after, out
	}
	return out, false, nil
}

// resume is replay.Resume of the last replay, from its repositories'
// states to states, kept as readHistory keeps a read.
func (c *Cache) resume(in replay.Input, states []string) (*replay.Output, bool) {
	out, ok := replay.Resume(c.replay.out, c.replay.states, states, in)
	c.replay.out, c.replay.states = nil, nil
	if !ok {
		return nil, false
	}
	if after, ok := replay.States(c.replay.sources); ok && slices.Equal(after, states) {
		c.replay.states, c.replay.out = states, out
	}
	return out, true
}

// addFeed is feed.Add, or the last feed's files and output when its inputs
// are the same. The feed is the first stage to add files to the bundle.
func (c *Cache) addFeed(b *bundle.Bundle, in feed.Input, config [sha256.Size]byte) (*feed.Output, bool, error) {
	if c == nil {
		out, err := feed.Add(b, in)
		return out, false, err
	}
	h := sha256.New()
	h.Write(config[:])
	h.Write(in.Key)
	key := [sha256.Size]byte(h.Sum(nil))
	if c.feed.out != nil && c.feed.timeline == in.Timeline && c.feed.key == key {
		for _, f := range c.feed.files {
			if err := b.Add(f.Path, f.Body, f.ContentType); err != nil {
				return nil, false, err
			}
		}
		return c.feed.out, true, nil
	}
	c.feed = feedRun{}
	out, err := feed.Add(b, in)
	if err != nil {
		return nil, false, err
	}
	c.feed = feedRun{timeline: in.Timeline, key: key, out: out}
	for _, f := range b.Files() {
		c.feed.files = append(c.feed.files, &bundle.File{Path: f.Path, Body: f.Body, ContentType: f.ContentType})
	}
	return out, false, nil
}

// count adds to reuse the work of the build that just ended.
func (c *Cache) count(reuse *Reuse) {
	if c == nil {
		return
	}
	reuse.PagesRendered = c.pages.Rendered()
	parsed := c.tools.Parsed()
	reuse.ToolFiles, c.parsed = parsed-c.parsed, parsed
}
