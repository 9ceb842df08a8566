package serve

import (
	"net/http"
	"testing"

	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/site"
)

// Routing over a bundle with nested directories, which the example site
// lacks.
func TestRoute(t *testing.T) {
	b := bundle.New()
	for _, p := range []string{"/index.html", "/404.html", "/docs/index.html", "/docs/a.json", "/moved.json"} {
		if err := b.Add(p, []byte(p), "text/html; charset=utf-8"); err != nil {
			t.Fatal(err)
		}
	}
	st := newState(nil, &generator.Result{Bundle: b, Config: &site.Config{Deploy: site.Deploy{Redirects: []site.Redirect{
		{From: "/moved.json", To: "/elsewhere.json", Status: 301}, // shadowed: the file exists
		{From: "/docs/old", To: "/docs/a.json", Status: 308},
		{From: "/api/*", To: "https://api.example.com/:splat", Status: 200},
		{From: "/first", To: "/docs/", Status: 200},
		{From: "/first", To: "/never", Status: 302}, // the first matching rule wins
	}}}}, nil)
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
		{"/moved.json", http.StatusOK, "/moved.json", ""},
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
		if a.status != tc.status || file != tc.file || a.target != tc.target {
			t.Errorf("route(%s) = %d %q %q, want %d %q %q", tc.path, a.status, file, a.target, tc.status, tc.file, tc.target)
		}
	}
}
