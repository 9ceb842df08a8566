package pages

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

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
