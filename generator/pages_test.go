package generator

import (
	"bytes"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// The tool pages show what uncommitted tool files would add to the feed,
// in a local build too, and the feed shows none of it.
func TestPagesPreviewUncommittedChanges(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", strings.Replace(fixtureSite, "%s", "1.0.0", 1))
	g.Write("tools/get_forecast.json", forecastV1)
	g.Write("tools/list_alerts.json", alertsV1)
	g.Commit("two tools")
	config := filepath.Join(g.Dir, "site.toml")
	committed := build(t, config)

	g.Write("tools/get_forecast.json", forecastRenamed)
	g.Write("tools/get_radar.json", `{"name": "get_radar", "description": "Radar images.", "inputSchema": {"type": "object"}}`)
	if err := os.Remove(filepath.Join(g.Dir, "tools", "list_alerts.json")); err != nil {
		t.Fatal(err)
	}
	res := build(t, config)

	for _, p := range []string{paths.Feed, paths.Snapshot} {
		if !bytes.Equal(mustGet(t, res, p), mustGet(t, committed, p)) {
			t.Errorf("%s changed with uncommitted changes:\n%s", p, mustGet(t, res, p))
		}
	}
	if _, ok := res.Bundle.Get(paths.ToolVersion("forecast", "get_forecast", "2.0.0")); ok {
		t.Error("the unpublished version is in the schema archive")
	}
	for _, c := range []struct{ page, want string }{
		{"/servers/forecast/tools/get_forecast/index.html", `<h2 id="unpublished">Unpublished changes</h2>`},
		{"/servers/forecast/tools/get_forecast/index.html", `adds version <strong>2.0.0</strong> (after 1.0.0) to the change feed: <span class="badge badge-breaking">breaking</span>`},
		{"/servers/forecast/tools/get_forecast/index.html", `<li>parameter <code>city</code> renamed to <code>location</code></li>`},
		{"/servers/forecast/tools/get_forecast/index.html", `<code>location</code>`},
		{"/servers/forecast/tools/get_forecast/index.html", `<span class="d-added">+       "location": {</span>`},
		{"/servers/forecast/tools/get_radar/index.html", `This tool is only in the working tree. The next commit adds it to the change feed at version <strong>1.0.0</strong>.`},
		{"/servers/forecast/tools/list_alerts/index.html", `The working tree no longer has this tool. The next commit announces its removal`},
		{"/servers/forecast/index.html", `<code>get_radar</code></a> <span class="badge badge-unpublished">unpublished</span>`},
	} {
		if page := string(mustGet(t, res, c.page)); !strings.Contains(page, c.want) {
			t.Errorf("%s lacks %s", c.page, c.want)
		}
	}
	for _, f := range committed.Bundle.Files() {
		if strings.HasSuffix(f.Path, ".html") && bytes.Contains(f.Body, []byte(`class="badge badge-unpublished"`)) {
			t.Errorf("%s of the committed build shows an unpublished change", f.Path)
		}
	}
	if strings.Contains(string(mustGet(t, res, "/changelog/index.html")), "2.0.0") {
		t.Error("the changelog shows the unpublished version")
	}
}

// The tool pages and the changelog tell the fixture's story: every version
// newest first with its class and what changed, and the removal.
func TestPagesFromHistory(t *testing.T) {
	_, config := fixtureRepo(t)
	res := build(t, config)
	tool := string(mustGet(t, res, "/servers/forecast/tools/get_forecast/index.html"))
	var order []string
	for _, m := range regexp.MustCompile(`<strong>(\d+\.\d+\.\d+)</strong> <time`).FindAllStringSubmatch(tool, -1) {
		order = append(order, m[1])
	}
	if got, want := strings.Join(order, " "), "4.0.1 4.0.0 3.0.0 2.0.0 1.1.0 1.0.0"; got != want {
		t.Errorf("versions %s, want %s", got, want)
	}
	for _, want := range []string{
		`<strong>2.0.0</strong> <time datetime="2026-04-01T12:00:00Z">2026-04-01</time> <span class="badge badge-breaking">breaking</span>`,
		`<li>parameter <code>city</code> renamed to <code>location</code></li>`,
		`<span class="badge badge-cosmetic">cosmetic</span>`,
		`href="../../../../.well-known/mcp/schemas/forecast/get_forecast/1.1.0.json"`,
	} {
		if !strings.Contains(tool, want) {
			t.Errorf("the tool page lacks %s", want)
		}
	}
	changelog := string(mustGet(t, res, "/changelog/index.html"))
	for _, want := range []string{
		`<span class="badge badge-removed">removed</span>`,
		`<span class="badge badge-compatible">compatible</span>`,
		`get_forecast 1.0.0 → 1.1.0</a>`,
		`<li>new optional parameter <code>days</code></li>`,
		`<span class="badge badge-updated">updated</span>`, // the server at 1.1.0
	} {
		if !strings.Contains(changelog, want) {
			t.Errorf("the changelog lacks %s", want)
		}
	}
	if strings.Index(changelog, "get_forecast 4.0.0 → 4.0.1") > strings.Index(changelog, "get_forecast 1.0.0 → 1.1.0") {
		t.Error("the changelog is not newest first")
	}
}

// A tool that is gone at the last commit keeps its page, which says when it
// went; so does a server.
func TestPagesRemoved(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", strings.Replace(fixtureSite, "%s", "1.0.0", 1))
	g.Write("tools/get_forecast.json", forecastV1)
	g.Write("tools/list_alerts.json", alertsV1)
	g.Commit("two tools")
	g.Git("rm", "-q", "tools/list_alerts.json")
	g.Commit("alerts removed")
	res := build(t, filepath.Join(g.Dir, "site.toml"))
	page := string(mustGet(t, res, "/servers/forecast/tools/list_alerts/index.html"))
	if want := `This tool was removed from com.example.weather/forecast on <time datetime="2026-04-01T11:00:00Z">2026-04-01</time>. Its last version was 1.0.0`; !strings.Contains(page, want) {
		t.Errorf("the removed tool's page lacks %s:\n%s", want, page)
	}
	server := string(mustGet(t, res, "/servers/forecast/index.html"))
	if !strings.Contains(server, `<h2 id="removed-tools">Removed tools</h2>`) || strings.Contains(server, `id="tool-list_alerts"`) {
		t.Error("the server page does not list the removed tool apart")
	}

	g.Write("site.toml", strings.Replace(strings.Replace(fixtureSite, "%s", "1.0.0", 1), "com.example.weather/forecast", "com.example.weather/daily", 1))
	g.Commit("server renamed")
	res = build(t, filepath.Join(g.Dir, "site.toml"))
	for _, p := range []string{"/servers/forecast/index.html", "/servers/daily/index.html"} {
		mustGet(t, res, p)
	}
	if page := string(mustGet(t, res, "/servers/forecast/index.html")); !strings.Contains(page, "This server was removed from the site on") {
		t.Errorf("the removed server's page does not say so:\n%s", page)
	}
}

// A site's Markdown pages appear in the navigation; a page whose name the
// site's own pages use is an error naming the file.
func TestPagesContent(t *testing.T) {
	config := exampleSite(t)
	dir := filepath.Dir(config)
	res := build(t, config)
	home := string(mustGet(t, res, "/index.html"))
	if !strings.Contains(home, `<li><a href="./connecting/">Connecting an agent</a></li>`) {
		t.Error("the example's extra page is not in the navigation")
	}
	if !strings.Contains(string(mustGet(t, res, "/servers/forecast/index.html")), `<h3 id="coverage">Coverage</h3>`) {
		t.Error("the server's docs are not on its page")
	}
	copyFile(t, filepath.Join(dir, "content", "pages", "connecting.md"), filepath.Join(dir, "content", "pages", "verify.md"))
	_, err := Build(Options{ConfigPath: config, Getenv: testEnv})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "content", "pages", "verify.md")+`: page name "verify" is taken`) {
		t.Errorf("err = %v", err)
	}
}

var (
	linkPattern = regexp.MustCompile(`<(\w+)[^>]*?\s(href|src)="([^"]*)"`)
	idPattern   = regexp.MustCompile(`\sid="([^"]*)"`)
)

// Every internal link and asset of every page resolves to a file of the
// bundle (and a fragment to an id on it), also under a base URL with a
// path; no page loads anything from elsewhere.
func TestPagesLinksResolve(t *testing.T) {
	config := exampleSite(t)
	for _, base := range []string{"", "https://example.github.io/weather/"} {
		t.Run("base "+base, func(t *testing.T) {
			var res *Result
			if base == "" {
				res = build(t, config)
			} else {
				res = build(t, config, "base_url="+base)
			}
			checked := checkLinks(t, res)
			if checked < 100 {
				t.Errorf("only %d links checked", checked)
			}
		})
	}
}

// checkLinks resolves every href and src of every page, as a browser would
// from the page's URL, and returns how many links into the site it checked.
func checkLinks(t *testing.T, res *Result) int {
	t.Helper()
	base := res.Config.Base()
	basePath := strings.TrimSuffix(base.Path, "/")
	ids := map[string]map[string]bool{}
	for _, f := range res.Bundle.Files() {
		if strings.HasSuffix(f.Path, ".html") {
			ids[f.Path] = map[string]bool{}
			for _, m := range idPattern.FindAllStringSubmatch(string(f.Body), -1) {
				ids[f.Path][html.UnescapeString(m[1])] = true
			}
		}
	}
	checked := 0
	for _, f := range res.Bundle.Files() {
		if !strings.HasSuffix(f.Path, ".html") {
			continue
		}
		page := &url.URL{Scheme: base.Scheme, Host: base.Host, Path: basePath + f.Path}
		for _, m := range linkPattern.FindAllStringSubmatch(string(f.Body), -1) {
			element, attr, ref := m[1], m[2], html.UnescapeString(m[3])
			u, err := page.Parse(ref)
			if err != nil {
				t.Errorf("%s: bad link %q: %v", f.Path, ref, err)
				continue
			}
			if u.Host != base.Host && (attr == "src" || element == "link") {
				t.Errorf("%s: <%s %s=%q> loads from another site", f.Path, element, attr, ref)
			}
			// Pages link relatively, except to their canonical URL and on
			// the 404 page; other absolute links (a server's website) may
			// lead anywhere.
			absolute := strings.Contains(ref, "://")
			if absolute && f.Path != "/404.html" && !strings.Contains(m[0], `rel="canonical"`) {
				continue
			}
			target, ok := strings.CutPrefix(u.Path, basePath)
			if !ok {
				t.Errorf("%s: %q leaves the site's path %s", f.Path, ref, basePath)
				continue
			}
			if strings.HasSuffix(target, "/") {
				target += "index.html"
			}
			checked++
			if _, ok := res.Bundle.Get(target); !ok {
				t.Errorf("%s: %q resolves to %s, which is not in the bundle", f.Path, ref, target)
				continue
			}
			if u.Fragment != "" && strings.HasSuffix(target, ".html") && !ids[target][u.Fragment] {
				t.Errorf("%s: %q names no element of %s", f.Path, ref, target)
			}
		}
	}
	return checked
}

// Docs for a server the site does not have, and Markdown at the top of
// content/ other than index.md, are reported, not dropped silently.
func TestPagesOrphanDocs(t *testing.T) {
	config := exampleSite(t)
	dir := filepath.Dir(config)
	copyFile(t, filepath.Join(dir, "content", "servers", "forecast", "README.md"), filepath.Join(dir, "content", "servers", "radar", "README.md"))
	copyFile(t, filepath.Join(dir, "content", "pages", "connecting.md"), filepath.Join(dir, "content", "about.md"))
	res := build(t, config)
	for _, want := range []string{
		filepath.Join(dir, "content", "servers", "radar", "README.md") + `: no server has the slug "radar"`,
		filepath.Join(dir, "content", "about.md") + `: not published`,
	} {
		if !slices.ContainsFunc(res.Warnings, func(w *diag.Error) bool { return strings.HasPrefix(w.Error(), want) }) {
			t.Errorf("warnings %q lack %s", res.Warnings, want)
		}
	}
}

// The tool page of the fixture, whose history has every kind of schema
// change, shows each version's diff against the one before; reviewed once
// and kept in testdata. Run with -update to accept a reviewed change.
func TestToolPageDiffGolden(t *testing.T) {
	_, config := fixtureRepo(t)
	page := mustGet(t, build(t, config), "/servers/forecast/tools/get_forecast/index.html")
	checkGolden(t, "fixture-tool-page.html", page)
	// Five changes, five diffs; the rename removes one name and adds the other.
	if n := bytes.Count(page, []byte(`<details class="diff"`)); n != 5 {
		t.Errorf("%d diffs on the page, want 5", n)
	}
	for _, line := range []string{
		`<span class="d-removed">-       "city": {</span>`,
		`<span class="d-added">+       "location": {</span>`,
		`<span class="d-changed-from">-       "city"</span>`,
		`<span class="d-changed-to">+       "location"</span>`,
	} {
		if !bytes.Contains(page, []byte(line)) {
			t.Errorf("the page does not show the rename as %s", line)
		}
	}
}

// A tool with a long history shows the diffs of its newest versions only,
// so that its page does not grow a diff with every version.
func TestToolPageDiffsNewestVersions(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", strings.Replace(fixtureSite, "%s", "1.0.0", 1))
	const versions = pages.DiffedVersions + 3
	for i := range versions {
		g.Write("tools/get_forecast.json", strings.Replace(forecastV1, "Forecast for a city.", fmt.Sprintf("Forecast, edition %d.", i), 1))
		g.Commit(fmt.Sprintf("edition %d", i))
	}
	page := string(mustGet(t, build(t, filepath.Join(g.Dir, "site.toml")), "/servers/forecast/tools/get_forecast/index.html"))
	if n := strings.Count(page, `class="badge badge-cosmetic"`); n != versions-1 {
		t.Fatalf("%d cosmetic versions on the page, want %d", n, versions-1)
	}
	if n := strings.Count(page, `<details class="diff"`); n != pages.DiffedVersions {
		t.Errorf("%d diffs on the page, want %d", n, pages.DiffedVersions)
	}
	newest := fmt.Sprintf(`<span class="d-changed-to">+   "description": "Forecast, edition %d.",</span>`, versions-1)
	if !strings.Contains(page, newest) {
		t.Errorf("the newest version's diff does not show %s", newest)
	}
}
