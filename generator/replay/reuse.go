package replay

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"slices"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/site"
)

// Cache keeps the last replay for the next (a development server's
// rebuilds), so that a replay whose inputs are what they were is not done
// again, and one after a commit replays only the commits since. A replay's
// inputs are identified whole: the config (site.Config.Fingerprint), the
// Input's options (Rev, Revs, AllowShallow, Strict) and the state of every
// repository it read (the commit read, shallowness, tags, remotes: see
// gitlog.Repo.State), so that a checkout replays again. The zero Cache
// is empty. A Cache serves one build at a time.
type Cache struct {
	key     [sha256.Size]byte // the Input's identity but for the repositories' states
	sources []source          // the repositories the last replay read
	states  []string          // their states, when out may be reused
	out     *Output           // nil when it may not

	watched, moved bool // see Watched
}

// Watched tells the Cache that its user watches the repositories the
// replays read (their HEAD, refs, shallow file and config, as serve does)
// and calls Moved after any of them changed: a replay whose other inputs
// are the same is then reused without running git to compare the
// repositories' states, unless Moved was called since they were last
// compared. The next Read compares them: the watch may have begun after
// the last comparison.
func (c *Cache) Watched() { c.watched, c.moved = true, true }

// Moved tells a Watched Cache that a repository changed: the next Read
// compares the repositories' states.
func (c *Cache) Moved() { c.moved = true }

// Read is readAndPlay, or the last replay's output (reused) when
// its inputs are the same, or that replay resumed with the commits since
// when only they differ (see resume). The repositories' states are taken
// before and after a read (before, of those the last replay read, or else
// of the site's): a read during which one changed (a commit landing) is
// not kept. A Read with a spool is readAndPlay alone.
func (c *Cache) Read(in Input) (out *Output, reused bool, err error) {
	if in.Spool != nil {
		// A replay that spools is a build's that writes once: no replay
		// after it would reuse it, so no state is taken, seven git
		// processes fewer.
		out, err := readAndPlay(in)
		return out, false, err
	}
	key := inputKey(in)
	unmoved := c.watched && !c.moved
	c.moved = false // the states are compared below, or were and have not changed
	if c.out != nil && c.key == key {
		states, ok := c.states, true
		if !unmoved {
			states, ok = statesOf(c.sources)
		}
		if ok && slices.Equal(states, c.states) {
			c.out.applyTo(in.Config)
			out := *c.out
			out.ReadTime = 0 // it took no time now
			return &out, true, nil
		}
		if ok {
			out, resumed := resume(c.out, c.states, states, in)
			c.out, c.states = nil, nil // resume used it up
			if resumed {
				c.keep(out, states)
				return out, false, nil
			}
		}
	}
	sources := c.sources
	if sources == nil {
		if site, ok := siteSource(in); ok {
			sources = []source{site}
		}
	}
	before, known := statesOf(sources)
	out, err = readAndPlay(in)
	if err != nil {
		*c = Cache{watched: c.watched}
		return nil, false, err
	}
	*c = Cache{key: key, sources: out.sources, watched: c.watched}
	if known && slices.Equal(sources, out.sources) {
		c.keep(out, before)
	}
	return out, false, nil
}

// keep keeps out, read while the repositories were in states, unless one
// of them changed since.
func (c *Cache) keep(out *Output, states []string) {
	if after, ok := statesOf(c.sources); ok && slices.Equal(after, states) {
		c.states, c.out = states, out
	}
}

// inputKey identifies a replay's input but for the repositories' states.
func inputKey(in Input) [sha256.Size]byte {
	h := sha256.New()
	config := in.Config.Fingerprint()
	h.Write(config[:])
	fmt.Fprintf(h, "%q %q %v %v", in.Rev, in.Revs, in.AllowShallow, in.Strict) // a map prints sorted
	return [sha256.Size]byte(h.Sum(nil))
}

// source is a repository a replay read, at the revision it read.
type source struct {
	root string
	rev  string
}

// sources lists the repositories read, the site's first.
func (h *historyReader) sources() []source {
	out := make([]source, len(h.repos))
	for i, rh := range h.repos {
		out[i] = source{root: rh.repo.Root(), rev: h.rev(i)}
	}
	return out
}

// siteSource is the site's repository as a replay of in reads it: the
// first of Output.sources, known before the replay; ok is false when the
// site is not in a repository.
func siteSource(in Input) (src source, ok bool) {
	repo, err := gitlog.Open(in.Config.Dir)
	if err != nil {
		return source{}, false
	}
	return source{root: repo.Root(), rev: cmp.Or(in.Rev, "HEAD")}, true
}

// statesOf returns the state (gitlog.Repo.State) of each repository: a
// replay of the same Input whose repositories (Output.sources) are all in
// the same states reads the same history, so its Output may be reused. ok
// is false when there is nothing to compare, as for a site outside git.
func statesOf(sources []source) (states []string, ok bool) {
	if len(sources) == 0 {
		return nil, false
	}
	for _, s := range sources {
		repo, err := gitlog.Open(s.root)
		if err != nil {
			return nil, false
		}
		state, err := repo.State(s.rev)
		if err != nil {
			return nil, false
		}
		states = append(states, state)
	}
	return states, true
}

// applyTo gives cfg what readAndPlay gives its Input.Config: each server that
// takes its versions from tags gets the version its history ends with. A
// build that reuses an Output applies it to its own config.
func (o *Output) applyTo(cfg *site.Config) {
	for i, s := range cfg.Servers {
		if s.VersionTags == "" {
			continue
		}
		for _, sh := range o.Timeline.Servers {
			if sh.Name == s.Name && !sh.Removed {
				cfg.Servers[i].Version = sh.Last.Version
			}
		}
	}
}
