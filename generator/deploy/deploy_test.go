package deploy

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

func config(t *testing.T, extra string) *site.Config {
	t.Helper()
	c, err := site.Parse("site.toml", "base_url = \"https://example.com/\"\n"+extra, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func sampleBundle(t *testing.T) *bundle.Bundle {
	t.Helper()
	b := bundle.New()
	for _, f := range []struct{ path, ctype string }{
		{"/index.html", "text/html; charset=utf-8"},
		{"/404.html", "text/html; charset=utf-8"},
		{"/.well-known/ai-catalog.json", "application/ai-catalog+json"},
		{"/.well-known/did.json", "application/did+json"},
		{"/.well-known/agent-feed.xml", "application/atom+xml; charset=utf-8"},
		{"/.well-known/agent-feed/archive-1.xml", "application/atom+xml; charset=utf-8"},
		{"/.well-known/agent-card.json", "application/json"},
		{"/.well-known/mcp/schemas/weather/get_forecast/1.0.0.json", "application/json"},
		{"/.well-known/mcp/schemas/weather/get_forecast/1.1.0.json", "application/json"},
		{"/mcp/weather/server-card.json", "application/mcp-server-card+json"},
		{"/mcp/server-card", "application/mcp-server-card+json"},
		{"/style.css", "text/css; charset=utf-8"},
	} {
		if err := b.Add(f.path, []byte("x"), f.ctype); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// No two rules that match one file may set the same header: hosts would
// join the values with a comma.
func TestRulesNeverOverlapOnAHeader(t *testing.T) {
	b := sampleBundle(t)
	rules := Rules(b, "")
	for _, f := range b.Files() {
		setBy := map[string]string{}
		for _, r := range rules {
			if !r.Matches(f.Path) {
				continue
			}
			for k := range r.Header {
				if prev, dup := setBy[k]; dup {
					t.Errorf("%s: %s is set by both %s and %s", f.Path, k, prev, r.Pattern)
				}
				setBy[k] = r.Pattern
			}
		}
	}
}

func TestHeadersPerFile(t *testing.T) {
	b := sampleBundle(t)
	Apply(b, Rules(b, ""))
	for _, tc := range []struct {
		path, header, want string
	}{
		{"/index.html", "Content-Type", "text/html; charset=utf-8"},
		{"/index.html", "Link", `</.well-known/ai-catalog.json>; rel="ai-catalog"`},
		{"/index.html", "Access-Control-Allow-Origin", ""},
		{"/index.html", "Cache-Control", ""},
		{"/.well-known/ai-catalog.json", "Content-Type", "application/ai-catalog+json"},
		{"/.well-known/ai-catalog.json", "Access-Control-Allow-Origin", "*"},
		{"/.well-known/ai-catalog.json", "Access-Control-Expose-Headers", "ETag"},
		{"/.well-known/ai-catalog.json", "Cache-Control", CacheDocument},
		{"/.well-known/did.json", "Cache-Control", CacheShortLived},
		{"/.well-known/agent-feed.xml", "Cache-Control", CacheShortLived},
		{"/.well-known/agent-feed.xml", "Content-Type", "application/atom+xml; charset=utf-8"},
		{"/.well-known/agent-feed/archive-1.xml", "Cache-Control", CacheImmutable},
		{"/.well-known/agent-feed/archive-1.xml", "Content-Type", "application/atom+xml; charset=utf-8"},
		{"/.well-known/agent-feed/archive-1.xml", "Access-Control-Allow-Origin", "*"},
		{"/.well-known/mcp/schemas/weather/get_forecast/1.0.0.json", "Cache-Control", CacheImmutable},
		{"/mcp/server-card", "Content-Type", "application/mcp-server-card+json"},
		{"/mcp/server-card", "Access-Control-Allow-Methods", "GET, HEAD"},
		{"/mcp/weather/server-card.json", "Access-Control-Allow-Headers", "Accept, Content-Type, If-None-Match"},
		{"/style.css", "Access-Control-Allow-Origin", ""},
	} {
		f, _ := b.Get(tc.path)
		if got := strings.Join(f.Header.Values(tc.header), ", "); got != tc.want {
			t.Errorf("%s %s = %q, want %q", tc.path, tc.header, got, tc.want)
		}
	}
}

// Files whose headers come from the same prefix rules share one Header
// (a long history has thousands of archived versions); a file with an
// exact rule has its own.
func TestFilesWithTheSameHeadersShareThem(t *testing.T) {
	b := sampleBundle(t)
	Apply(b, Rules(b, ""))
	header := func(p string) http.Header {
		f, _ := b.Get(p)
		return f.Header
	}
	same := func(x, y string) bool {
		return reflect.ValueOf(header(x)).UnsafePointer() == reflect.ValueOf(header(y)).UnsafePointer()
	}
	if !same("/.well-known/mcp/schemas/weather/get_forecast/1.0.0.json", "/.well-known/mcp/schemas/weather/get_forecast/1.1.0.json") {
		t.Error("two archived versions have a Header each, want one shared")
	}
	if same("/.well-known/mcp/schemas/weather/get_forecast/1.0.0.json", "/.well-known/agent-card.json") || same("/index.html", "/style.css") {
		t.Error("files with different headers share a Header")
	}
}

// _headers states the same headers the table gives each file, in the
// syntax Netlify's and Cloudflare's parsers read.
func TestRenderHeadersRoundTrip(t *testing.T) {
	b := sampleBundle(t)
	rules := Rules(b, "")
	parsed := parseHeaders(t, string(RenderHeaders(rules)))
	if len(parsed) != len(rules) {
		t.Fatalf("parsed %d rules, rendered %d", len(parsed), len(rules))
	}
	for _, f := range b.Files() {
		want, got := HeaderFor(rules, f.Path), HeaderFor(parsed, f.Path)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("%s: _headers gives %v, table gives %v", f.Path, got, want)
		}
	}
	// Patterns keep the files that need their own Content-Type exact, and
	// cover the archive with one rule however many versions it holds.
	text := string(RenderHeaders(rules))
	if strings.Count(text, "/.well-known/mcp/schemas/") != 1 {
		t.Errorf("schema archive not covered by one rule:\n%s", text)
	}
}

// parseHeaders reads _headers like the hosts do: a path line, then indented
// "Name: value" lines.
func parseHeaders(t *testing.T, text string) []Rule {
	var rules []Rule
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case strings.HasPrefix(trimmed, "/"):
			rules = append(rules, Rule{Pattern: trimmed, Header: map[string][]string{}})
		default:
			name, value, ok := strings.Cut(trimmed, ":")
			if !ok || len(rules) == 0 || !strings.HasPrefix(line, "  ") {
				t.Fatalf("malformed _headers line %q", line)
			}
			rules[len(rules)-1].Header[name] = []string{strings.TrimSpace(value)}
		}
	}
	return rules
}

func TestAddFiles(t *testing.T) {
	b := sampleBundle(t)
	c := config(t, "[deploy]\ncname = \"example.com\"\n[[deploy.redirects]]\nfrom = \"/old\"\nto = \"/new\"\n[[deploy.redirects]]\nfrom = \"/api/*\"\nto = \"https://api.example.com/:splat\"\nstatus = 302\n")
	warnings, err := AddFiles(b, c)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("AddFiles = %v, %v", warnings, err)
	}
	for path, want := range map[string]string{
		"/.nojekyll":  "",
		"/CNAME":      "example.com\n",
		"/_redirects": "# Written by wellknown build. Redirects for Netlify and Cloudflare Pages.\n/old /new 301\n/api/* https://api.example.com/:splat 302\n",
	} {
		f, ok := b.Get(path)
		if !ok || string(f.Body) != want {
			t.Errorf("%s = %q (present %v), want %q", path, f.Body, ok, want)
		}
	}
	if f, _ := b.Get("/.well-known/did.json"); f.Header.Get("Cache-Control") != CacheShortLived {
		t.Errorf("AddFiles did not apply the header table: %v", f.Header)
	}
}

func TestHostWarnings(t *testing.T) {
	b := sampleBundle(t)
	c := config(t, "[deploy]\ntargets = [\"github-pages\"]\ncname = \"www.example.com\"\n")
	warnings, err := AddFiles(b, c)
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("%q", warnings)
	for _, want := range []string{"application/octet-stream", "/mcp/server-card", `site.toml:4: deploy.cname \"www.example.com\" differs`} {
		if !strings.Contains(text, want) {
			t.Errorf("warnings lack %q:\n%s", want, text)
		}
	}
	c = config(t, "")
	c2, _ := site.Parse("site.toml", "base_url = \"https://example.github.io/repo/\"\n", nil)
	for _, tc := range []struct {
		c    *site.Config
		want int
	}{{c, 0}, {c2, 1}} {
		warnings, _ := AddFiles(sampleBundle(t), tc.c)
		if len(warnings) != tc.want {
			t.Errorf("base %s: %d warnings, want %d: %v", tc.c.BaseURL, len(warnings), tc.want, warnings)
		}
	}
}

func TestCloudflareLimitsFail(t *testing.T) {
	many := bundle.New()
	for i := 0; i < 120; i++ {
		many.Add(fmt.Sprintf("/mcp/s%d/server-card.json", i), []byte("{}"), "application/mcp-server-card+json")
	}
	longPath := bundle.New()
	longPath.Add("/mcp/"+strings.Repeat(strings.Repeat("d", 200)+"/", 10)+"server-card", []byte("{}"), "application/mcp-server-card+json")
	longRedirect := "[[deploy.redirects]]\nfrom = \"/x\"\nto = \"/" + strings.Repeat("y", 1000) + "\"\n"
	proxy := "[[deploy.redirects]]\nfrom = \"/api/*\"\nto = \"https://api.example.com/:splat\"\nstatus = 200\n"
	for _, tc := range []struct {
		name  string
		b     *bundle.Bundle
		extra string
		want  string
	}{
		{"header rules", many, "", "_headers has 121 rules; Cloudflare Pages applies at most 100"},
		{"header line", longPath, "", "_headers has a 2026-character line; Cloudflare Pages allows 2000"},
		{"redirect length", sampleBundle(t), longRedirect, "_redirects has a 1008-character rule"},
		{"absolute proxy", sampleBundle(t), proxy, "proxies (status 200) only to relative URLs"},
	} {
		_, err := AddFiles(tc.b, config(t, "[deploy]\ntargets = [\"cloudflare-pages\"]\n"+tc.extra))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: AddFiles = %v, want an error containing %q", tc.name, err, tc.want)
		}
		if tc.b == many && !strings.Contains(diag.Hint(diag.List(err)[0]), "deploy it to Netlify") {
			t.Errorf("%s: no hint on how to get under the limit: %q", tc.name, diag.Hint(diag.List(err)[0]))
		}
		// The same site is fine on Netlify.
		if _, err := AddFiles(sampleBundle(t), config(t, "[deploy]\ntargets = [\"netlify\"]\n"+tc.extra)); err != nil {
			t.Errorf("%s: netlify: %v", tc.name, err)
		}
	}
}

func TestLinkHeaderFollowsTheBasePath(t *testing.T) {
	b := sampleBundle(t)
	c, err := site.Parse("site.toml", "base_url = \"https://example.github.io/repo/\"\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AddFiles(b, c); err != nil {
		t.Fatal(err)
	}
	f, _ := b.Get("/index.html")
	if got := f.Header.Get("Link"); got != `</repo/.well-known/ai-catalog.json>; rel="ai-catalog"` {
		t.Errorf("Link = %s", got)
	}
}

// Only the files the deploy targets read are written; with no target named,
// every host's are.
func TestDeployFilesFollowTheTargets(t *testing.T) {
	for _, tc := range []struct {
		targets string
		want    []string
		absent  []string
	}{
		{"", []string{"/.nojekyll", "/_headers", "/_redirects"}, nil},
		{`["github-pages"]`, []string{"/.nojekyll"}, []string{"/_headers", "/_redirects"}},
		{`["netlify"]`, []string{"/_headers", "/_redirects"}, []string{"/.nojekyll"}},
		{`["cloudflare-pages", "github-pages"]`, []string{"/.nojekyll", "/_headers", "/_redirects"}, nil},
	} {
		b := sampleBundle(t)
		src := ""
		if tc.targets != "" {
			src = "[deploy]\ntargets = " + tc.targets + "\n"
		}
		if _, err := AddFiles(b, config(t, src)); err != nil {
			t.Fatal(err)
		}
		for _, p := range tc.want {
			if _, ok := b.Get(p); !ok {
				t.Errorf("targets %s: %s missing", tc.targets, p)
			}
		}
		for _, p := range tc.absent {
			if _, ok := b.Get(p); ok {
				t.Errorf("targets %s: %s written, but no target reads it", tc.targets, p)
			}
		}
	}
}

// A GitHub Pages site is warned once about every document Pages serves with
// the generic type of its extension, and about redirects it cannot apply.
func TestGitHubPagesTypeWarning(t *testing.T) {
	warnings, err := AddFiles(sampleBundle(t), config(t, "[deploy]\ntargets = [\"github-pages\"]\n[[deploy.redirects]]\nfrom = \"/old\"\nto = \"/new\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, w := range warnings {
		if strings.Contains(w.Msg, "generic type") {
			types = append(types, w.Msg)
		}
	}
	if len(types) != 1 {
		t.Fatalf("want one type warning, got %q", warnings)
	}
	for _, want := range []string{
		"serves 6 files with a generic type",
		"/.well-known/agent-feed.xml as application/xml (not application/atom+xml)",
		"/.well-known/agent-feed/archive-1.xml as application/xml (not application/atom+xml)",
		"/.well-known/ai-catalog.json as application/json (not application/ai-catalog+json)",
		"/.well-known/did.json as application/json (not application/did+json)",
		"/mcp/server-card as application/octet-stream (not application/mcp-server-card+json)",
		"/mcp/weather/server-card.json as application/json (not application/mcp-server-card+json)",
	} {
		if !strings.Contains(types[0], want) {
			t.Errorf("type warning lacks %q:\n%s", want, types[0])
		}
	}
	if !strings.Contains(fmt.Sprint(warnings), "site.toml:4: GitHub Pages cannot redirect, so deploy.redirects (1 rule) has no effect there") {
		t.Errorf("no warning about redirects: %q", warnings)
	}
}

// redirectRules is deploy.redirects in site.toml, one rule per source.
func redirectRules(froms ...string) string {
	var b strings.Builder
	b.WriteString("[deploy]\ntargets = [\"cloudflare-pages\"]\n")
	for _, from := range froms {
		fmt.Fprintf(&b, "[[deploy.redirects]]\nfrom = %q\nto = \"/new\"\n", from)
	}
	return b.String()
}

// Cloudflare Pages counts a rule as dynamic when it has a splat or a
// :placeholder, or follows one: the static rules move above the first
// dynamic one, unless a dynamic rule before them matches their path.
func TestRedirectsStaticFirst(t *testing.T) {
	froms := []string{"/docs/*", "/a", "/docs/old", "/u/:name", "/b"}
	b := sampleBundle(t)
	if _, err := AddFiles(b, config(t, redirectRules(froms...))); err != nil {
		t.Fatal(err)
	}
	f, _ := b.Get("/_redirects")
	want := "# Written by wellknown build. Redirects for Netlify and Cloudflare Pages.\n" +
		"/a /new 301\n/b /new 301\n/docs/* /new 301\n/docs/old /new 301\n/u/:name /new 301\n"
	if string(f.Body) != want {
		t.Errorf("_redirects:\n%s\nwant:\n%s", f.Body, want)
	}

	// One splat followed by 120 static rules: 1 dynamic, 120 static.
	many := []string{"/api/*"}
	for i := range 120 {
		many = append(many, fmt.Sprintf("/old/%d", i))
	}
	if _, err := AddFiles(sampleBundle(t), config(t, redirectRules(many...))); err != nil {
		t.Errorf("a splat and 120 static redirects: %v", err)
	}
}

func TestCloudflareRedirectLimits(t *testing.T) {
	var dynamic, static, shadowed []string
	for i := range 101 {
		dynamic = append(dynamic, fmt.Sprintf("/d%d/*", i))
	}
	for i := range 2001 {
		static = append(static, fmt.Sprintf("/s%d", i))
	}
	// Static rules under a splat that matches them count as dynamic.
	shadowed = append(shadowed, "/docs/*")
	for i := range 100 {
		shadowed = append(shadowed, fmt.Sprintf("/docs/%d", i))
	}
	for _, tc := range []struct {
		name  string
		froms []string
		want  string
	}{
		{"dynamic", dynamic, "site.toml:305: redirect /d100/* is dynamic redirect 101 (a splat or :placeholder, or any rule after the first such); Cloudflare Pages allows 100 and skips it and every rule after it"},
		{"static", static, "site.toml:6005: redirect /s2000 is static redirect 2001; Cloudflare Pages allows 2000 static redirects and skips the rest"},
		{"shadowed", shadowed, "site.toml:305: redirect /docs/99 is dynamic redirect 101"},
	} {
		_, err := AddFiles(sampleBundle(t), config(t, redirectRules(tc.froms...)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: AddFiles = %v\nwant an error containing %q", tc.name, err, tc.want)
			continue
		}
		if hint := diag.Hint(diag.List(err)[0]); !strings.Contains(hint, "Netlify") {
			t.Errorf("%s: hint %q does not say where there is no limit", tc.name, hint)
		}
		if _, err := AddFiles(sampleBundle(t), config(t, strings.Replace(redirectRules(tc.froms...), "cloudflare-pages", "netlify", 1))); err != nil {
			t.Errorf("%s: netlify: %v", tc.name, err)
		}
	}
}

// A redirect the hosts apply differently is a warning: its source is a file
// the build writes, or it rewrites (200) to a document, whose own headers
// then do not apply.
func TestRedirectWarnings(t *testing.T) {
	rules := `[[deploy.redirects]]
from = "/mcp/server-card"
to = "/elsewhere"
[[deploy.redirects]]
from = "/catalog"
to = "/.well-known/ai-catalog.json"
status = 200
[[deploy.redirects]]
from = "/old/*"
to = "/new/:splat"
`
	warnings, err := AddFiles(sampleBundle(t), config(t, "[deploy]\ntargets = [\"cloudflare-pages\", \"netlify\"]\n"+rules))
	if err != nil {
		t.Fatal(err)
	}
	want := []diag.Error{
		{File: "site.toml", Line: 4, Msg: "redirect /mcp/server-card → /elsewhere: the build writes /mcp/server-card there, which Cloudflare Pages redirects and Netlify serves; serve does as Cloudflare Pages (the first of them in deploy.targets)"},
		{File: "site.toml", Line: 7, Msg: "redirect /catalog → /.well-known/ai-catalog.json (200): the hosts serve /.well-known/ai-catalog.json with the headers of /catalog, not its own (its Content-Type, CORS and Cache-Control), and so does serve",
			Hint: "redirect with a 3xx status to keep them"},
	}
	if len(warnings) != len(want) || *warnings[0] != want[0] || *warnings[1] != want[1] {
		t.Errorf("warnings:\n%+v\nwant\n%+v", warnings, want)
	}
	if got := RedirectHost(config(t, "[deploy]\ntargets = [\"github-pages\"]\n")); got != site.HostNetlify {
		t.Errorf("no Netlify or Cloudflare target: serve follows %q, want netlify", got)
	}
}
