// Package generator turns a site definition into a Bundle. Build only wires
// the stages, each a package with explicit inputs and outputs, in order:
//
//  1. config: site.toml (site.Load), the signing key (keyguard.LoadKey,
//     which refuses a key git tracks), refused where the site would
//     publish it (keyguard.CheckSite), and the working tree's tool files
//     (worktree.Load); the key's file is refused by any name the tool
//     files and pages are read by (didweb.KeyFileSecret);
//  2. history: git history replayed commit by commit (replay.Read), and the
//     working tree compared with it (worktree.Check);
//  3. feed: the signed feed, its archives, snapshot and schema archive
//     (feed.Add), checked against the feed published before
//     (feed.CheckAppendOnly);
//  4. documents: the EDP attestations (documents.Attest), then every document,
//     each checked against its format (documents.Add);
//  5. pages: from the config, the history, the documents, the key and the
//     attestations (pages.RenderBuild);
//  6. deploy: the host's files (deploy.AddFiles);
//  7. key scan: the whole bundle searched for the signing key
//     (keyguard.Scanned.Scan).
//
// Result.Write then writes the Bundle (keyguard.CheckOutput, then
// bundle.WriteDir), or serve serves it. Given a Cache (Options.Cache), a
// build reuses the outputs of the stages whose inputs are what they were
// in the build before (see Cache), and makes the same bytes.
package generator

import (
	"fmt"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/generator/agentfeed"
	"github.com/wellknown-dev/wellknown/generator/attestation"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/deploy"
	"github.com/wellknown-dev/wellknown/generator/diag"
	"github.com/wellknown-dev/wellknown/generator/didweb"
	"github.com/wellknown-dev/wellknown/generator/documents"
	"github.com/wellknown-dev/wellknown/generator/feed"
	"github.com/wellknown-dev/wellknown/generator/keyguard"
	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/generator/paths"
	"github.com/wellknown-dev/wellknown/generator/replay"
	"github.com/wellknown-dev/wellknown/generator/site"
	"github.com/wellknown-dev/wellknown/generator/timeline"
	"github.com/wellknown-dev/wellknown/generator/worktree"
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
	// Progress, when set, is told each stage as it starts ("reading git
	// history"), for a person watching a long build.
	Progress func(stage string)
	// IgnoreUncommitted skips comparing the working tree with the history:
	// for a build of another revision's feed, which the working tree differs
	// from by design.
	IgnoreUncommitted bool
	// Now is the time expiry is judged at (EDP attestations); nil means
	// time.Now. It decides errors and warnings, never what is written.
	Now func() time.Time
	// Cache, when set, carries the stages' outputs from one build to the
	// next, which reuses those whose inputs did not change (see Cache).
	Cache *Cache
	// Spool keeps the immutable outputs (archived tool versions, feed
	// archives) in a temporary file until Write instead of in memory (see
	// bundle.Spool), and the timeline only the bytes of each tool's
	// versions the pages diff: for a build that writes once, which then
	// holds little of a long history's output at a time. Ignored with a
	// Cache, whose next build reuses the bytes. Result.Close releases the
	// file.
	Spool bool
}

// Result is a finished build.
type Result struct {
	Bundle   *bundle.Bundle
	Config   *site.Config
	Key      didweb.SigningKey
	Timeline *timeline.Timeline // the committed history of the inputs (see Options.Spool)
	Entries  []agentfeed.Entry  // the signed feed entries, in feed order
	Warnings []*diag.Error
	// Attestations are the checked attestations of the entity card's MCP
	// entries, by site.toml key path ("entity.entities.0.mcps.1").
	Attestations map[string]attestation.Token
	Counts       Counts
	Stages       Stages
	Reuse        Reuse             // what a build given a Cache reused
	Written      bundle.WriteStats // what Write changed on disk
	Notices      []string          // what a build did that is worth knowing but needs no action

	commitRepos map[string]string // by server name: where its tools' commits can be linked (see replay.Output)
	spool       *bundle.Spool     // where Bundle keeps its immutable files; nil without Options.Spool
}

// Stages says how long each stage of a build took: for benchmarks and the
// --json summary, never for anything written to the output.
type Stages struct {
	Read   time.Duration `json:"read"`   // site.toml, tool files, key, git history and blobs
	Diff   time.Duration `json:"diff"`   // replaying history: parsing, diffing, versions, events
	Sign   time.Duration `json:"sign"`   // signing entries; feed, snapshot and archive
	Render time.Duration `json:"render"` // documents, pages, deploy files
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
	progress("reading the site definition, tool files and key")
	getenv := opt.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	cfg, err := site.LoadWithKey(opt.ConfigPath, opt.Overrides, opt.KeyFile)
	if err != nil {
		return nil, err
	}
	config := cfg.Fingerprint()
	strict := opt.Strict || getenv("CI") == "true"
	key, err := loadKey(opt, cfg, strict, getenv)
	if err != nil {
		return nil, err
	}
	servers, err := worktree.Load(cfg, opt.Cache.toolFiles(), didweb.KeyFileSecret(key.File))
	if err != nil {
		return nil, err
	}
	r := &Result{Bundle: bundle.New(), Config: cfg, Key: key}
	if opt.Spool && opt.Cache == nil {
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
	if key.Warning != nil {
		r.Warnings = append(r.Warnings, key.Warning)
	}
	r.Stages.Read = time.Since(start)
	progress("reading git history")
	replayed, reused, err := opt.Cache.readHistory(replay.Input{Config: cfg, Rev: opt.Rev, Revs: opt.Revs,
		AllowShallow: opt.AllowShallow, Strict: strict, Endpoint: cfg.Endpoint}, config)
	if err != nil {
		return nil, err
	}
	r.Timeline, r.commitRepos = replayed.Timeline, replayed.CommitRepos
	r.Warnings = append(r.Warnings, replayed.Warnings...)
	r.Notices = append(r.Notices, replayed.Notices...)
	r.Stages.Read += replayed.ReadTime
	r.Stages.Diff = replayed.DiffTime
	r.Reuse.Replay, r.Reuse.ReplayResumed = reused, replayed.Resumed
	uncommitted, err := worktree.Check(worktree.Input{Config: cfg, Timeline: r.Timeline, Servers: servers,
		Strict: strict, IgnoreUncommitted: opt.IgnoreUncommitted})
	if err != nil {
		return nil, err
	}
	r.Warnings = append(r.Warnings, uncommitted...)
	start = time.Now()
	progress("signing the feed")
	signed, reused, err := opt.Cache.addFeed(r.Bundle, feed.Input{Config: cfg, Timeline: r.Timeline, Key: key.Private}, config)
	if err != nil {
		return nil, err
	}
	r.Reuse.Feed = reused
	if r.spool != nil {
		r.Timeline.ForgetArchived(pages.DiffedVersions + 1)
	}
	r.Entries = signed.Entries
	r.Notices = append(r.Notices, signed.Notices...)
	if opt.PreviousLive {
		opt.Previous = cfg.URL(paths.Feed)
	}
	if opt.Previous != "" {
		checked, err := feed.CheckAppendOnly(feed.Previous{Source: opt.Previous, Optional: opt.PreviousOptional}, r.Entries)
		if err != nil {
			return nil, err
		}
		r.Notices = append(r.Notices, checked.Notices...)
		r.Warnings = append(r.Warnings, checked.Warnings...)
	}
	r.Stages.Sign = time.Since(start)
	start = time.Now()
	progress("rendering documents and pages")
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
	if err := r.addPages(servers, documented.ReservedCards, opt.Cache.pageCache()); err != nil {
		return nil, err
	}
	warnings, err := deploy.AddFiles(r.Bundle, cfg)
	if err != nil {
		return nil, err
	}
	r.Warnings = append(r.Warnings, warnings...)
	if err := opt.Cache.keyScan().Scan(r.Bundle, key); err != nil {
		return nil, err
	}
	r.Stages.Render = time.Since(start)
	r.count(servers)
	opt.Cache.count(&r.Reuse)
	return r, nil
}

// addPages renders the pages (see pages.RenderBuild) into the bundle. It
// runs after every document is in the bundle, since the pages link to them;
// reservedCards are the documents' (see documents.Output), by server.
func (r *Result) addPages(servers []worktree.Server, reservedCards [][]string, cache *pages.Cache) error {
	in := pages.BuildInput{Config: r.Config, Timeline: r.Timeline, CommitRepos: r.commitRepos,
		Files: r.Bundle.Files(), Key: r.Key.Public(), KeyFile: didweb.KeyFileSecret(r.Key.File), Attestations: r.Attestations, Cache: cache}
	for _, s := range servers {
		in.Servers = append(in.Servers, pages.BuildServer{Config: s.Config, Tools: s.Tools, ReservedCards: reservedCards[s.Index]})
	}
	files, warnings, err := pages.RenderBuild(in)
	if err != nil {
		return err
	}
	r.Warnings = append(r.Warnings, warnings...)
	for _, f := range files {
		if err := r.Bundle.Add(f.Path, f.Body, deploy.HostDefaultType(f.Path)); err != nil {
			return fmt.Errorf("page %s: %v", f.Path, err)
		}
	}
	return nil
}

// loadKey returns Options.Key, or else the key its sources name.
func loadKey(opt Options, cfg *site.Config, strict bool, getenv func(string) string) (didweb.SigningKey, error) {
	if opt.Key != nil {
		return *opt.Key, nil
	}
	key, err := keyguard.LoadKey(didweb.KeySources{
		FlagFile:   opt.KeyFile,
		EnvName:    cfg.Signing.KeyEnv,
		EnvValue:   getenv(cfg.Signing.KeyEnv),
		ConfigFile: cfg.Path(cfg.Signing.KeyFile),
		SiteDir:    cfg.Dir,
		Strict:     strict,
		Preview:    opt.Preview,
	})
	if err != nil {
		return key, err
	}
	return key, keyguard.CheckSite(key, cfg)
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

func (r *Result) count(servers []worktree.Server) {
	c := Counts{Files: r.Bundle.Len(), Servers: len(servers), Agents: len(r.Config.Agents), Entries: len(r.Entries)}
	for _, s := range servers {
		c.Tools += len(s.Tools)
	}
	for _, s := range r.Timeline.Servers {
		for _, t := range s.Tools {
			c.Versions += len(t.Versions)
		}
	}
	for _, f := range r.Bundle.Files() {
		switch {
		case f.IsDocument():
			c.Documents++
		case strings.HasSuffix(f.Path, ".html"):
			c.Pages++
		}
	}
	r.Counts = c
}
