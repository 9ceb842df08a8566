package pages

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/templates"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// newRendering returns a new Cache begun for one rendering, as renderBuild
// begins its own; with empty frames (&frames{}) it renders every page.
func newRendering() *Cache {
	c := NewCache()
	c.begin(nil)
	return c
}

// renderFiles renders as renderWith does and returns the files in the
// order they were added.
func renderFiles(s *Site, tfs fs.FS, c *Cache, f *frames) ([]File, error) {
	var files []File
	_, err := renderWith(s, tfs, c, f, nil, func(f File) error {
		files = append(files, f)
		return nil
	})
	return files, err
}

// renderBuildFiles renders as renderBuild does and returns the files in
// the order they were added.
func renderBuildFiles(in BuildInput) ([]File, []*diag.Error, error) {
	var files []File
	warnings, err := renderBuild(in, nil, func(f File) error {
		files = append(files, f)
		return nil
	})
	return files, warnings, err
}

func render(t *testing.T, s *Site, tfs fs.FS) map[string]string {
	t.Helper()
	files, err := renderFiles(s, tfs, newRendering(), &frames{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		if _, dup := out[f.Path]; dup {
			t.Errorf("%s rendered twice", f.Path)
		}
		out[f.Path] = string(f.Body)
	}
	return out
}

// The fixture's pages are reviewed once and kept in testdata/golden; any
// change shows up here. Run with -update to accept a change.
func TestGolden(t *testing.T) {
	got := render(t, fixtureSite(t), templates.FS)
	golden := filepath.Join("testdata", "golden")
	if *update {
		if err := os.RemoveAll(golden); err != nil {
			t.Fatal(err)
		}
		for p, body := range got {
			file := filepath.Join(golden, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var want []string
	err := filepath.WalkDir(golden, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(golden, p)
			want = append(want, "/"+filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range want {
		body, err := os.ReadFile(filepath.Join(golden, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		if got[p] != string(body) {
			t.Errorf("%s differs from its golden file (run go test -update after review):\n%s", p, got[p])
		}
		delete(got, p)
	}
	for p := range got {
		t.Errorf("%s has no golden file (run go test -update)", p)
	}
}

// Every page the package comment lists is rendered, and nothing else.
func TestPaths(t *testing.T) {
	got := render(t, fixtureSite(t), templates.FS)
	for _, p := range []string{
		"/index.html",
		"/servers/forecast/index.html",
		"/servers/forecast/tools/get_forecast/index.html",
		"/servers/forecast/tools/get_radar/index.html",
		"/servers/forecast/tools/get_pollen/index.html",
		"/servers/forecast/tools/get_uv/index.html",
		"/servers/forecast/tools/search/index.html",
		"/servers/alerts/index.html",
		"/servers/alerts/tools/list_alerts/index.html",
		"/changelog/index.html",
		"/verify/index.html",
		"/guide/index.html",
		"/404.html",
		"/assets/style.css",
		"/assets/icon.png",
		"/assets/copy.js",
		"/assets/feed.xsl",
	} {
		if _, ok := got[p]; !ok {
			t.Errorf("%s was not rendered", p)
		}
		delete(got, p)
	}
	for p := range got {
		t.Errorf("unexpected file %s", p)
	}
}

// ownScript is the one script element of the pages: the copy buttons.
var ownScript = regexp.MustCompile(`<script src="(?:\./|(?:\.\./)+)assets/copy\.js" defer></script>`)

// Text from tool schemas, config and Markdown is shown, never run: no
// <script> element but the site's own reaches a page, and the hostile text
// is there, escaped.
func TestUntrustedTextIsEscaped(t *testing.T) {
	got := render(t, fixtureSite(t), templates.FS)
	for p, body := range got {
		if strings.Contains(strings.ToLower(ownScript.ReplaceAllString(body, "")), "<script") {
			t.Errorf("%s contains a script element:\n%s", p, body)
		}
		if strings.Contains(body, "javascript:") {
			t.Errorf("%s links to javascript:", p)
		}
	}
	for _, c := range []struct{ page, want string }{
		{"/servers/forecast/tools/search/index.html", `&lt;script&gt;alert(&#39;description&#39;)&lt;/script&gt; Finds &lt;b&gt;places&lt;/b&gt;.`},
		{"/servers/forecast/tools/search/index.html", `<code>&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;</code>`},
		{"/servers/forecast/tools/search/index.html", `a &#34;quoted&#34; &lt;i&gt;name&lt;/i&gt;`},
		{"/servers/forecast/tools/search/index.html", `parameter <code>&lt;script&gt;</code> described`},
		{"/servers/forecast/index.html", `<code>&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;</code>`},
		{"/servers/forecast/index.html", `<h1>Weather &lt;Forecast&gt;</h1>`},
		{"/index.html", `<!-- raw HTML omitted -->`},
		{"/servers/forecast/tools/get_forecast/index.html", `<span class="d-changed-from">-         "description": "A &lt;script&gt;alert('diff')&lt;/script&gt; &amp; \"its\" region.",</span>`},
	} {
		if !strings.Contains(got[c.page], c.want) {
			t.Errorf("%s does not show %s", c.page, c.want)
		}
	}
}

var hrefPattern = regexp.MustCompile(`\s(?:href|src)="([^"]*)"`)

// Every link is relative, except the canonical URL and the 404 page's
// (which hosts send at any depth), and Markdown's root links are made
// relative: a site under a base URL with a path works.
func TestLinksAreRelative(t *testing.T) {
	got := render(t, fixtureSite(t), templates.FS)
	external := regexp.MustCompile(`^https://(weather\.example\.com|github\.com)/`)
	for p, body := range got {
		if !strings.HasSuffix(p, ".html") {
			continue
		}
		for _, m := range hrefPattern.FindAllStringSubmatch(body, -1) {
			href := m[1]
			switch {
			case strings.HasPrefix(href, "/"):
				t.Errorf("%s: root link %q breaks under a base path", p, href)
			case strings.HasPrefix(href, "https://example.github.io/weather/"):
				if p != "/404.html" && !strings.Contains(m[0], "canonical") && !strings.Contains(body, `<link rel="canonical" href="`+href+`">`) {
					t.Errorf("%s: absolute link %q to the site itself", p, href)
				}
			case strings.Contains(href, "://") && !external.MatchString(href):
				t.Errorf("%s: unexpected external link %q", p, href)
			}
		}
	}
	for _, c := range []struct{ page, want string }{
		{"/index.html", `<a href="./servers/forecast/">the forecast server</a>`},
		{"/servers/forecast/index.html", `<a href="../../guide/">the guide</a>`},
		{"/servers/forecast/tools/get_forecast/index.html", `<link rel="stylesheet" href="../../../../assets/style.css">`},
		{"/servers/forecast/tools/get_forecast/index.html", `<link rel="canonical" href="https://example.github.io/weather/servers/forecast/tools/get_forecast/">`},
		{"/404.html", `<a href="https://example.github.io/weather/changelog/">`},
	} {
		if !strings.Contains(got[c.page], c.want) {
			t.Errorf("%s lacks %s", c.page, c.want)
		}
	}
}

// Every page links the feed, the catalog and its canonical URL in its head.
func TestHeadLinks(t *testing.T) {
	got := render(t, fixtureSite(t), templates.FS)
	for p, body := range got {
		if !strings.HasSuffix(p, ".html") {
			continue
		}
		for _, want := range []string{
			`<link rel="alternate" type="application/atom+xml"`,
			`<link rel="ai-catalog" type="application/ai-catalog+json"`,
			`<link rel="canonical" href="https://example.github.io/weather/`,
			`<meta name="viewport"`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %s", p, want)
			}
		}
	}
	if !strings.Contains(got["/404.html"], "<style>") || strings.Contains(got["/404.html"], `rel="stylesheet"`) {
		t.Error("the 404 page does not inline its style")
	}
}

// What the tool pages say about versions, removals and previews.
func TestToolPages(t *testing.T) {
	got := render(t, fixtureSite(t), templates.FS)
	for _, c := range []struct{ page, want string }{
		// The history, newest first, with badges, texts and archive links.
		{"/servers/forecast/tools/get_forecast/index.html", `<strong>2.0.0</strong> <time datetime="2026-03-03T09:30:00Z">2026-03-03</time> <span class="badge badge-breaking">breaking</span>`},
		{"/servers/forecast/tools/get_forecast/index.html", `<li>parameter <code>city</code> renamed to <code>location</code></li>`},
		{"/servers/forecast/tools/get_forecast/index.html", `href="../../../../.well-known/mcp/schemas/forecast/get_forecast/1.1.0.json"`},
		// Nested parameters, constraints, enum values and defaults.
		{"/servers/forecast/tools/get_forecast/index.html", "<tr style=\"--depth: 2\">\n<td data-label=\"Name\"><code>id</code></td>"},
		{"/servers/forecast/tools/get_forecast/index.html", `pattern ^[A-Z]{4}$`},
		{"/servers/forecast/tools/get_forecast/index.html", `One of: <code>metric</code>, <code>imperial</code>`},
		{"/servers/forecast/tools/get_forecast/index.html", `Default: <code>3</code>`},
		{"/servers/forecast/tools/get_forecast/index.html", `<td data-label="Type">array of Day</td>`},
		// A removed tool says so, and when.
		{"/servers/forecast/tools/get_pollen/index.html", `removed from com.example.weather/forecast on <time datetime="2026-03-02T09:30:00Z">2026-03-02</time>`},
		// Unpublished changes are marked, with the next version and its class.
		{"/servers/forecast/tools/search/index.html", `<h2 id="unpublished">Unpublished changes</h2>`},
		{"/servers/forecast/tools/search/index.html", `adds version <strong>1.0.1</strong> (after 1.0.0) to the change feed: <span class="badge badge-cosmetic">cosmetic</span>`},
		{"/servers/forecast/tools/get_radar/index.html", `This tool is only in the working tree. The next commit adds it to the change feed at version <strong>1.0.0</strong>.`},
		{"/servers/forecast/tools/get_radar/index.html", `No published versions yet.`},
	} {
		if !strings.Contains(got[c.page], c.want) {
			t.Errorf("%s lacks %s", c.page, c.want)
		}
	}
	if strings.Contains(got["/servers/forecast/tools/get_forecast/index.html"], "Unpublished") {
		t.Error("a tool without uncommitted changes is marked unpublished")
	}
}

// Markdown headings never take an id the template uses: the server docs'
// "# Tools" becomes h3 (under "Documentation") with its own id.
func TestMarkdownKeepsTemplateIDs(t *testing.T) {
	page := render(t, fixtureSite(t), templates.FS)["/servers/forecast/index.html"]
	if n := strings.Count(page, `id="tools"`); n != 1 {
		t.Errorf(`id="tools" appears %d times`, n)
	}
	if !strings.Contains(page, `<h3 id="tools-1">Tools</h3>`) {
		t.Errorf("the docs' heading is not shifted and renamed:\n%s", page)
	}
}

// A site's templates replace the defaults file by file, and add assets.
func TestTemplateOverrides(t *testing.T) {
	siteTemplates := fstest.MapFS{
		"404.html":         {Data: []byte(`{{define "main"}}<p>Gone fishing.</p>{{end}}`)},
		"assets/logo.svg":  {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
		"assets/style.css": {Data: []byte(`body { color: teal; }`)},
	}
	got := render(t, fixtureSite(t), Templates(siteTemplates, templates.FS))
	if !strings.Contains(got["/404.html"], "Gone fishing.") || !strings.Contains(got["/404.html"], "body { color: teal; }") {
		t.Errorf("404.html and style.css were not overridden:\n%s", got["/404.html"])
	}
	if got["/assets/logo.svg"] == "" || got["/assets/icon.png"] == "" {
		t.Error("the site's asset was not added to the default ones")
	}
	if !strings.Contains(got["/index.html"], "MCP servers") {
		t.Error("a template the site does not override is not the default")
	}
}

// A template error names the template.
func TestTemplateErrors(t *testing.T) {
	broken := fstest.MapFS{"tool.html": {Data: []byte(`{{define "main"}}{{.Nope}}{{end}}`)}}
	_, err := renderFiles(fixtureSite(t), Templates(broken, templates.FS), newRendering(), &frames{})
	if err == nil || !strings.Contains(err.Error(), "/servers/forecast/tools/get_forecast/index.html") {
		t.Errorf("err = %v", err)
	}
	unparsable := fstest.MapFS{"index.html": {Data: []byte(`{{define "main"}}{{end`)}}
	if _, err := renderFiles(fixtureSite(t), Templates(unparsable, templates.FS), newRendering(), &frames{}); err == nil || !strings.Contains(err.Error(), "index.html") {
		t.Errorf("err = %v", err)
	}
}

// renderWith hands the pages to add as it renders them, in the plan's
// order (the home page first), and an error of add ends the rendering with
// that error.
func TestRenderWithAddsInOrderUntilAddFails(t *testing.T) {
	all, err := renderFiles(fixtureSite(t), templates.FS, newRendering(), &frames{})
	if err != nil {
		t.Fatal(err)
	}
	full := errors.New("bundle full")
	var added []string
	_, err = renderWith(fixtureSite(t), templates.FS, newRendering(), &frames{}, nil, func(f File) error {
		if added = append(added, f.Path); len(added) == 3 {
			return full
		}
		return nil
	})
	if err != full {
		t.Errorf("err = %v, want add's", err)
	}
	if len(all) < 4 || all[0].Path != "/index.html" || len(added) != 3 || added[0] != all[0].Path || added[2] != all[2].Path {
		var first []string
		for _, f := range all[:min(4, len(all))] {
			first = append(first, f.Path)
		}
		t.Errorf("added %q before the error; all files start %q", added, first)
	}
}

// A pageBuffer gives back what was written to it across its chunks, in a
// slice of its size.
func TestPageBuffer(t *testing.T) {
	var b pageBuffer
	var want []byte
	for i, n := range []int{0, 1, minPageChunk - 1, 3*maxPageChunk + 5, 7} {
		p := bytes.Repeat([]byte{byte('a' + i)}, n)
		if got, err := b.Write(p); got != n || err != nil {
			t.Fatalf("Write of %d bytes = %d, %v", n, got, err)
		}
		want = append(want, p...)
	}
	if got, at, err := b.page(); !bytes.Equal(got, want) || cap(got) != len(want) || at != nil || err != nil {
		t.Errorf("page() = %d bytes (capacity %d), %v, %v; want the %d written", len(got), cap(got), at, err, len(want))
	}
}

// Two renderings of one site are byte-identical.
func TestDeterministic(t *testing.T) {
	a, err := renderFiles(fixtureSite(t), templates.FS, newRendering(), &frames{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := renderFiles(fixtureSite(t), templates.FS, newRendering(), &frames{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Path != b[i].Path || !bytes.Equal(a[i].Body, b[i].Body) {
			t.Errorf("%s differs between two renderings", a[i].Path)
		}
	}
}

// A commit links to its page on the known forges, and is its short hash
// elsewhere.
func TestCommitLink(t *testing.T) {
	const hash = "0123456789abcdef0123456789abcdef01234567"
	for repo, want := range map[string]string{
		"https://github.com/acme/tracker":         "https://github.com/acme/tracker/commit/" + hash,
		"https://github.com/acme/tracker.git":     "https://github.com/acme/tracker/commit/" + hash,
		"https://gitlab.com/acme/tools/tracker/":  "https://gitlab.com/acme/tools/tracker/-/commit/" + hash,
		"https://codeberg.org/acme/tracker":       "https://codeberg.org/acme/tracker/commit/" + hash,
		"https://gitea.example.org/acme/tracker":  "https://gitea.example.org/acme/tracker/commit/" + hash,
		"https://bitbucket.org/acme/tracker":      "https://bitbucket.org/acme/tracker/commits/" + hash,
		"https://git.example.org/acme/tracker":    "",
		"http://github.com/acme/tracker":          "",
		"https://github.com/acme":                 "",
		"https://github.com/acme/tracker?tab=x":   "",
		"javascript:alert(1)//github.com/acme/tr": "",
		"": "",
	} {
		if got := CommitLink(repo, hash); got.URL != want || got.Short != "0123456" {
			t.Errorf("CommitLink(%q) = %+v, want URL %q", repo, got, want)
		}
	}
}

// Every page has one h1, its own: the home page's prose, which may start
// with a "# Title" as init writes none but people do, goes below it.
func TestOneHeadingPerPage(t *testing.T) {
	for p, body := range render(t, fixtureSite(t), templates.FS) {
		if strings.HasSuffix(p, ".html") && strings.Count(body, "<h1") != 1 {
			t.Errorf("%s has %d h1 elements, want 1", p, strings.Count(body, "<h1"))
		}
	}
	home := render(t, fixtureSite(t), templates.FS)["/index.html"]
	if !strings.Contains(home, `<h2 id="example-weather">Example Weather</h2>`) {
		t.Errorf("the home prose's heading is not an h2:\n%s", home)
	}
}

// A Cache for one rendering renders the same pages as one a next rendering
// reuses, without keys to find them again: it keeps no page.
func TestCacheOnceKeepsNoPage(t *testing.T) {
	s := fixtureSite(t)
	bodies := map[bool]map[string]string{}
	for _, once := range []bool{false, true} {
		c := NewCache()
		if once {
			c = NewCacheOnce()
		}
		c.begin(nil)
		files, err := renderFiles(s, templates.FS, c, &frames{})
		if err != nil {
			t.Fatal(err)
		}
		c.end()
		bodies[once] = map[string]string{}
		for _, f := range files {
			bodies[once][f.Path] = string(f.Body)
		}
		if kept := len(c.pages); (kept == 0) != once || c.Rendered() == 0 {
			t.Errorf("once %v: %d pages kept, %d rendered; want pages rendered, and kept only when not once", once, kept, c.Rendered())
		}
	}
	if len(bodies[true]) == 0 || !maps.Equal(bodies[true], bodies[false]) {
		t.Errorf("rendered %d pages once and %d to keep, not the same bytes", len(bodies[true]), len(bodies[false]))
	}
}
