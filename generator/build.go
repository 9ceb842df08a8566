// Package generator turns a site definition into a Bundle. Build wires the
// stages, in order: the config (site.toml, the working tree's tool files,
// the signing key); the replay of git history (package replay), compared
// with the working tree; the signed feed (package feed), checked against
// the one published before; the EDP attestations; the documents, each
// checked against its format; the pages (package pages, from the config,
// the history, the documents, the key and the attestations); the deploy
// files; and the scan of the whole bundle for the key. Write then writes the
// Bundle, or serve serves it.
package generator

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/generator/agentfeed"
	"github.com/wellknown-dev/wellknown/generator/attestation"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/cards"
	"github.com/wellknown-dev/wellknown/generator/deploy"
	"github.com/wellknown-dev/wellknown/generator/diag"
	"github.com/wellknown-dev/wellknown/generator/didweb"
	"github.com/wellknown-dev/wellknown/generator/feed"
	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/generator/paths"
	"github.com/wellknown-dev/wellknown/generator/replay"
	"github.com/wellknown-dev/wellknown/generator/site"
	"github.com/wellknown-dev/wellknown/generator/timeline"
	"github.com/wellknown-dev/wellknown/generator/tools"
)

// Options are the inputs of a build besides the files it reads.
type Options struct {
	ConfigPath string   // site.toml
	Overrides  []string // --set key=value
	KeyFile    string   // --key-file
	Strict     bool     // --strict: no development key, no uncommitted or missing history
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
}

// Result is a finished build.
type Result struct {
	Bundle   *bundle.Bundle
	Config   *site.Config
	Key      didweb.SigningKey
	Timeline *timeline.Timeline // the committed history of the inputs
	Entries  []agentfeed.Entry  // the signed feed entries, in feed order
	Warnings []string
	// Attestations are the checked attestations of the entity card's MCP
	// entries, by site.toml key path ("entity.entities.0.mcps.1").
	Attestations map[string]attestation.Token
	Counts       Counts
	Stages       Stages
	Reuse        Reuse             // what a build given a Cache reused
	Written      bundle.WriteStats // what Write changed on disk
	Notices      []string          // what a build did that is worth knowing but needs no action

	commitRepos map[string]string // by server name: where its tools' commits can be linked (see replay.Output)
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

// Server is a configured server with its tools, sorted by name.
type Server struct {
	Config *site.Server
	Index  int // position in site.toml
	Tools  []tools.Tool
}

// Build runs a whole build in memory. The error lists every problem found
// (each a *diag.Error where it can be located).
func Build(opt Options) (*Result, error) {
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
	cfg, err := site.Load(opt.ConfigPath, opt.Overrides)
	if err != nil {
		return nil, err
	}
	config := cfg.Fingerprint()
	servers, err := loadServers(cfg, opt.Cache.toolFiles())
	if err != nil {
		return nil, err
	}
	strict := opt.Strict || getenv("CI") == "true"
	key, err := loadKey(opt, cfg, strict, getenv)
	if err != nil {
		return nil, err
	}
	r := &Result{Bundle: bundle.New(), Config: cfg, Key: key}
	if key.Warning != "" {
		r.Warnings = append(r.Warnings, key.Warning)
	}
	r.Stages.Read = time.Since(start)
	progress("reading git history")
	replayed, reused, err := opt.Cache.readHistory(replay.Input{Config: cfg, Rev: opt.Rev, Revs: opt.Revs,
		AllowShallow: opt.AllowShallow, Strict: strict, Endpoint: r.endpoint}, config)
	if err != nil {
		return nil, err
	}
	r.Timeline, r.commitRepos = replayed.Timeline, replayed.CommitRepos
	r.Warnings = append(r.Warnings, replayed.Warnings...)
	r.Notices = append(r.Notices, replayed.Notices...)
	r.Stages.Read += replayed.ReadTime
	r.Stages.Diff = replayed.DiffTime
	r.Reuse.Replay = reused
	if err := r.checkCommitted(servers, strict, opt.IgnoreUncommitted); err != nil {
		return nil, err
	}
	start = time.Now()
	progress("signing the feed")
	signed, reused, err := opt.Cache.addFeed(r.Bundle, feed.Input{Config: cfg, Timeline: r.Timeline, Key: key.Private}, config)
	if err != nil {
		return nil, err
	}
	r.Reuse.Feed = reused
	r.Entries = signed.Entries
	r.Warnings = append(r.Warnings, signed.Warnings...)
	if opt.PreviousLive {
		opt.Previous = cfg.URL(paths.Feed)
	}
	if opt.Previous != "" {
		warnings, err := feed.CheckAppendOnly(opt.Previous, r.Entries)
		if err != nil {
			return nil, err
		}
		r.Warnings = append(r.Warnings, warnings...)
	}
	r.Stages.Sign = time.Since(start)
	start = time.Now()
	progress("rendering documents and pages")
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	if err := r.checkAttestations(getenv, now(), !strict || opt.Key != nil); err != nil {
		return nil, err
	}
	if err := r.addDocuments(servers); err != nil {
		return nil, err
	}
	if err := r.addPages(servers, opt.Cache.pageCache()); err != nil {
		return nil, err
	}
	warnings, err := deploy.AddFiles(r.Bundle, cfg)
	if err != nil {
		return nil, err
	}
	r.Warnings = append(r.Warnings, warnings...)
	if err := r.scanForKey(); err != nil {
		return nil, err
	}
	r.Stages.Render = time.Since(start)
	r.count(servers)
	opt.Cache.count(&r.Reuse)
	return r, nil
}

// addPages renders the pages (see pages.RenderBuild) into the bundle. It
// runs after every document is in the bundle, since the pages link to them.
func (r *Result) addPages(servers []Server, cache *pages.Cache) error {
	in := pages.BuildInput{Config: r.Config, Timeline: r.Timeline, CommitRepos: r.commitRepos,
		Files: r.Bundle.Files(), Key: r.Key.Public(), Attestations: r.Attestations, Cache: cache}
	for _, s := range servers {
		// The reserved paths were checked when the cards were added.
		reserved, _ := r.reservedCardPaths(s)
		bs := pages.BuildServer{Config: s.Config, Tools: s.Tools}
		for _, rc := range reserved {
			bs.ReservedCards = append(bs.ReservedCards, rc.Path)
		}
		in.Servers = append(in.Servers, bs)
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
	key, err := didweb.LoadSigningKey(didweb.KeySources{
		FlagFile:   opt.KeyFile,
		EnvName:    cfg.Signing.KeyEnv,
		EnvValue:   getenv(cfg.Signing.KeyEnv),
		ConfigFile: cfg.Path(cfg.Signing.KeyFile),
		SiteDir:    cfg.Dir,
		Strict:     strict,
	})
	if err != nil {
		return key, err
	}
	return key, refuseKeyPublished(key, cfg)
}

// loadServers checks imported registry documents and reads every server's
// tool files from the working tree.
func loadServers(cfg *site.Config, cache *tools.Cache) ([]Server, error) {
	var problems []error
	servers := make([]Server, len(cfg.Servers))
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		servers[i] = Server{Config: s, Index: i}
		if s.ImportData != nil {
			for _, p := range cards.CheckRegistryServer(s.ImportData) {
				problems = append(problems, diag.Errorf(cfg.Path(s.Import), 0, "registry server.json: %v", p))
			}
		}
		if s.Tools == "" {
			continue
		}
		root := cfg.Path(s.Repo)
		if root == "" {
			root = cfg.Dir
		}
		ts, err := cache.Load(root, s.Tools, func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }, s.Exclude...)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		servers[i].Tools = ts
	}
	return servers, errors.Join(problems...)
}

// Write writes the bundle to dir (see bundle.WriteDir) and records what it
// changed in r.Written. The site's directory bounds where output may go
// unless force.
func (r *Result) Write(dir string, force bool) error {
	start := time.Now()
	defer func() { r.Stages.Write = time.Since(start) }()
	if keyInside(r.Key, dir) {
		return diag.Errorf(r.Key.File, 0, "the signing key is inside the output directory %s, which a build replaces", dir).
			WithHint("keep the key outside the output, e.g. create one with: wellknown keygen -o signing.key")
	}
	var err error
	r.Written, err = r.Bundle.WriteDir(dir, bundle.WriteOptions{Root: r.Config.Dir, Force: force})
	return err
}

func (r *Result) count(servers []Server) {
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
		case deploy.IsDocument(f):
			c.Documents++
		case strings.HasSuffix(f.Path, ".html"):
			c.Pages++
		}
	}
	r.Counts = c
}

// located converts a document's problems to errors via locate.
func located(problems []cards.Problem, locate func(cards.Problem) error) error {
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = locate(p)
	}
	return errors.Join(errs...)
}

// unlocated names the document when a problem can't be traced to an input.
func unlocated(doc string) func(cards.Problem) error {
	return func(p cards.Problem) error { return fmt.Errorf("%s: %v (this is a bug in wellknown)", doc, p) }
}
