package pages

import (
	"crypto/ed25519"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/templates"
)

// benchMarkdown is a page of typical length: headings, prose, a list, a
// table, code and links.
const benchMarkdown = `# Page %d

Forecasts are computed from an ensemble of models and refreshed every six hours. Each **forecast**
carries the model run it came from, so that an agent can tell a fresh answer from a stale one.

## Parameters that matter

- ` + "`location`" + `: a place name or coordinates;
- ` + "`days`" + `: how far ahead, up to 14;
- ` + "`units`" + `: metric or imperial.

| Field | Type | Meaning |
|---|---|---|
| temperature | number | degrees in the requested units |
| wind | object | speed and direction |
| precipitation | number | millimetres or inches |

## Example

` + "```json" + `
{"name": "get_forecast", "arguments": {"location": "Lyon", "days": 3}}
` + "```" + `

See [the servers](/servers/forecast/), the [changelog](/changelog/) and [another page](../page-001/).
`

// benchContent is a content directory with n Markdown pages, in sections
// of 100, each section with its own index page among the n.
func benchContent(n int) fstest.MapFS {
	fsys := fstest.MapFS{"index.md": {Data: []byte("Welcome to the benchmark site.\n")}}
	for i := range n {
		name := fmt.Sprintf("pages/section-%02d/page-%03d.md", i/100, i%100)
		if i%100 == 0 {
			name = fmt.Sprintf("pages/section-%02d/index.md", i/100)
		}
		fsys[name] = &fstest.MapFile{Data: fmt.Appendf(nil, benchMarkdown, i)}
	}
	return fsys
}

// benchSite is a site with servers × perServer tools, each with three
// published versions.
func benchSite(b *testing.B, servers, perServer int) *Site {
	s := fixtureSite(b)
	s.Servers, s.Changes = nil, nil
	for i := range servers {
		srv := &Server{Slug: fmt.Sprintf("server-%02d", i), Name: fmt.Sprintf("com.example/server-%02d", i), Description: "A server.", Version: "1.0.0"}
		for j := range perServer {
			name := fmt.Sprintf("tool_%03d", j)
			folder := ".well-known/mcp/schemas/" + srv.Slug + "/" + name + "/"
			t := &Tool{
				Name: name, Title: "Tool " + name, Description: "Does one thing well, for the benchmark.",
				Object: object(b, strings.ReplaceAll(`{
					"name": "NAME", "title": "Tool NAME", "description": "Does one thing well, for the benchmark.",
					"annotations": {"readOnlyHint": true},
					"inputSchema": {"type": "object", "required": ["location"], "properties": {
						"location": {"type": "string", "description": "A place."},
						"days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
						"units": {"type": "string", "enum": ["metric", "imperial"]},
						"filter": {"type": "object", "properties": {"kinds": {"type": "array", "items": {"type": "string"}}}}
					}}
				}`, "NAME", name)),
				SchemaPath: folder + "2.0.0.json",
				Versions: []Version{
					newVersion("2.0.0", "1.1.0", day(3), folder, "breaking", Commit{}, "", []string{"parameter `city` renamed to `location`"}),
					newVersion("1.1.0", "1.0.0", day(2), folder, "compatible", Commit{}, "", []string{"optional parameter `days` added"}),
					newVersion("1.0.0", "", day(1), folder, "", Commit{}, "", nil),
				},
			}
			srv.Tools = append(srv.Tools, t)
			s.Changes = append(s.Changes, withPage(Change{version: &t.Versions[0]}, srv.Name+"#"+name, nil, t))
		}
		s.Servers = append(s.Servers, srv)
	}
	return s
}

// BenchmarkRender renders a site of 1,000 tools (10 servers of 100, three
// versions each) and 2,000 Markdown pages, from reading the Markdown to the
// last page: the page-rendering time of a build.
func BenchmarkRender(b *testing.B) {
	fsys := benchContent(2000)
	site := benchSite(b, 10, 100)
	pages := 0
	for b.Loop() {
		content, err := readContent(fsys, display, newRendering())
		if err != nil {
			b.Fatal(err)
		}
		site.Content = content
		files, err := renderFiles(site, templates.FS, newRendering(), &frames{})
		if err != nil {
			b.Fatal(err)
		}
		pages = 0
		for _, f := range files {
			if strings.HasSuffix(f.Path, ".html") {
				pages++
			}
		}
	}
	b.ReportMetric(float64(pages), "pages/op")
	b.ReportMetric(float64(pages)*float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

// benchCommits is the length of BenchmarkModel's history.
const benchCommits = 200_000

// BenchmarkModel makes the model of a history of benchCommits commits,
// each a new version of one of four tools, and reports the heap it holds
// a version, with the version's changelog entry: most of what a long
// history's pages hold while they render. As in a build to disk, the
// versions' packed bytes are in a spool and the timeline is used up.
func BenchmarkModel(b *testing.B) {
	cfg := modelConfig(b)
	spool := newSpool(b)
	names := []string{"get_alerts", "get_forecast", "get_radar", "get_tides"}
	// Each tool goes back and forth between two schemas: a parameter
	// added, then removed.
	var variants [2][]tools.Tool
	for _, name := range names {
		variants[0] = append(variants[0], parseTool(b, `{"name":"`+name+`","inputSchema":{"type":"object","properties":{"place":{"type":"string"}}}}`))
		variants[1] = append(variants[1], parseTool(b, `{"name":"`+name+`","inputSchema":{"type":"object","properties":{"place":{"type":"string"},"days":{"type":"integer"}}}}`))
	}
	var perVersion, perEntry float64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		srv := timeline.Server{Name: cfg.Servers[0].Name, Slug: cfg.Servers[0].Slug, Version: "1.0.0",
			Endpoint: "https://weather.example.com/mcp", Tools: map[string]tools.Tool{}}
		for i, name := range names {
			srv.Tools[name] = variants[0][i]
		}
		tb := timeline.NewBuilder(timeline.CompareObjects)
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range benchCommits {
			if i >= len(names) {
				// After the first commit of every tool, each changes one.
				k := i % len(names)
				srv.Tools[names[k]] = variants[i/len(names)%2][k]
				srv.Touched = names[k : k+1]
			}
			c := timeline.Commit{Hash: fmt.Sprintf("%040x", i), Time: start.Add(time.Duration(i) * time.Minute), Servers: []timeline.Server{srv}}
			if err := tb.Commit(c); err != nil {
				b.Fatal(err)
			}
		}
		working := make([]tools.Tool, len(names))
		for k, name := range names {
			working[k] = srv.Tools[name]
		}
		in := BuildInput{Config: cfg, Servers: []BuildServer{{Config: &cfg.Servers[0], Tools: working}}, Timeline: tb.Timeline(),
			Key: ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey), Cache: NewCacheOnce(), UseUpTimeline: true}
		tb = nil
		s, err := newModel(in, spool).site(Content{})
		if err != nil {
			b.Fatal(err)
		}
		in = BuildInput{}
		runtime.GC()
		runtime.ReadMemStats(&after)
		versions := 0
		for _, t := range s.Servers[0].Tools {
			versions += len(t.Versions)
		}
		if versions != benchCommits || len(s.Changes) < benchCommits {
			b.Fatalf("%d versions and %d entries, want %d of each or more", versions, len(s.Changes), benchCommits)
		}
		held := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		perVersion, perEntry = held/float64(versions), held/float64(len(s.Changes))
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perVersion, "B/version")
	b.ReportMetric(perEntry, "B/entry")
}
