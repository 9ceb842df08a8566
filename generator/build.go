// Package generator turns a site definition into a Bundle. Build only wires
// the stages, each a package with explicit inputs and outputs, and times
// them (Stages), in order:
//
//  1. Read: site.toml (site.LoadWithKey), the signing key
//     (keyguard.SiteKey, which refuses a key git tracks or the site would
//     publish), the working tree's tool
//     files (worktree.Load), refusing the key's file by any name
//     (didweb.KeyFileSecret), and the git history and its blobs
//     (replay.Cache.Read, which goes on to Diff);
//  2. Diff: the history replayed commit by commit into a timeline, and the
//     working tree compared with it (worktree.Check);
//  3. Sign: the signed feed, its archives, snapshot and schema archive
//     (feed.Cache.Add), checked against the feed published before
//     (feed.CheckAppendOnly);
//  4. Render: the EDP attestations (documents.Attest), every document, each
//     checked against its format (documents.Add), the pages (pages.Add),
//     the host's files (deploy.AddFiles), and the whole bundle searched
//     for the signing key (keyguard.Scanned.Scan);
//  5. Write: Result.Write writes the Bundle (keyguard.CheckOutput, then
//     bundle.WriteDir), or serve serves it.
//
// Given the Cache of the build before (Options.Cache), each stage reuses
// what that build made from the same inputs, and makes the same bytes.
package generator

import (
	"cmp"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/attestation"
	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/deploy"
	"github.com/wellknown-dev/wellknown/generator/documents"
	"github.com/wellknown-dev/wellknown/generator/feed"
	"github.com/wellknown-dev/wellknown/generator/keyguard"
	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/generator/replay"
	"github.com/wellknown-dev/wellknown/generator/worktree"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// Options are the inputs of a build besides the files it reads.
type Options struct {
	ConfigPath string   // site.toml
	Overrides  []string // --set key=value
	KeyFile    string   // --key-file
	Strict     bool     // --strict: no development key, no uncommitted or missing history
	// Preview is a build for serve: a missing signing.key_file falls back
	// to the development key, as in a fresh clone, instead of failing.
	Preview bool
	// Rev is the commit of the site's repository whose history the feed is
	// derived from; empty means HEAD.
	Rev string
	// Revs are the commits other repositories (servers' repo =) are read
	// at, by their root directory as git reports it; HEAD when absent.
	Revs map[string]string
	// AllowShallow builds from a shallow clone (a preview: its feed is cut off).
	AllowShallow bool
	// Previous is the feed published before (a file or an http(s) URL); the
	// build fails when it would change or drop any of its entries.
	Previous string
	// PreviousLive sets Previous to the feed's URL at the site's base_url:
	// the feed that is deployed now.
	PreviousLive bool
	// PreviousOptional builds with a warning, skipping the comparison, when
	// the previous feed cannot be read (an outage, a failed DNS lookup).
	PreviousOptional bool
	// Getenv reads the environment (the signing key variable, CI); nil means
	// an empty environment.
	Getenv func(string) string
	// Key, when set, signs instead of a key loaded from the sources above: a
	// build that publishes nothing (wellknown check) then needs no secret.
	Key *didweb.SigningKey
	// Progress, when set, is told each stage but Write as it starts ("sign: the feed").
	Progress func(stage string)
	// IgnoreUncommitted skips comparing the working tree with the history:
	// for a build of another revision's feed, which the working tree differs
	// from by design.
	IgnoreUncommitted bool
	// Now is the time expiry is judged at (EDP attestations); nil means
	// time.Now. It decides errors and warnings, never what is written.
	Now func() time.Time
	// Cache carries the stages' outputs from one build to the next, which
	// reuses those whose inputs did not change (see Cache); nil is a new
	// Cache, for a build that no other follows.
	Cache *Cache
	// Spool keeps the immutable and large outputs in a temporary file
	// until Write (bundle.Spool), and there too the tool versions' bytes
	// from the moment they are read and their changes from the moment
	// they are made, in memory only the newest version of each tool; the
	// Result keeps no Entries and no Timeline: for a build that writes
	// once.
	// Ignored with a Cache, whose next build reuses them. Result.Close
	// releases the file.
	Spool bool
}

// Result is a finished build.
type Result struct {
	Bundle   *bundle.Bundle
	Config   *site.Config
	Key      didweb.SigningKey
	Timeline *timeline.Timeline // the committed history of the inputs; nil in a spooled build (Options.Spool, no Cache)
	Entries  []agentfeed.Entry  // the signed feed entries, in feed order; nil in a spooled build (Options.Spool, no Cache); Counts.Entries counts them
	Warnings []*diag.Error
	// Attestations are the checked attestations of the entity card's MCP
	// entries, by site.toml key path ("entity.entities.0.mcps.1").
	Attestations map[string]attestation.Token
	Counts       Counts
	Stages       Stages
	Reuse        Reuse             // what the build reused of the one before
	Written      bundle.WriteStats // what Write changed on disk
	Notices      []string          // what a build did that is worth knowing but needs no action

	spool *bundle.Spool // where Bundle keeps its immutable files; nil without Options.Spool
}

// Stages says how long each stage of a build took: for benchmarks and the
// --json summary, never for anything written to the output.
type Stages struct {
	Read   time.Duration `json:"read"`   // site.toml, key, tool files, git history and blobs
	Diff   time.Duration `json:"diff"`   // replaying history (parsing, diffing, versions, events), and the working tree compared with it
	Sign   time.Duration `json:"sign"`   // signing entries; feed, snapshot and archive
	Render time.Duration `json:"render"` // attestations, documents, pages, deploy files, key scan
	Write  time.Duration `json:"write"`  // writing what changed to disk
}

// Counts says what a build produced.
type Counts struct {
	Files     int `json:"files"`
	Documents int `json:"documents"`
	Pages     int `json:"pages"`
	Servers   int `json:"servers"`
	Tools     int `json:"tools"`
	Agents    int `json:"agents"`
	Entries   int `json:"entries"`
	Versions  int `json:"tool_versions"`
}

// Build runs a whole build in memory (but for what Options.Spool keeps
// on disk until the write). The error lists every problem found
// (each a *diag.Error where it can be located).
func Build(opt Options) (_ *Result, err error) {
	start := time.Now()
	progress := opt.Progress
	if progress == nil {
		progress = func(string) {}
	}
	progress("read: the site definition, tool files and key")
	getenv := opt.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cache, oneOff := opt.Cache, opt.Cache == nil
	if oneOff {
		cache = NewCache()
		cache.pages = pages.NewCacheOnce() // no build follows to look its pages up
	} else if r, ok, err := cache.rerender(); ok {
		return r, err
	}
	cfg, err := site.LoadWithKey(opt.ConfigPath, opt.Overrides, opt.KeyFile)
	if err != nil {
		return nil, err
	}
	strict := opt.Strict || getenv("CI") == "true"
	var key didweb.SigningKey
	if opt.Key != nil {
		key = *opt.Key
	} else if key, err = keyguard.SiteKey(cfg, opt.KeyFile, getenv, strict, opt.Preview); err != nil {
		return nil, err
	}
	servers, err := worktree.Load(cfg, cache.tools, didweb.KeyFileSecret(key.File))
	if err != nil {
		return nil, err
	}
	r := &Result{Bundle: bundle.New(), Config: cfg, Key: key}
	if opt.Spool && oneOff {
		if r.spool, err = bundle.NewSpool(); err != nil {
			return nil, err
		}
		r.Bundle = bundle.NewSpooled(r.spool)
		defer func() {
			if err != nil {
				r.Close()
			}
		}()
	}
	parsed := cache.tools.Parsed()
	r.Reuse.ToolFiles, cache.parsed = parsed-cache.parsed, parsed
	replays, feeds, pageCache, scanned, watch := cache.replay, cache.feed, cache.pages, cache.scanned, cache.watch // no more of cache (see Cache)
	if key.Warning != nil {
		r.Warnings = append(r.Warnings, key.Warning)
	}
	r.Stages.Read = time.Since(start)
	progress("read: git history")
	start = time.Now()
	replayed, reused, err := replays.Read(replay.Input{Config: cfg, Rev: opt.Rev, Revs: opt.Revs,
		AllowShallow: opt.AllowShallow, Strict: strict, Endpoint: cfg.Endpoint, Progress: progress, Spool: r.spool})
	if err != nil {
		return nil, err
	}
	r.Timeline = replayed.Timeline
	// The tools the working tree is compared with; the others' bytes stay
	// in the spool until written, or diffed as their pages render.
	if err := r.Timeline.ReadStored(1); err != nil {
		return nil, err
	}
	commitRepos := replayed.CommitRepos // not replayed: see Cache
	r.Warnings = append(r.Warnings, replayed.Warnings...)
	r.Notices = append(r.Notices, replayed.Notices...)
	r.Stages.Read += replayed.ReadTime
	r.Reuse.Replay, r.Reuse.ReplayResumed = reused, replayed.Resumed
	uncommitted, err := worktree.Check(worktree.Input{Config: cfg, Timeline: r.Timeline, Servers: servers,
		Strict: strict, IgnoreUncommitted: opt.IgnoreUncommitted})
	if err != nil {
		return nil, err
	}
	r.Warnings = append(r.Warnings, uncommitted...)
	// Diff is the rest since the history's read began: the replay, and
	// the working tree compared with its timeline, so that the stages
	// add up to the build.
	r.Stages.Diff = time.Since(start) - replayed.ReadTime
	start = time.Now()
	progress("sign: the feed")
	if opt.PreviousLive {
		opt.Previous = cfg.URL(paths.Feed)
	}
	var check *feed.Checker
	if opt.Previous != "" {
		var checked feed.Outcome
		check, checked, err = feed.ReadPrevious(feed.Previous{Source: opt.Previous, Optional: opt.PreviousOptional})
		if err != nil {
			return nil, err
		}
		r.Notices = append(r.Notices, checked.Notices...)
		r.Warnings = append(r.Warnings, checked.Warnings...)
	}
	// A build that writes once keeps no entries: its memory holds one page
	// of the feed at a time, the largest part of a long history otherwise.
	signed, reused, err := feeds.Add(r.Bundle, feed.Input{Config: cfg, Timeline: r.Timeline, Key: key.Private,
		Check: check, DropEntries: r.spool != nil})
	// A change that could not be read back was signed empty: that, not
	// what the entry or the check made of it, is the error.
	if err := r.readBackFailed(); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if err := check.Finish(); err != nil {
		return nil, err
	}
	r.Reuse.Feed = reused
	r.Entries = signed.Entries
	r.Notices = append(r.Notices, signed.Notices...)
	r.Stages.Sign = time.Since(start)
	start = time.Now()
	progress("render: documents and pages")
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	attested, err := documents.Attest(documents.AttestInput{Config: cfg, Getenv: getenv, Now: now(), Lenient: !strict || opt.Key != nil,
		KeyFile: didweb.KeyFileSecret(key.File)})
	if err != nil {
		return nil, err
	}
	r.Attestations = attested.Attestations
	r.Warnings = append(r.Warnings, attested.Warnings...)
	documented, err := documents.Add(r.Bundle, documents.Input{Config: cfg, Key: key.Public(), Verifications: attested.Verifications})
	if err != nil {
		return nil, err
	}
	// Nothing reads the timeline of a spooled build once the pages' model
	// is made from it, and a long history's is the largest part of what
	// the pages would hold while they render.
	in := pages.BuildInput{Config: cfg, Timeline: r.Timeline, CommitRepos: commitRepos, Files: pages.Shown(r.Bundle.All()),
		Key: key.Public(), KeyFile: didweb.KeyFileSecret(key.File), Attestations: r.Attestations, Cache: pageCache,
		UseUpTimeline: r.spool != nil}
	for _, s := range servers {
		in.Servers = append(in.Servers, pages.BuildServer{Config: s.Config, Tools: s.Tools, ReservedCards: documented.ReservedCards[s.Index]})
	}
	versions := r.Timeline.Versions()
	if r.spool != nil {
		r.Timeline = nil
	}
	warnings, err := pages.Add(r.Bundle, in)
	if err != nil {
		// What the spool could not give back made the pages go wrong.
		return nil, cmp.Or(r.readBackFailed(), err)
	}
	r.Warnings = append(r.Warnings, warnings...)
	if warnings, err = deploy.AddFiles(r.Bundle, cfg); err != nil {
		return nil, err
	}
	r.Warnings = append(r.Warnings, warnings...)
	if err := r.readBackFailed(); err != nil {
		return nil, err
	}
	if err := scanned.Scan(r.Bundle, key); err != nil {
		return nil, err
	}
	r.Stages.Render = time.Since(start)
	r.count(servers, signed.Count, versions)
	r.Reuse.PagesRendered = pageCache.Rendered()
	if !oneOff {
		watch.last = r
	}
	return r, nil
}

// readBackFailed returns the error of the first read back from the spool
// that failed, if any: what was read is signed and shown, and a change of
// a tool version or a diffed schema that could not be read back is
// empty instead of an error where it is read (see replay.Input.Spool).
func (r *Result) readBackFailed() error {
	if r.spool == nil {
		return nil
	}
	return r.spool.ReadFailed()
}

// Write writes the bundle to dir (see bundle.WriteDir) and records what it
// changed in r.Written. The site's directory bounds where output may go
// unless force.
func (r *Result) Write(dir string, force bool) error {
	start := time.Now()
	defer func() { r.Stages.Write = time.Since(start) }()
	if err := keyguard.CheckOutput(r.Key, dir); err != nil {
		return err
	}
	var err error
	r.Written, err = r.Bundle.WriteDir(dir, bundle.WriteOptions{Root: r.Config.Dir, Force: force})
	return err
}

// Close releases the file in which a build with Options.Spool keeps the
// bundle's immutable files; they cannot be read after.
func (r *Result) Close() error {
	if r.spool == nil {
		return nil
	}
	return r.spool.Close()
}

func (r *Result) count(servers []worktree.Server, entries, versions int) {
	c := Counts{Files: r.Bundle.Len(), Servers: len(servers), Agents: len(r.Config.Agents), Entries: entries,
		Versions: versions}
	for _, s := range servers {
		c.Tools += len(s.Tools)
	}
	c.Documents, c.Pages = r.Bundle.Kinds()
	r.Counts = c
}
