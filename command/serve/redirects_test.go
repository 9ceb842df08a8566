package serve

import (
	"net/http"
	"testing"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/deploy"
)

// routed returns the state of a bundle with nested directories, which the
// example site lacks, deployed to targets with a few redirect rules.
func routed(t *testing.T, targets string) *state {
	t.Helper()
	b := bundle.New()
	for _, p := range []string{"/index.html", "/404.html", "/docs/index.html", "/moved.json"} {
		if err := b.Add(p, []byte(p), "text/html; charset=utf-8"); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Add("/docs/a.json", []byte("{}"), "application/json"); err != nil {
		t.Fatal(err)
	}
	deploy.Apply(b, deploy.Rules(b, ""))
	cfg, err := site.Parse("site.toml", `base_url = "https://example.com/"
[deploy]
targets = `+targets+`
[[deploy.redirects]]
from = "/moved.json"      # a file the build writes
to = "/elsewhere.json"
status = 301
[[deploy.redirects]]
from = "/docs/old"
to = "/docs/a.json"
status = 308
[[deploy.redirects]]
from = "/api/*"
to = "https://api.example.com/:splat"
status = 200
[[deploy.redirects]]
from = "/first"
to = "/docs/"
status = 200
[[deploy.redirects]]
from = "/first"           # the first matching rule wins
to = "/never"
status = 302
[[deploy.redirects]]
from = "/data"
to = "/docs/a.json"
status = 200
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	return newState(nil, &generator.Result{Bundle: b, Config: cfg}, nil)
}

func TestRoute(t *testing.T) {
	for _, host := range []struct {
		targets string
		moved   int // what /moved.json, a file and a redirect source, answers
	}{
		{`["netlify", "cloudflare-pages"]`, http.StatusOK},
		{`[]`, http.StatusOK},
		{`["github-pages", "cloudflare-pages", "netlify"]`, http.StatusMovedPermanently},
	} {
		st := routed(t, host.targets)
		moved := answer{status: host.moved, target: "/elsewhere.json"}
		if host.moved == http.StatusOK {
			moved = answer{status: http.StatusOK, entry: st.files["/moved.json"]}
		}
		for _, tc := range []struct {
			path   string
			status int
			file   string // the file served, for 200
			target string
		}{
			{"/", http.StatusOK, "/index.html", ""},
			{"/docs/", http.StatusOK, "/docs/index.html", ""},
			{"/docs", http.StatusMovedPermanently, "", "/docs/"},
			{"/docs/a.json", http.StatusOK, "/docs/a.json", ""},
			{"/docs/a.json/", http.StatusNotFound, "", ""},
			{"/moved.json", moved.status, "/moved.json", moved.target},
			{"/docs/old", http.StatusPermanentRedirect, "", "/docs/a.json"},
			{"/api/v1", http.StatusBadGateway, "", "https://api.example.com/v1"},
			{"/first", http.StatusOK, "/docs/index.html", ""},
			{"/nothing", http.StatusNotFound, "", ""},
		} {
			a := st.route(tc.path)
			var file string
			if a.entry != nil {
				file = a.entry.file.Path
			}
			if tc.target != "" {
				tc.file = ""
			}
			if a.status != tc.status || file != tc.file || a.target != tc.target {
				t.Errorf("targets %s: route(%s) = %d %q %q, want %d %q %q", host.targets, tc.path, a.status, file, a.target, tc.status, tc.file, tc.target)
			}
		}
	}
}

// A 200 rewrite to a document serves its body with the headers of the path
// asked for, as the hosts do: /data has no Cache-Control or CORS rule.
func TestRewriteHeaders(t *testing.T) {
	st := routed(t, `["netlify"]`)
	doc := st.route("/docs/a.json")
	if doc.header.Get("Cache-Control") == "" || doc.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("/docs/a.json: headers %v, want its Cache-Control and CORS", doc.header)
	}
	a := st.route("/data")
	if a.entry == nil || a.entry.file.Path != "/docs/a.json" {
		t.Fatalf("/data: %+v, want /docs/a.json", a)
	}
	for k, want := range map[string]string{"Cache-Control": "", "Access-Control-Allow-Origin": "", "Content-Type": "application/json",
		"Link": `</.well-known/ai-catalog.json>; rel="ai-catalog"`} {
		if got := a.header.Get(k); got != want {
			t.Errorf("/data: %s = %q, want %q", k, got, want)
		}
	}
}
