package pages

import (
	"crypto/ed25519"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
	"weak"

	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// modelSite is a site of one server whose remote is on the site's own
// origin, so its card is also published at the remote's reserved path.
const modelSite = `base_url = "https://weather.example.com/"
title = "Model Weather"

[[servers]]
name = "com.example.weather/forecast"
description = "Forecasts."
version = "1.0.0"

[[servers.remotes]]
type = "streamable-http"
url = "https://weather.example.com/mcp"
`

// renderModel renders the pages of modelSite from the given bundle files,
// and returns them by path with the warnings.
func renderModel(t *testing.T, files ...*bundle.File) (map[string]string, []*diag.Error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "content"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "content", "notes.md"), []byte("# Notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := site.Parse(filepath.Join(dir, "site.toml"), modelSite, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := BuildInput{
		Config:   cfg,
		Servers:  []BuildServer{{Config: &cfg.Servers[0], ReservedCards: []string{"/mcp/server-card"}}},
		Timeline: &timeline.Timeline{},
		Files:    Shown(slices.Values(files)),
		Key:      ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey),
		Cache:    NewCache(),
	}
	out, warnings, err := renderBuildFiles(in)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{}
	for _, f := range out {
		pages[f.Path] = string(f.Body)
	}
	return pages, warnings
}

// The pages link only to the documents among the files they are handed,
// by the paths package's names, and warn about content no page shows.
func TestRenderBuildLinksThePublishedDocuments(t *testing.T) {
	card := paths.ServerCardOf(serverSlug)
	published := []*bundle.File{
		{Path: paths.Catalog, ContentType: "application/json"},
		{Path: paths.Feed, ContentType: "application/atom+xml; charset=utf-8"},
		{Path: "/mcp/server-card", ContentType: "application/json"},
		{Path: card, ContentType: "application/json"},
		{Path: paths.ToolVersion(serverSlug, "get_forecast", "1.0.0"), ContentType: "application/json"},
	}
	pages, warnings := renderModel(t, published...)
	server := pages["/"+ServerPath(serverSlug)+"index.html"]
	for _, want := range []string{"Server Card at its endpoint", "server-card.json"} {
		if !strings.Contains(server, want) {
			t.Errorf("the server page does not link %q", want)
		}
	}
	all := strings.Join(slices.Collect(maps.Values(pages)), "\n")
	if !strings.Contains(all, strings.TrimPrefix(paths.Feed, "/")) {
		t.Errorf("no page links the feed %s", paths.Feed)
	}
	if strings.Contains(all, strings.TrimPrefix(paths.SchemaArchive, "/")) {
		t.Errorf("a page lists the schema archive %s among the documents", paths.SchemaArchive)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Error(), "notes.md: not published") {
		t.Errorf("warnings = %q, want one about notes.md", warnings)
	}

	unpublished, _ := renderModel(t)
	server = unpublished["/"+ServerPath(serverSlug)+"index.html"]
	if strings.Contains(server, "Server Card at its endpoint") || strings.Contains(server, "server-card.json") {
		t.Error("the server page links cards that are not in the files it was handed")
	}
}

// modelConfig is modelSite, in a directory of its own.
func modelConfig(t testing.TB) *site.Config {
	t.Helper()
	cfg, err := site.Parse(filepath.Join(t.TempDir(), "site.toml"), modelSite, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// parseTool parses a tool file's source.
func parseTool(t testing.TB, src string) tools.Tool {
	t.Helper()
	tl, err := tools.Parse("tools/tool.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// serverSlug is modelSite's server's slug.
const serverSlug = "forecast"

// twoVersions is modelSite with a history of two versions of one tool,
// and the second, which the working tree holds.
func twoVersions(t *testing.T) (*site.Config, *timeline.Timeline, tools.Tool) {
	t.Helper()
	cfg := modelConfig(t)
	v1 := parseTool(t, `{"name":"get_forecast","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}`)
	v2 := parseTool(t, `{"name":"get_forecast","inputSchema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}}}`)
	b := timeline.NewBuilder(timeline.CompareObjects)
	for i, tool := range []tools.Tool{v1, v2} {
		srv := timeline.Server{Name: cfg.Servers[0].Name, Slug: cfg.Servers[0].Slug, Version: "1.0.0", Endpoint: "https://weather.example.com/mcp",
			Tools: map[string]tools.Tool{tool.Name: tool}}
		if err := b.Commit(timeline.Commit{Hash: fmt.Sprint("c", i), Time: time.Date(2026, 4, i+1, 12, 0, 0, 0, time.UTC), Servers: []timeline.Server{srv}}); err != nil {
			t.Fatal(err)
		}
	}
	return cfg, b.Timeline(), v2
}

// The changelog's entry for a schema change names the version on the
// tool's page, and shows what it holds: a long history lists each change
// on both.
func TestChangelogNamesTheToolPagesVersion(t *testing.T) {
	cfg, tl, v2 := twoVersions(t)
	s, err := newModel(BuildInput{Config: cfg, Servers: []BuildServer{{Config: &cfg.Servers[0], Tools: []tools.Tool{v2}}},
		Timeline: tl, Cache: NewCache()}, nil).site(Content{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(s.Changes, func(c Change) bool { return c.Kind() == ChangeSchema })
	if i < 0 || s.Changes[i].Tool() == nil || len(s.Changes[i].Changes()) == 0 {
		t.Fatalf("no schema change with texts and a tool page in %+v", s.Changes)
	}
	c, v := s.Changes[i], &s.Changes[i].Tool().Versions[0]
	if c.version != v {
		t.Fatalf("the changelog's entry names version %+v, not the tool page's %+v", c.version, v)
	}
	if c.Badge() != v.Class() || c.Time() != v.Time() || !slices.Equal(c.Changes(), v.Changes()) ||
		c.Summary() != "get_forecast 1.0.0 → 1.1.0" || c.Badge() != string(schemadiff.Compatible) {
		t.Errorf("entry %s %s %q %q, version %s %s %q", c.Badge(), c.Time(), c.Summary(), c.Changes(), v.Class(), v.Time(), v.Changes())
	}
}

// A schema change's entry is about its own tool, which its version's run
// names: two tools' versions made one after another, as a server's are,
// and two removed servers' tools of one name and slug, whose versions
// share a folder and, no page showing them, are made one after another
// as the changelog is finished. Each tool's change adds a parameter of
// its own, which its entry's texts name.
func TestChangelogEntriesNameTheirOwnTool(t *testing.T) {
	const legacy, legacy2 = "com.example.weather/legacy", "com.example.weather/legacy2"
	for _, useUp := range []bool{false, true} {
		cfg := modelConfig(t)
		forecast := cfg.Servers[0].Name
		tool := func(name string, params ...string) tools.Tool {
			props := make([]string, len(params))
			for i, p := range params {
				props[i] = `"` + p + `":{"type":"integer"}`
			}
			return parseTool(t, `{"name":"`+name+`","inputSchema":{"type":"object","properties":{`+strings.Join(props, ",")+`}}}`)
		}
		server := func(name string, ts ...tools.Tool) timeline.Server {
			srv := timeline.Server{Name: name, Slug: serverSlug, Version: "1.0.0", Endpoint: "https://" + name + "/mcp", Tools: map[string]tools.Tool{}}
			for _, tl := range ts {
				srv.Tools[tl.Name] = tl
			}
			return srv
		}
		// The slug goes from one server to the next, the configured one's
		// last.
		commits := []timeline.Server{
			server(legacy, tool("legacy_forecast")),
			server(legacy, tool("legacy_forecast", "hours")),
			server(legacy2, tool("legacy_forecast")),
			server(legacy2, tool("legacy_forecast", "minutes")),
			server(forecast, tool("get_alerts"), tool("get_forecast")),
			server(forecast, tool("get_alerts", "area"), tool("get_forecast", "days")),
			server(forecast, tool("get_alerts", "area", "severity"), tool("get_forecast", "days", "units")),
		}
		b := timeline.NewBuilder(timeline.CompareObjects)
		for i, srv := range commits {
			if err := b.Commit(timeline.Commit{Hash: fmt.Sprintf("%040d", i), Time: time.Date(2026, 4, i+1, 12, 0, 0, 0, time.UTC), Servers: []timeline.Server{srv}}); err != nil {
				t.Fatal(err)
			}
		}
		working := commits[len(commits)-1].Tools
		s, err := newModel(BuildInput{Config: cfg, Servers: []BuildServer{{Config: &cfg.Servers[0], Tools: []tools.Tool{working["get_alerts"], working["get_forecast"]}}},
			Timeline: b.Timeline(), Cache: NewCacheOnce(), UseUpTimeline: useUp}, nil).site(Content{})
		if err != nil {
			t.Fatal(err)
		}
		// By the parameter a change adds: its tool's endpoint, and its
		// page, a configured server's tool's.
		pages := map[string]*Tool{}
		for _, tl := range s.Servers[0].Tools {
			pages[tl.Name] = tl
		}
		want := map[string]struct{ endpoint, page string }{
			"hours":    {timeline.ToolEndpointID(legacy, "legacy_forecast"), ""},
			"minutes":  {timeline.ToolEndpointID(legacy2, "legacy_forecast"), ""},
			"area":     {timeline.ToolEndpointID(forecast, "get_alerts"), "get_alerts"},
			"severity": {timeline.ToolEndpointID(forecast, "get_alerts"), "get_alerts"},
			"days":     {timeline.ToolEndpointID(forecast, "get_forecast"), "get_forecast"},
			"units":    {timeline.ToolEndpointID(forecast, "get_forecast"), "get_forecast"},
		}
		seen := 0
		for _, c := range s.Changes {
			if c.Kind() != ChangeSchema {
				continue
			}
			texts := c.Changes()
			if len(texts) != 1 || strings.Count(texts[0], "`") != 2 {
				t.Fatalf("use up %v: entry %q has texts %q, want one that names a parameter", useUp, c.Summary(), texts)
			}
			param := strings.Split(texts[0], "`")[1]
			w, ok := want[param]
			if !ok {
				t.Fatalf("use up %v: entry %q adds %s: the history is not the one meant", useUp, c.Summary(), param)
			}
			seen++
			name, page := timeline.DisplayName(w.endpoint), pages[w.page]
			if got := c.about().endpoint; got != w.endpoint || !strings.HasPrefix(c.Summary(), name+" ") || c.Tool() != page || c.Server() != nil {
				t.Errorf("use up %v: the entry adding %s is about %s, summed up as %q; want %s, %q, with the page of %q",
					useUp, param, got, c.Summary(), w.endpoint, name+" …", w.page)
			}
			if page == nil && c.Path() != "" || page != nil && !slices.Contains(versionsOf(page), c.version) {
				t.Errorf("use up %v: the entry adding %s links %q, or names a version not of its tool's page", useUp, param, c.Path())
			}
		}
		if seen != len(want) {
			t.Errorf("use up %v: %d schema changes, want %d", useUp, seen, len(want))
		}
	}
}

// versionsOf are the addresses of a tool's versions, which its
// changelog entries name.
func versionsOf(tl *Tool) []*Version {
	out := make([]*Version, len(tl.Versions))
	for i := range tl.Versions {
		out[i] = &tl.Versions[i]
	}
	return out
}

// A version's change texts are one string of their own, and its class a
// constant (see schemadiff.Packed.Unpack), not parts of its packed
// change: the pages hold them while they render, and the packed change
// holds much more than they do.
func TestChangeTextsAreAStringOfTheirOwn(t *testing.T) {
	packed := schemadiff.Result{Class: schemadiff.Compatible, Changes: []schemadiff.Change{
		{Pointer: "/inputSchema/properties/days", Class: schemadiff.Compatible, Text: "new optional parameter `days`"},
		{Pointer: "/description", Class: schemadiff.Cosmetic, Text: "description changed"},
	}}.Pack()
	d := packed.Unpack()
	start := uintptr(unsafe.Pointer(unsafe.StringData(string(packed))))
	inPacked := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return p >= start && p < start+uintptr(len(packed))
	}
	if !inPacked(d.Changes[0].Text) {
		t.Fatal("the unpacked texts are not parts of the packed change: the test is not the one meant")
	}
	texts := changeTexts(d)
	if !slices.Equal(texts, []string{d.Changes[0].Text, d.Changes[1].Text}) {
		t.Fatalf("texts %q", texts)
	}
	for i, s := range texts {
		if inPacked(s) {
			t.Errorf("text %d is part of the packed change", i)
		}
	}
	if unsafe.StringData(texts[1]) != (*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(texts[0])), len(texts[0]))) {
		t.Error("the texts are not one string")
	}
	if class := string(d.Class); class != string(schemadiff.Compatible) || inPacked(class) {
		t.Errorf("class %q is part of the packed change", class)
	}
}

// A tool version's schema path on its page is made when asked for, from
// a folder its tool's versions share: a long history has as many as
// versions, and the bundle no longer holds a path for each (see
// bundle.records).
func TestToolVersionsShareTheirFolder(t *testing.T) {
	cfg, tl, v2 := twoVersions(t)
	s, err := newModel(BuildInput{Config: cfg, Servers: []BuildServer{{Config: &cfg.Servers[0], Tools: []tools.Tool{v2}}},
		Timeline: tl, Cache: NewCache()}, nil).site(Content{})
	if err != nil {
		t.Fatal(err)
	}
	versions := s.Servers[0].Tools[0].Versions
	if len(versions) != 2 {
		t.Fatalf("%d versions, want 2", len(versions))
	}
	for _, v := range versions {
		if want := sitePath(paths.ToolVersion(serverSlug, "get_forecast", v.Version())); v.SchemaPath() != want {
			t.Errorf("version %s: SchemaPath %q, want %q", v.Version(), v.SchemaPath(), want)
		}
	}
	if unsafe.StringData(versions[0].run.folder) != unsafe.StringData(versions[1].run.folder) {
		t.Error("the versions hold a folder each")
	}
}

// A rendering that no other follows (NewCacheOnce) holds no timeline
// while its pages render: the Site made from it is all they need. One
// that the next rendering compares with keeps it.
func TestRenderingOnceLetsGoOfTheTimeline(t *testing.T) {
	dir := t.TempDir()
	cfg, err := site.Parse(filepath.Join(dir, "site.toml"), modelSite, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, once := range []bool{true, false} {
		cache := NewCache()
		if once {
			cache = NewCacheOnce()
		}
		in, held := inputWithTimeline(cfg, cache)
		added := 0
		_, err := renderBuild(in, nil, func(File) error {
			if added++; added == 1 {
				runtime.GC()
				if kept := held.Value() != nil; kept != !once {
					t.Errorf("once %v: the timeline is held while the pages render: %v", once, kept)
				}
			}
			return nil
		})
		if err != nil || added == 0 {
			t.Fatalf("once %v: %d pages, %v", once, added, err)
		}
	}
}

// inputWithTimeline returns the input of a rendering by cache of cfg's
// pages, the only holder of its timeline, and a weak pointer to it.
func inputWithTimeline(cfg *site.Config, cache *Cache) (BuildInput, weak.Pointer[timeline.Timeline]) {
	tl := &timeline.Timeline{}
	return BuildInput{Config: cfg, Servers: []BuildServer{{Config: &cfg.Servers[0]}}, Timeline: tl, Cache: cache,
		Key: ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey)}, weak.Make(tl)
}

// historyOfChanges is modelSite with a history that has every kind of
// event the pages show: versions of a tool the working tree changes
// again, one removed and brought back that the working tree drops, one
// removed for good, a server the site no longer configures, and one whose
// slug the configured server took, which has no pages. It returns the timeline, a weak
// pointer to each of its versions, and the working tree's tool.
func historyOfChanges(t *testing.T) (*site.Config, *timeline.Timeline, []weak.Pointer[timeline.Version], tools.Tool) {
	t.Helper()
	cfg := modelConfig(t)
	forecast := func(params string) tools.Tool {
		return parseTool(t, `{"name":"get_forecast","inputSchema":{"type":"object","properties":{`+params+`}}}`)
	}
	alerts := parseTool(t, `{"name":"get_alerts","inputSchema":{"type":"object"}}`)
	tides := parseTool(t, `{"name":"get_tides","inputSchema":{"type":"object"}}`)
	legacy := []tools.Tool{parseTool(t, `{"name":"legacy_forecast","inputSchema":{"type":"object"}}`),
		parseTool(t, `{"name":"legacy_forecast","inputSchema":{"type":"object","properties":{"hours":{"type":"integer"}}}}`)}
	scan := parseTool(t, `{"name":"scan","inputSchema":{"type":"object"}}`)
	commits := []struct {
		forecast tools.Tool
		alerts   bool // the server has get_alerts
		radar    bool // the radar server is configured
	}{
		{forecast(`"city":{"type":"string"}`), true, true},
		{forecast(`"city":{"type":"string"},"days":{"type":"integer"}`), true, true},
		{forecast(`"place":{"type":"string"},"days":{"type":"integer"}`), false, false},
		{forecast(`"place":{"type":"string"},"days":{"type":"integer"}`), true, false},
		{forecast(`"place":{"type":"string"},"days":{"type":"integer","description":"How many."}`), true, false},
	}
	b := timeline.NewBuilder(timeline.CompareObjects)
	for i, c := range commits {
		srv := timeline.Server{Name: cfg.Servers[0].Name, Slug: cfg.Servers[0].Slug, Version: "1.0.0", Endpoint: "https://weather.example.com/mcp",
			Tools: map[string]tools.Tool{"get_forecast": c.forecast}}
		if c.alerts {
			srv.Tools["get_alerts"] = alerts
		}
		if i < len(commits)-1 {
			srv.Tools["get_tides"] = tides
		}
		servers := []timeline.Server{srv}
		if c.radar {
			servers = append(servers, timeline.Server{Name: "com.example.weather/radar", Slug: "radar", Version: "0.1.0",
				Endpoint: "https://radar.example.com/mcp", Tools: map[string]tools.Tool{"scan": scan}},
				timeline.Server{Name: "com.example.weather/legacy", Slug: cfg.Servers[0].Slug, Version: "0.9.0",
					Endpoint: "https://legacy.example.com/mcp", Tools: map[string]tools.Tool{"legacy_forecast": legacy[i]}})
		}
		if err := b.Commit(timeline.Commit{Hash: fmt.Sprintf("%040d", i), Time: time.Date(2026, 4, i+1, 12, 0, 0, 0, time.UTC), Servers: servers}); err != nil {
			t.Fatal(err)
		}
	}
	tl := b.Timeline()
	// Only a tool's latest version is an object of its own: the earlier
	// ones are held compact in its history (see timeline.ToolHistory),
	// which versionsHeld counts.
	var versions []weak.Pointer[timeline.Version]
	for _, h := range tl.Servers {
		for _, th := range h.Tools {
			versions = append(versions, weak.Make(th.Latest()))
		}
	}
	return cfg, tl, versions, forecast(`"place":{"type":"string"}`)
}

// A rendering that uses the timeline up makes the same pages as one that
// leaves it whole, and its model holds none of the timeline's versions
// and events: a long history's timeline and the model made from it are
// not both whole at once.
func TestUsingUpTheTimelineChangesNoPage(t *testing.T) {
	pages := map[bool]map[string]string{}
	for _, useUp := range []bool{false, true} {
		cfg, tl, versions, working := historyOfChanges(t)
		in := BuildInput{Config: cfg, Servers: []BuildServer{{Config: &cfg.Servers[0], Tools: []tools.Tool{working}}},
			Timeline: tl, CommitRepos: map[string]string{cfg.Servers[0].Name: "https://github.com/example/weather"},
			Key: ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey), Cache: NewCacheOnce(),
			UseUpTimeline: useUp}
		s, err := newModel(in, nil).site(Content{})
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		held := 0
		for _, v := range versions {
			if v.Value() != nil {
				held++
			}
		}
		if len(versions) < 4 || useUp && (held > 0 || tl.EventCount() > 0) || !useUp && (held < len(versions) || tl.EventCount() == 0) {
			t.Errorf("use up %v: %d of %d latest versions and %d events held after the model is made", useUp, held, len(versions), tl.EventCount())
		}
		if n := versionsHeld(tl); n < 6 && !useUp || n > 0 && useUp {
			t.Errorf("use up %v: the histories hold %d versions after the model is made", useUp, n)
		}
		runtime.KeepAlive(s)
		runtime.KeepAlive(tl)

		cfg, tl, _, working = historyOfChanges(t)
		in.Config, in.Timeline, in.Servers[0] = cfg, tl, BuildServer{Config: &cfg.Servers[0], Tools: []tools.Tool{working}}
		files, _, err := renderBuildFiles(in)
		if err != nil {
			t.Fatal(err)
		}
		pages[useUp] = map[string]string{}
		for _, f := range files {
			pages[useUp][f.Path] = string(f.Body)
		}
	}
	for _, want := range []string{"get_alerts", "get_tides", "radar", "scan", "place", "removed", "legacy_forecast 1.0.0 → 1.1.0", "new optional parameter <code>hours</code>"} {
		if !strings.Contains(pages[false]["/changelog/index.html"], want) {
			t.Errorf("the changelog does not show %q: the history is not the one meant", want)
		}
	}
	if len(pages[true]) != len(pages[false]) {
		t.Errorf("%d pages, want %d", len(pages[true]), len(pages[false]))
	}
	for p, want := range pages[false] {
		if got := pages[true][p]; got != want {
			t.Errorf("%s differs when the timeline is used up:\n%s\nwant:\n%s", p, got, want)
		}
	}
}

// A rendering that uses the timeline up reads the events before any tool
// page is made, and lets go of them: each tool's versions are then its
// history's alone, and go once its page has them, while the tools not
// yet made keep theirs. The changelog's entries have their texts from
// the pages.
func TestToolPagesLetGoOfTheVersionsToolByTool(t *testing.T) {
	cfg, tl, _, _ := historyOfChanges(t)
	m := newModel(BuildInput{Config: cfg, Timeline: tl, Cache: NewCacheOnce(), UseUpTimeline: true}, nil)
	m.changelog()
	if tl.EventCount() > 0 {
		t.Fatal("the timeline holds its events once the changelog is made")
	}
	// The schema changes' entries, most of a long history's changelog,
	// are made with their tools' pages, while their versions go.
	if planned := len(m.changes) - len(slices.DeleteFunc(slices.Clone(m.changes), func(c Change) bool { return c.version == nil && c.other == nil })); planned != 4 || untoldCount(m) != 4 {
		t.Errorf("%d entries planned, %d schema changes untold; want 4 of each", planned, untoldCount(m))
	}
	h := m.committed(cfg.Servers[0].Name)
	forecast, tides := h.Tool("get_forecast"), h.Tool("get_tides")
	first, later := forecast.Len(), tides.Len()
	latest := weak.Make(forecast.Latest())
	m.tool(h, forecast, forecast.Latest().Tool)
	runtime.GC()
	if n := forecast.Len(); n != 0 || latest.Value() != nil {
		t.Errorf("get_forecast's history holds %d of %d versions once its page is made", n, first)
	}
	if n := tides.Len(); n == 0 || n != later {
		t.Errorf("get_tides's history holds %d of %d versions before its page is made", n, later)
	}
	told := 0
	for _, c := range m.changes {
		if c.version != nil && c.Kind() == ChangeSchema && len(c.Changes()) > 0 && c.Badge() != "" {
			told++
		}
	}
	// The legacy server's change waits for linkedChanges: no page shows it.
	if told != first-1 || untoldCount(m) != 1 {
		t.Errorf("%d schema changes have their texts and %d have none, want %d and 1", told, untoldCount(m), first-1)
	}
	runtime.KeepAlive(m)
}

// untoldCount counts the schema changes whose entries no page has made.
func untoldCount(m *model) (n int) {
	for _, u := range m.untold {
		for _, at := range u {
			if at != 0 {
				n++
			}
		}
	}
	return n
}

// versionsHeld counts the versions the timeline's histories hold.
func versionsHeld(tl *timeline.Timeline) (n int) {
	for _, h := range tl.Servers {
		for _, th := range h.Tools {
			n += th.Len()
		}
	}
	return n
}

// A commit's short hash is a copy: a page holds it after the history has
// let go of the whole hash.
func TestCommitLinkCopiesTheShortHash(t *testing.T) {
	hash := strings.Repeat("ab", 20)
	if c := CommitLink("", hash); c.Short != hash[:7] || unsafe.StringData(c.Short) == unsafe.StringData(hash) {
		t.Errorf("Short %q is a part of the hash", c.Short)
	}
}
