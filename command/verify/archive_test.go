package verify

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

func archivePath(n int) string { return fmt.Sprintf("/.well-known/agent-feed/archive-%d.xml", n) }

// archivedFeed publishes a feed of seven announcements of the origin split
// three to a page: archives 1 and 2, and the subscription document with
// entry 7. edit may change the documents (the subscription document last)
// before they are published.
func (o *origin) archivedFeed(edit func(docs []*agentfeed.Feed)) {
	t := o.t
	t.Helper()
	f := &agentfeed.Feed{
		ID: o.did(), Title: "test feed", Updated: "2026-04-27T12:00:00Z", AuthorName: "test",
		SelfURL: o.url(paths.Feed), SpecVersion: agentfeed.SpecVersion, Status: agentfeed.StatusActive,
	}
	for i := range 7 {
		f.Entries = append(f.Entries, announce(t, o.signer(), fmt.Sprintf("urn:af:test:%d", i+1), fmt.Sprintf("api-%d", i+1), "1.0"))
	}
	url := func(n int) string { return o.url(archivePath(n)) }
	full := agentfeed.Archives(len(f.Entries), 3)
	var docs []*agentfeed.Feed
	for n := 1; n <= full; n++ {
		docs = append(docs, agentfeed.ArchivePage(f, f.Entries[(n-1)*3:n*3], n, url))
	}
	docs = append(docs, agentfeed.SubscriptionPage(f, f.Entries[full*3:], full, url))
	if edit != nil {
		edit(docs)
	}
	for i, d := range docs {
		data, err := agentfeed.Encode(d)
		if err != nil {
			t.Fatal(err)
		}
		p := paths.Feed
		if i < full {
			p = archivePath(i + 1)
		}
		o.put(p, data, nil)
	}
}

// archivedSite commits a site whose feed holds five entries a page, with
// one tool added per commit: tools tools, numbered from 1. Its feed has
// tools+1 entries: the server's announcement comes first.
func archivedSite(t *testing.T, tools int) (*gittest.Repo, string) {
	t.Helper()
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", `base_url = "https://weather.example.com/"
title = "Archives"

[feed]
page_size = 5

[[servers]]
name = "com.example.weather/forecast"
description = "Forecasts."
version = "1.0.0"
tools = "tools/*.json"

[[servers.remotes]]
type = "streamable-http"
url = "https://weather.example.com/mcp"
`)
	for i := 1; i <= tools; i++ {
		g.Write(fmt.Sprintf("tools/tool_%02d.json", i), fmt.Sprintf(`{"name": "tool_%02d", "description": "Tool %d.", "inputSchema": {"type": "object"}}`, i, i))
		g.Commit(fmt.Sprintf("tool %d", i))
	}
	return g, filepath.Join(g.Dir, "site.toml")
}

// A built site of 23 entries, five a page, verifies without a finding
// from a directory and live, every entry read across four archives.
func TestBuiltSiteWithArchives(t *testing.T) {
	_, config := archivedSite(t, 22)
	buildFor := func(overrides ...string) *generator.Result {
		res, err := generator.Build(generator.Options{ConfigPath: config, Overrides: overrides})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Entries) != 23 {
			t.Fatalf("%d entries, want 23", len(res.Entries))
		}
		for n := 1; n <= 5; n++ {
			if _, ok := res.Bundle.Get(archivePath(n)); ok != (n <= 4) {
				t.Errorf("archive %d published: %v", n, ok)
			}
		}
		return res
	}
	out := filepath.Join(t.TempDir(), "public")
	if err := buildFor().Write(out, true); err != nil {
		t.Fatal(err)
	}
	o := newOrigin(t, hostHeaders)
	o.serveBundle(buildFor("base_url=" + o.base.String()).Bundle)
	for _, target := range []string{out, o.base.String()} {
		rep := run(t, Options{Target: target})
		if got := rep.Origins[0]; !rep.OK || rep.Warnings != 0 || got.Entries != 23 || got.Verified != 23 || !got.Trusted {
			t.Errorf("%s: ok %v, %d of %d entries verified:%s", target, rep.OK, got.Verified, got.Entries, dump(rep))
		}
	}
}
