package verify

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/generator/agentfeed"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

func archivePath(n int) string { return fmt.Sprintf("/.well-known/agent-feed/archive-%d.xml", n) }

// archivedFeed is a feed of seven announcements of the origin split three
// to a page: archives 1 and 2, and the subscription document with entry 7.
// edit may change the documents (the subscription document last) before
// they are published.
func (o *origin) archivedFeed(edit func(docs []*agentfeed.Feed)) {
	t := o.t
	t.Helper()
	f := &agentfeed.Feed{
		ID: o.did(), Title: "test feed", Updated: "2026-04-27T12:00:00Z", AuthorName: "test",
		SelfURL: o.url(pathFeed), SpecVersion: agentfeed.SpecVersion, Status: agentfeed.StatusActive,
	}
	for i := range 7 {
		f.Entries = append(f.Entries, announce(t, o.signer(), fmt.Sprintf("urn:af:test:%d", i+1), fmt.Sprintf("api-%d", i+1), "1.0"))
	}
	current, archives := agentfeed.Paginate(f, 3, func(n int) string { return o.url(archivePath(n)) })
	docs := append(archives, current)
	if edit != nil {
		edit(docs)
	}
	for i, d := range docs {
		data, err := agentfeed.Encode(d)
		if err != nil {
			t.Fatal(err)
		}
		p := pathFeed
		if i < len(archives) {
			p = archivePath(i + 1)
		}
		o.put(p, data, nil)
	}
}

// Every chain that is not whole is an error naming the document whose link
// breaks it, and the entries read so far are still verified.
func TestArchiveChains(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(o *origin, opt *Options)
		errors    []string
		doc, msg  string // of the first error
		verified  int
		documents int // read, did.json included
	}{
		{name: "whole", setup: func(o *origin, _ *Options) { o.archivedFeed(nil) }, verified: 7, documents: 4},
		{name: "a circle", setup: func(o *origin, _ *Options) {
			o.archivedFeed(func(docs []*agentfeed.Feed) { docs[0].PrevArchive = o.url(archivePath(2)) })
		}, errors: []string{codeArchiveChain}, doc: archivePath(1), msg: "link in a circle", verified: 7, documents: 4},
		{name: "back to the subscription document", setup: func(o *origin, _ *Options) {
			o.archivedFeed(func(docs []*agentfeed.Feed) { docs[0].PrevArchive = o.url(pathFeed) })
		}, errors: []string{codeArchiveChain}, doc: archivePath(1), msg: "link in a circle", verified: 7, documents: 4},
		{name: "too long", setup: func(o *origin, opt *Options) {
			o.archivedFeed(nil)
			opt.MaxArchives = 1
		}, errors: []string{codeArchiveChain}, doc: archivePath(2), msg: "more than 1 archive documents", verified: 4, documents: 3},
		{name: "off the origin", setup: func(o *origin, _ *Options) {
			o.archivedFeed(func(docs []*agentfeed.Feed) {
				docs[1].PrevArchive = "https://elsewhere.example/.well-known/agent-feed/archive-1.xml"
			})
		}, errors: []string{codeArchiveChain}, doc: archivePath(2), msg: "not on this origin", verified: 4, documents: 3},
		{name: "a missing archive", setup: func(o *origin, _ *Options) {
			o.archivedFeed(nil)
			o.remove(archivePath(1))
		}, errors: []string{codeNotFound}, doc: archivePath(1), msg: archivePath(2) + " links to as prev-archive", verified: 4, documents: 3},
		{name: "an archived entry changed after signing", setup: func(o *origin, _ *Options) {
			o.archivedFeed(func(docs []*agentfeed.Feed) {
				docs[0].Entries[1].Content = []byte(strings.Replace(string(docs[0].Entries[1].Content), "api-2", "api-9", 1))
			})
		}, errors: []string{codeUnverified}, doc: archivePath(1), msg: "signature", verified: 6, documents: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newOrigin(t, hostHeaders)
			o.put("/.well-known/did.json", didDoc(t, o.did(), testKey(1)), nil)
			opt := Options{Target: o.base.String()}
			tt.setup(o, &opt)
			rep := run(t, opt)
			if got := codes(rep, SeverityError); !slices.Equal(got, tt.errors) {
				t.Fatalf("errors = %v, want %v:%s", got, tt.errors, dump(rep))
			}
			if len(tt.errors) > 0 {
				f := findings(rep, tt.errors[0])[0]
				if f.Document != tt.doc || !strings.Contains(f.Message, tt.msg) {
					t.Errorf("finding %s: %s, want it to name %s and say %q", f.Document, f.Message, tt.doc, tt.msg)
				}
			}
			if got := rep.Origins[0]; got.Verified != tt.verified || got.Documents != tt.documents {
				t.Errorf("%d entries verified from %d documents, want %d from %d:%s", got.Verified, got.Documents, tt.verified, tt.documents, dump(rep))
			}
		})
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
