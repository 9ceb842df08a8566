package generator

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/generator/agentfeed"
	"github.com/wellknown-dev/wellknown/generator/diag"
	"github.com/wellknown-dev/wellknown/generator/didweb"
	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/generator/paths"
	"github.com/wellknown-dev/wellknown/generator/site"
	"github.com/wellknown-dev/wellknown/generator/timeline"
	"github.com/wellknown-dev/wellknown/internal/parallel"
)

const typeAtom = "application/atom+xml; charset=utf-8"

// emptyFeedTime is the feed's <updated> when it has no entries: a build may
// not read the clock, and an empty history has no time of its own.
var emptyFeedTime = time.Unix(0, 0).UTC()

// addFeed signs the timeline's events into the change feed and adds it, the
// snapshot replayed from it, and the schema archive.
func (r *Result) addFeed(tl *timeline.Timeline) error {
	cfg := r.Config
	did := didweb.DID(cfg.Base())
	signer := agentfeed.NewSigner(didweb.KeyURL(did, cfg.Signing.KeyID), r.Key.Private)
	host := strings.ReplaceAll(cfg.Host(), ":", "%3A")
	entries, err := signEntries(signer, host, tl.Events)
	if err != nil {
		return err
	}
	r.linkEntries(entries, tl)
	newest := emptyFeedTime
	for _, e := range tl.Events {
		if e.Time.After(newest) {
			newest = e.Time
		}
	}
	r.Entries = entries
	status := agentfeed.Status(cfg.Feed.Status)
	err = r.addFeedDocuments(&agentfeed.Feed{
		ID: did, Title: cfg.Title + " changes", Updated: agentfeed.FormatTime(newest), AuthorName: cfg.Author,
		SelfURL: cfg.URL(paths.Feed), AlternateURL: cfg.URL("/" + pages.ChangelogPath), SpecVersion: agentfeed.SpecVersion, Status: status, MigratedTo: cfg.Feed.MigratedTo,
		Entries: entries,
	})
	if err != nil {
		return err
	}
	if err := r.addSnapshot(signer, entries, did, agentfeed.FormatTime(newest), status); err != nil {
		return err
	}
	return r.addArchive(tl)
}

// addFeedDocuments adds the subscription document and the archive documents
// of the entries it no longer holds (RFC 5005 §4).
func (r *Result) addFeedDocuments(f *agentfeed.Feed) error {
	current, archives := agentfeed.Paginate(f, r.Config.Feed.PageSize, func(n int) string {
		return r.Config.URL(paths.FeedArchive(n))
	})
	for i, doc := range append(archives, current) {
		p := paths.Feed
		if i < len(archives) {
			p = paths.FeedArchive(i + 1)
		}
		data, err := agentfeed.Encode(doc)
		if err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
		if err := r.Bundle.Add(p, data, typeAtom); err != nil {
			return err
		}
	}
	return nil
}

// signEntries signs the events into entries, on every core: signing is
// most of a large feed's cost.
func signEntries(signer agentfeed.Signer, host string, events []timeline.Event) ([]agentfeed.Entry, error) {
	entries := make([]agentfeed.Entry, len(events))
	errs := make([]error, len(events))
	parallel.For(len(events), func(i int) {
		e := events[i]
		id := agentfeed.EntryID(host, e.Type, e.EndpointID, e.Key)
		entries[i], errs[i] = agentfeed.NewEntry(signer, id, e.Type, agentfeed.FormatTime(e.Time), e.Summary, e.Payload)
		if errs[i] != nil {
			errs[i] = fmt.Errorf("feed entry %s: %v", id, errs[i])
		}
	})
	return entries, errors.Join(errs...)
}

// linkEntries gives each entry its title and the URL of the page about its
// endpoint. Neither is signed, so a page that moves (a server's slug
// changed) moves its links in every entry.
func (r *Result) linkEntries(entries []agentfeed.Entry, tl *timeline.Timeline) {
	slugs := pageSlugs(r.Config.Servers, tl.Servers)
	histories := map[string]*timeline.ServerHistory{}
	for _, h := range tl.Servers {
		histories[h.Name] = h
	}
	for i, e := range tl.Events {
		entries[i].Title = e.Title
		server, tool, isTool := strings.Cut(e.EndpointID, "#")
		slug, ok := slugs[server]
		switch {
		case !ok:
		case !isTool:
			entries[i].Link = r.Config.URL("/" + pages.ServerPath(slug))
		case histories[server] != nil && histories[server].Tool(tool) != nil:
			entries[i].Link = r.Config.URL("/" + pages.ToolPath(slug, tool))
		}
	}
}

// pageSlugs maps each server name to the slug of its page, as addPages
// makes them: a configured server's slug, else the slug it last had,
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

// addSnapshot publishes the current state, replayed from the feed itself so
// that the two cannot disagree.
func (r *Result) addSnapshot(signer agentfeed.Signer, entries []agentfeed.Entry, did, generatedAt string, status agentfeed.Status) error {
	state, err := agentfeed.Replay(entries)
	if err != nil {
		return fmt.Errorf("replaying the feed: %v", err)
	}
	snapshot, err := agentfeed.Snapshot(signer, state, did, generatedAt, status)
	if err != nil {
		return err
	}
	path := paths.Snapshot
	if len(r.Config.Agents) > 0 {
		path = paths.SnapshotBesideA2A
		r.Warnings = append(r.Warnings, fmt.Sprintf("the agent-feed snapshot is published at %s, because the A2A Agent Card holds %s", paths.SnapshotBesideA2A, paths.Snapshot))
	}
	return r.Bundle.Add(path, snapshot, typeJSON)
}

// addArchive publishes every version of every tool, as the canonical bytes
// whose SHA-256 the signed entries carry, under the slug its server had when
// it was published: a later change of slug does not move it. Two servers
// that published one tool version under one slug (a server renamed without
// a new slug) share the file when its bytes are the same.
func (r *Result) addArchive(tl *timeline.Timeline) error {
	for _, s := range tl.Servers {
		for _, t := range s.Tools {
			for _, v := range t.Versions {
				p := paths.ToolVersion(v.Slug, t.Name, v.Version)
				if f, ok := r.Bundle.Get(p); ok {
					if string(f.Body) != string(v.Tool.Canonical) {
						return diag.Errorf(r.Config.File, 0, "server %s published tool %s %s under the slug %q, where another server published a different %s %s",
							s.Name, t.Name, v.Version, v.Slug, t.Name, v.Version).
							WithHint("give the server a slug of its own (slug = \"...\" in its [[servers]] table)")
					}
					continue
				}
				if err := r.Bundle.Add(p, v.Tool.Canonical, typeJSON); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
