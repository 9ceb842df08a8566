// Package feed is the build's feed stage: it signs the timeline's events
// into the agent-feed, with its archive documents, the snapshot replayed
// from it and the schema archive, and checks the feed against the one
// published before (CheckAppendOnly).
package feed

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/parallel"
)

// Content types of the feed's documents.
const (
	typeJSON = "application/json"
)

// emptyFeedTime is the feed's <updated> when it has no entries: a build may
// not read the clock, and an empty history has no time of its own.
var emptyFeedTime = time.Unix(0, 0).UTC()

// Input is what the feed is made of.
type Input struct {
	Config   *site.Config
	Timeline *timeline.Timeline // the committed history of the inputs
	Key      ed25519.PrivateKey // signs the entries and the snapshot
	// Check is given each page of entries as it is signed (the append-only
	// check, see ReadPrevious); nil for none.
	Check *Checker
	// DropEntries leaves Output.Entries nil, each page of entries dropped
	// once its document is made: for a build that writes once, whose
	// memory then holds one page of a long feed, not all of it.
	DropEntries bool
}

// Output is what the feed stage made besides the files it added.
type Output struct {
	Entries []agentfeed.Entry // the signed entries, in feed order; nil with Input.DropEntries
	Count   int               // how many entries the feed has
	// Notices say where a file went that a reader might look for elsewhere.
	Notices []string
}

// stage adds the feed's files to a bundle.
type stage struct {
	in  Input
	b   *bundle.Bundle
	out *Output
}

// add signs the timeline's events into the change feed and adds it to b,
// with the snapshot replayed from it and the schema archive.
func add(b *bundle.Bundle, in Input) (*Output, error) {
	s := &stage{in: in, b: b, out: &Output{}}
	if err := s.addFeed(in.Timeline); err != nil {
		return nil, err
	}
	return s.out, nil
}

func (st *stage) addFeed(tl *timeline.Timeline) error {
	cfg := st.in.Config
	did := didweb.DID(cfg.Base())
	signer := agentfeed.NewSigner(didweb.KeyURL(did, cfg.Signing.KeyID), st.in.Key)
	host := strings.ReplaceAll(cfg.Host(), ":", "%3A")
	newest := emptyFeedTime
	var repeated agentfeed.RepeatedIDs
	for e := range tl.Events() {
		if e.Time.After(newest) {
			newest = e.Time
		}
		repeated.Add(e.Type, e.EndpointID, e.Key)
	}
	status := agentfeed.Status(cfg.Feed.Status)
	f := &agentfeed.Feed{
		ID: did, Title: cfg.Title + " changes", Updated: agentfeed.FormatTime(newest), AuthorName: cfg.Author,
		SelfURL: cfg.URL(paths.Feed), AlternateURL: cfg.URL("/" + pages.ChangelogPath),
		// A path, not a URL: a browser applies only a style sheet of the
		// feed's own origin, which a preview's is not.
		Stylesheet:  strings.TrimSuffix(cfg.Base().Path, "/") + paths.FeedStylesheet,
		SpecVersion: agentfeed.SpecVersion, Status: status, MigratedTo: cfg.Feed.MigratedTo,
	}
	archiveURL := func(n int) string { return cfg.URL(paths.FeedArchive(n)) }
	// The feed is signed, replayed into the snapshot's state and written a
	// page at a time (the archive documents, then the subscription
	// document, RFC 5005 §4): no page depends on a later one.
	size, count := cfg.Feed.PageSize, tl.EventCount()
	full := agentfeed.Archives(count, size)
	state := agentfeed.NewState()
	// The state remembers only the ids the feed repeats, which it does
	// only where two events' names have digests that agree (see
	// agentfeed.EntryID): two digests an entry would be most of what a
	// long history's replay holds.
	state.RememberOnly(repeated.IDs(host))
	links := st.newLinker(tl)
	for n := 1; n <= full+1; n++ {
		first := (n - 1) * size
		page := make([]timeline.Event, 0, min(size, count-first))
		for i := first; i < min(n*size, count); i++ {
			page = append(page, tl.Event(i))
		}
		entries, err := signEntries(signer, host, page)
		if err != nil {
			return err
		}
		links.link(entries, page)
		if err := state.ApplyAll(first, entries); err != nil {
			return fmt.Errorf("replaying the feed: %v", err)
		}
		st.in.Check.Check(entries)
		doc, p := agentfeed.SubscriptionPage(f, entries, full, archiveURL), paths.Feed
		if n <= full {
			doc, p = agentfeed.ArchivePage(f, entries, n, archiveURL), paths.FeedArchive(n)
		}
		if err := st.addDocument(p, doc); err != nil {
			return err
		}
		if !st.in.DropEntries {
			st.out.Entries = append(st.out.Entries, entries...)
		}
	}
	st.out.Count = count
	if err := st.addSnapshot(signer, state, did, agentfeed.FormatTime(newest), status); err != nil {
		return err
	}
	return st.addArchive(tl)
}

// addDocument adds a document of the feed at p.
func (st *stage) addDocument(p string, doc *agentfeed.Feed) error {
	data, err := agentfeed.Encode(doc)
	if err != nil {
		return fmt.Errorf("%s: %v", p, err)
	}
	return st.b.Add(p, data, agentfeed.ContentType)
}

// signEntries signs the events into entries, with their titles, on every
// core: signing is most of a large feed's cost.
func signEntries(signer agentfeed.Signer, host string, events []timeline.Event) ([]agentfeed.Entry, error) {
	entries := make([]agentfeed.Entry, len(events))
	errs := make([]error, len(events))
	parallel.For(len(events), func(i int) {
		e := events[i]
		id := agentfeed.EntryID(host, e.Type, e.EndpointID, e.Key)
		title, summary, payload := e.Texts()
		entries[i], errs[i] = agentfeed.NewEntry(signer, id, e.Type, agentfeed.FormatTime(e.Time), summary, payload)
		if errs[i] != nil {
			errs[i] = fmt.Errorf("feed entry %s: %v", id, errs[i])
		}
		entries[i].Title = plainTitle(title)
	})
	return entries, errors.Join(errs...)
}

// plainTitle writes the code spans of a title as quoted words: a feed
// reader shows a title as plain text, where `city` would keep its
// backticks. Summaries and pages keep the Markdown.
func plainTitle(title string) string {
	if !strings.Contains(title, "`") {
		return title // no copy: most titles have no code span
	}
	parts := strings.Split(title, "`")
	if len(parts)%2 == 0 { // an unpaired backtick: no spans to tell
		return strings.Join(parts, "")
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			p = "“" + p + "”"
		}
		b.WriteString(p)
	}
	return b.String()
}

// linker gives entries the URLs of the pages about their endpoints. They
// are not signed, so a page that moves (a server's slug changed) moves
// its links in every entry.
type linker struct {
	st        *stage
	slugs     map[string]string
	histories map[string]*timeline.ServerHistory
	links     map[string]string // by endpoint: one string, which a long history's entries share
}

func (st *stage) newLinker(tl *timeline.Timeline) *linker {
	l := &linker{st: st, slugs: pageSlugs(st.in.Config.Servers, tl.Servers),
		histories: map[string]*timeline.ServerHistory{}, links: map[string]string{}}
	for _, h := range tl.Servers {
		l.histories[h.Name] = h
	}
	return l
}

// link gives each entry its link, from the event it was signed from.
func (l *linker) link(entries []agentfeed.Entry, events []timeline.Event) {
	for i, e := range events {
		link, ok := l.links[e.EndpointID]
		if !ok {
			link = l.st.link(e.EndpointID, l.slugs, l.histories)
			l.links[e.EndpointID] = link
		}
		entries[i].Link = link
	}
}

// link is the URL of the page about an endpoint, or "" when it has none.
func (st *stage) link(endpoint string, slugs map[string]string, histories map[string]*timeline.ServerHistory) string {
	server, tool, isTool := strings.Cut(endpoint, "#")
	slug, ok := slugs[server]
	switch {
	case !ok:
	case !isTool:
		return st.in.Config.URL("/" + pages.ServerPath(slug))
	case histories[server] != nil && histories[server].Tool(tool) != nil:
		return st.in.Config.URL("/" + pages.ToolPath(slug, tool))
	}
	return ""
}

// pageSlugs maps each server name to the slug of its page, as the pages
// make them: a configured server's slug, else the slug it last had,
// unless a server listed before it has the page there.
func pageSlugs(configured []site.Server, histories []*timeline.ServerHistory) map[string]string {
	slugs := map[string]string{}
	taken := map[string]bool{}
	for _, s := range configured {
		slugs[s.Name], taken[s.Slug] = s.Slug, true
	}
	for _, h := range histories {
		if _, ok := slugs[h.Name]; !ok && !taken[h.Last.Slug] {
			slugs[h.Name], taken[h.Last.Slug] = h.Last.Slug, true
		}
	}
	return slugs
}

// addSnapshot publishes the current state, replayed from the feed's entries
// as they were signed, so that the two cannot disagree.
func (st *stage) addSnapshot(signer agentfeed.Signer, state *agentfeed.State, did, generatedAt string, status agentfeed.Status) error {
	snapshot, err := agentfeed.Snapshot(signer, state, did, generatedAt, status)
	if err != nil {
		return err
	}
	path := paths.Snapshot
	if len(st.in.Config.Agents) > 0 {
		path = paths.SnapshotBesideA2A
		// The move is the design, not a mistake to fix: a notice, so that a
		// site with an agent still builds clean.
		st.out.Notices = append(st.out.Notices, fmt.Sprintf("the agent-feed snapshot is published at %s, because the A2A Agent Card holds %s", paths.SnapshotBesideA2A, paths.Snapshot))
	}
	return st.b.Add(path, snapshot, typeJSON)
}

// addArchive publishes every version of every tool, as the canonical bytes
// whose SHA-256 the signed entries carry, under the slug its server had when
// it was published: a later change of slug does not move it. Two servers
// that published one tool version under one slug (a server renamed without
// a new slug) share the file when its bytes are the same.
func (st *stage) addArchive(tl *timeline.Timeline) error {
	for _, s := range tl.Servers {
		for _, t := range s.Tools {
			// One version at a time: the earlier ones are made when
			// asked for (see timeline.ToolHistory.At).
			for i := range t.Len() {
				v := t.At(i)
				p := paths.ToolVersion(v.Slug, t.Name, v.Version)
				if f, ok := st.b.Get(p); ok {
					if err := st.sameArchived(f, s.Name, t.Name, v); err != nil {
						return err
					}
					continue
				}
				if err := st.addVersion(p, v.Tool); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// addVersion adds a tool version's archived file at p: where the replay
// kept its bytes in the bundle's spool, the file is those bytes there.
func (st *stage) addVersion(p string, t tools.Tool) error {
	if at, ok := t.Stored.(*bundle.Spooled); ok {
		return st.b.AddSpooled(p, at, typeJSON)
	}
	return st.b.Add(p, t.Canonical, typeJSON)
}

// sameArchived fails unless the archived file f holds version v of server's
// tool.
func (st *stage) sameArchived(f *bundle.File, server, tool string, v *timeline.Version) error {
	body, err := f.Bytes()
	if err != nil {
		return err
	}
	canonical, err := v.Tool.ReadCanonical()
	if err != nil {
		return err
	}
	if string(body) != string(canonical) {
		return diag.Errorf(st.in.Config.File, 0, "server %s published tool %s %s under the slug %q, where another server published a different %s %s",
			server, tool, v.Version, v.Slug, tool, v.Version).
			WithHint("give the server a slug of its own (slug = \"...\" in its [[servers]] table)")
	}
	return nil
}
