// Package check reviews a branch before it is merged. It builds the site's
// change feed twice, at a base revision and at HEAD, and reports the entries
// HEAD adds, each with its class:
//
//   - breaking: a schema change whose x-compat is breaking, or a deprecation
//     whose sunset is not after the entry itself (an endpoint removed, or
//     deprecated with a sunset already past);
//   - compatible or cosmetic: a schema change of that x-compat, and an
//     endpoint announcement (a new tool or server, a new server version or
//     endpoint URL), which is compatible;
//   - notice: a deprecation announced ahead of its sunset.
//
// A breaking entry fails the check unless it is acknowledged, either by a
// [[breaking]] table of site.toml naming its endpoint and the version it goes
// to ("removed" for a removal, and a server's removal covers its tools), or,
// for a removal, by a deprecation of the endpoint that the base's feed
// already announced and whose sunset the removal comes after. An
// acknowledgement that matches no breaking entry of HEAD's whole feed is
// reported as a warning; one that matches an older entry is kept quiet, since
// acknowledgements stay in site.toml after their branch is merged.
//
// Entries are compared by id. Ids derive from content, never from commits, so
// an entry the base has is not new even where the branch's history places it
// at another commit (after a merge of the base into the branch).
//
// Both builds run in memory and sign with a throwaway key: a check writes
// nothing and needs no secret.
package check

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/generator/worktree"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// Class says what an entry means for the feed's readers.
type Class string

// The classes of entries.
const (
	Breaking   Class = "breaking"
	Compatible Class = "compatible"
	Cosmetic   Class = "cosmetic"
	Notice     Class = "notice"
)

// Options are the inputs of a check.
type Options struct {
	// Build describes the site as for a build; Run sets its Rev, Key and
	// IgnoreUncommitted.
	Build generator.Options
	// Base is the revision to compare with; "" means the merge base of HEAD
	// and the default branch.
	Base string
	// RepoBases are the revisions to compare other repositories with (the
	// servers' repo =), by directory; a repository not named here is
	// compared at the merge base of its HEAD and its default branch.
	RepoBases map[string]string
}

// Result is a finished check.
type Result struct {
	Base     Base
	Repos    []Base        // the bases of the other repositories the feed reads
	Entries  []Entry       // the entries HEAD adds, in feed order
	Warnings []*diag.Error // the build's warnings, and acknowledgements that match nothing
}

// Base is the revision HEAD was compared with.
type Base struct {
	Dir       string `json:"dir,omitempty"` // the repository, as site.toml names it; "" for the site's
	Ref       string `json:"ref"`           // as given, or the default branch found
	Commit    string `json:"commit"`        // the commit compared with
	MergeBase bool   `json:"merge_base"`    // Commit is the merge base of HEAD and Ref
	// AtHead says the merge base is HEAD itself: the check runs on the
	// default branch, or on a branch without commits of its own, so
	// nothing committed was compared.
	AtHead bool `json:"at_head,omitempty"`
}

// Entry is one feed entry HEAD adds.
type Entry struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	EndpointID string `json:"endpoint_id"`
	Class      Class  `json:"class"`
	From       string `json:"from,omitempty"` // a schema change's previous version
	To         string `json:"to,omitempty"`   // the version it goes to, or "removed"
	Summary    string `json:"summary"`
	// File and Line locate the change: the tool file of a tool's new
	// version, at the line of the change that decided it; the deleted file
	// of a removed tool; else site.toml (line 0 when no key of it is about
	// the entry).
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// AcknowledgedBy says what lets a breaking entry through; empty when
	// nothing does.
	AcknowledgedBy string `json:"acknowledged_by,omitempty"`

	updated time.Time
	sunset  time.Time // deprecations only
	hint    string    // what Problem says to do, when more is known than for any breaking change
}

// OK reports whether no entry fails the check.
func (r *Result) OK() bool {
	for _, e := range r.Entries {
		if e.Failed() {
			return false
		}
	}
	return true
}

// Failed reports whether e fails the check: breaking and not acknowledged.
func (e Entry) Failed() bool { return e.Class == Breaking && e.AcknowledgedBy == "" }

// Problem describes a failed entry, located at its file.
func (e Entry) Problem() *diag.Error {
	hint := e.hint
	if hint == "" {
		hint = "if it is intended, acknowledge it with a [[breaking]] table in site.toml, as the report shows"
	}
	return diag.Errorf(e.File, e.Line, "breaking change not acknowledged: %s", e.Summary).WithHint("%s", hint)
}

// Acknowledgement returns the site.toml table that acknowledges e.
func (e Entry) Acknowledgement() string {
	return fmt.Sprintf("[[breaking]]\nendpoint = %q\nto = %q\n", e.EndpointID, e.To)
}

// Run checks HEAD against the base.
func Run(opt Options) (*Result, error) {
	key := throwawayKey()
	headOpt := opt.Build
	headOpt.Rev, headOpt.Key, headOpt.IgnoreUncommitted = "", &key, false
	head, err := generator.Build(headOpt)
	if err != nil {
		return nil, err
	}
	repo, err := gitlog.Open(head.Config.Dir)
	if err != nil {
		return nil, err
	}
	getenv := opt.Build.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	base, err := findBase(repo, opt.Base, getenv)
	if err != nil {
		return nil, err
	}
	repos, err := repoBases(head.Config, repo, opt.RepoBases, getenv)
	if err != nil {
		return nil, err
	}
	baseOpt := headOpt
	baseOpt.Rev, baseOpt.IgnoreUncommitted, baseOpt.Revs = base.Commit, true, map[string]string{}
	for root, b := range repos {
		baseOpt.Revs[root] = b.Commit
	}
	old, err := generator.Build(baseOpt)
	if err != nil {
		return nil, atBase(base, err)
	}
	res, err := compare(base, old, head, repo)
	if err != nil {
		return nil, err
	}
	for _, root := range slices.Sorted(maps.Keys(repos)) {
		res.Repos = append(res.Repos, repos[root])
	}
	return res, nil
}

// repoBases finds the base of every other repository the site's servers
// read their tools from, by root directory: the revision overrides names
// for its directory, else the merge base of its HEAD and its default
// branch. A breaking change on a branch of a tools repository is then
// caught whichever repository the check runs in.
func repoBases(cfg *site.Config, siteRepo *gitlog.Repo, overrides map[string]string, getenv func(string) string) (map[string]Base, error) {
	wanted := map[string]string{} // root → revision
	for dir, ref := range overrides {
		r, err := gitlog.Open(dir)
		if err != nil {
			return nil, diag.Errorf("", 0, "--repo-base %s=%s: %v", dir, ref, err)
		}
		wanted[r.Root()] = ref
	}
	out := map[string]Base{}
	for _, s := range cfg.Servers {
		if s.Repo == "" {
			continue
		}
		r, err := gitlog.Open(cfg.Path(s.Repo))
		if err != nil {
			return nil, err // the build already reported it
		}
		if _, seen := out[r.Root()]; seen || r.Root() == siteRepo.Root() {
			continue
		}
		b, err := findBase(r, wanted[r.Root()], getenv)
		if err != nil {
			return nil, fmt.Errorf("repository %s: %w", s.Repo, err)
		}
		b.Dir = s.Repo
		out[r.Root()] = b
	}
	return out, nil
}

// throwawayKey signs the check's builds, whose output nobody sees. A fixed
// seed keeps them reproducible.
func throwawayKey() didweb.SigningKey {
	return didweb.SigningKey{Private: ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)), Source: "a throwaway key"}
}

// atBase says that the errors of the base's build are about the base.
func atBase(base Base, err error) error {
	problems := diag.List(err)
	for i, p := range problems {
		problems[i] = fmt.Errorf("building the feed of %s (%s): %w", base.Ref, gitlog.Short(base.Commit), p)
	}
	return errors.Join(problems...)
}

// compare classifies the entries head adds to old's feed and looks for
// their acknowledgements.
func compare(base Base, old, head *generator.Result, repo *gitlog.Repo) (*Result, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	c := &comparison{cfg: head.Config, files: toolFiles(head, repo, cwd), announced: map[string][]time.Time{}}
	// An entry counts as published only with the same payload: a branch
	// commit that lands with the base commit (one committer, one second)
	// changes the base's entry under its id.
	published := map[string]string{}
	for _, e := range old.Entries {
		published[e.ID] = string(e.Content)
		if entry, err := classify(e); err == nil && entry.Class == Notice {
			c.announced[entry.EndpointID] = append(c.announced[entry.EndpointID], entry.sunset)
		}
	}
	emptied := worktree.EmptiedServers(head.Config, head.Timeline)
	r := &Result{Base: base}
	var all []Entry
	for _, e := range head.Entries {
		entry, err := classify(e)
		if err != nil {
			return nil, err
		}
		all = append(all, entry)
		if content, ok := published[e.ID]; !ok || content != string(e.Content) {
			c.locate(&entry)
			entry.AcknowledgedBy = c.acknowledgedBy(entry)
			entry.hint = emptiedHint(emptied, entry)
			r.Entries = append(r.Entries, entry)
		}
	}
	r.Warnings = append(head.Warnings, c.unmatched(all)...)
	return r, nil
}

// emptiedHint returns the hint of the landing that removed every tool of
// a server at once, for the removal of one of those tools, or "".
func emptiedHint(emptied []worktree.Emptied, e Entry) string {
	if e.To != site.Removed {
		return ""
	}
	for _, em := range emptied {
		if em.Time.Equal(e.updated) && slices.Contains(em.Tools, e.EndpointID) {
			return em.Hint()
		}
	}
	return ""
}

// payload holds the fields of every entry type that a check reads.
type payload struct {
	EndpointID string `json:"endpoint-id"`
	From       string `json:"from-version"`
	To         string `json:"to-version"`
	Version    string `json:"version"`
	Compat     string `json:"x-compat"`
	Sunset     string `json:"sunset"`
}

// classify reads an entry's class from its payload, as a reader would.
func classify(e agentfeed.Entry) (Entry, error) {
	var p payload
	if err := json.Unmarshal(e.Content, &p); err != nil {
		return Entry{}, fmt.Errorf("feed entry %s: %v", e.ID, err)
	}
	updated, err := time.Parse(time.RFC3339, e.Updated)
	if err != nil {
		return Entry{}, fmt.Errorf("feed entry %s: updated: %v", e.ID, err)
	}
	out := Entry{ID: e.ID, Type: e.Type, EndpointID: p.EndpointID, Summary: e.Summary, updated: updated}
	switch e.Type {
	case agentfeed.TypeSchemaChange:
		out.From, out.To, out.Class = p.From, p.To, Class(p.Compat)
		if out.Class != Compatible && out.Class != Cosmetic {
			out.Class = Breaking // what is not known to be harmless is not
		}
	case agentfeed.TypeAnnouncement:
		out.To, out.Class = p.Version, Compatible
	case agentfeed.TypeDeprecation:
		if out.sunset, err = time.Parse(time.RFC3339, p.Sunset); err != nil {
			return Entry{}, fmt.Errorf("feed entry %s: sunset: %v", e.ID, err)
		}
		out.Class = Notice
		if !out.sunset.After(updated) {
			out.Class, out.To = Breaking, site.Removed
		}
	default:
		return Entry{}, fmt.Errorf("feed entry %s: unknown type %q", e.ID, e.Type)
	}
	return out, nil
}

// comparison holds what locating and acknowledging entries needs.
type comparison struct {
	cfg       *site.Config
	files     map[string]toolFile    // "<endpoint id>@<version>" → the tool file of that version; @removed: of the removal
	announced map[string][]time.Time // endpoint id → sunsets of its deprecations in the base's feed
}

// toolFile is where a version of a tool, or its removal, is located.
type toolFile struct {
	path    string       // relative to the working directory, as a user would write it
	repo    *gitlog.Repo // the repository holding it
	rel     string       // slash-separated, in repo
	pointer string       // the JSON Pointer of the change that decided the version; "" for none
}

// toolFiles maps each version of each tool to its file, and each tool's
// removal to its last file: paths relative to the working directory as a
// user would write them, in the site's repository, or in a server's repo =
// repository (so that check run in the tools repository's own CI names its
// files).
func toolFiles(head *generator.Result, siteRepo *gitlog.Repo, cwd string) map[string]toolFile {
	repos := map[string]*gitlog.Repo{} // server name → the repository its tools are in
	for _, s := range head.Config.Servers {
		repos[s.Name] = siteRepo
		if s.Repo == "" {
			continue
		}
		repo, err := gitlog.Open(head.Config.Path(s.Repo))
		if err != nil {
			delete(repos, s.Name) // its paths cannot be placed
			continue
		}
		repos[s.Name] = repo
	}
	files := map[string]toolFile{}
	for _, s := range head.Timeline.Servers {
		repo, ok := repos[s.Name]
		if !ok {
			continue
		}
		for _, t := range s.Tools {
			for _, v := range t.Versions() {
				f := toolFile{path: filepath.Join(repo.Root(), filepath.FromSlash(v.Tool.File)), repo: repo, rel: v.Tool.File}
				if rel, err := filepath.Rel(cwd, f.path); err == nil {
					f.path = rel
				}
				if d := v.Change(); d != nil && len(d.Changes) > 0 {
					f.pointer = d.MostSeriousFirst()[0].Pointer
				}
				files[t.EndpointID()+"@"+v.Version] = f
				f.pointer = ""
				files[t.EndpointID()+"@"+site.Removed] = f
			}
		}
	}
	return files
}

// locate points an entry at the tool file of the version it is about, on
// the line of the change that decided the version, or, for a removed
// tool, at its deleted file; else at the site.toml key of its server or
// deprecation.
func (c *comparison) locate(e *Entry) {
	if f, ok := c.files[e.EndpointID+"@"+e.To]; ok {
		e.File, e.Line = f.path, 1
		if f.pointer != "" {
			// The file as committed at HEAD, which the feed was built from.
			if data, err := f.repo.ReadBlob("HEAD:"+f.rel, tools.MaxFileBytes); err == nil {
				e.Line = pointerLine(data, f.pointer)
			}
		}
		return
	}
	e.File = c.cfg.File
	if e.Type == agentfeed.TypeDeprecation {
		for i, d := range c.cfg.Deprecations {
			if d.Endpoint == e.EndpointID {
				e.Line = c.cfg.Line(fmt.Sprintf("deprecations.%d", i))
				return
			}
		}
	}
	server, _, _ := strings.Cut(e.EndpointID, "#")
	for i, s := range c.cfg.Servers {
		if s.Name == server {
			e.Line = c.cfg.Line(fmt.Sprintf("servers.%d", i))
			return
		}
	}
}

// acknowledgedBy says what acknowledges a breaking entry, or "".
func (c *comparison) acknowledgedBy(e Entry) string {
	if e.Class != Breaking {
		return ""
	}
	for i, b := range c.cfg.Breaking {
		if b.Acknowledges(e.EndpointID, e.To) {
			by := fmt.Sprintf("[[breaking]] at %s:%d", c.cfg.File, c.cfg.Line(fmt.Sprintf("breaking.%d", i)))
			if b.Reason != "" {
				by += ": " + b.Reason
			}
			return by
		}
	}
	if e.To != site.Removed {
		return ""
	}
	server, _, _ := strings.Cut(e.EndpointID, "#")
	for _, id := range []string{e.EndpointID, server} {
		for _, sunset := range c.announced[id] {
			if !sunset.After(e.updated) {
				return fmt.Sprintf("the deprecation of %s with sunset %s", id, sunset.Format(time.RFC3339))
			}
		}
	}
	return ""
}

// unmatched warns about each acknowledgement that matches no breaking entry
// of the feed, a typo or a leftover.
func (c *comparison) unmatched(entries []Entry) []*diag.Error {
	var warnings []*diag.Error
	for i, b := range c.cfg.Breaking {
		matched := false
		for _, e := range entries {
			matched = matched || e.Class == Breaking && b.Acknowledges(e.EndpointID, e.To)
		}
		if !matched {
			warnings = append(warnings, c.cfg.Errorf(fmt.Sprintf("breaking.%d", i),
				"[[breaking]] endpoint %q to %q matches no breaking change of the feed", b.Endpoint, b.To).
				WithHint("check the endpoint id and version against the report, or remove the table"))
		}
	}
	return warnings
}
