package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/command/verify"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/generator/bundle"
)

// redirectRules are added to the example site for these tests, deployed to
// Netlify only (Cloudflare Pages refuses a 200 rule to another origin).
const redirectRules = `
[[deploy.redirects]]
from = "/old-card"
to = "/mcp/forecast/server-card.json"
status = 301

[[deploy.redirects]]
from = "/cards/:slug"
to = "/mcp/:slug/server-card.json"
status = 200

[[deploy.redirects]]
from = "/docs/*"
to = "https://docs.example.com/:splat"
status = 302

[[deploy.redirects]]
from = "/api/*"
to = "https://api.example.com/:splat"
status = 200

[[deploy.redirects]]
from = "/index.html"
to = "/404.html"
status = 301
`

// served starts the example site with redirectRules, committed to git
// when git is installed (so the feed and the schema archive are built too),
// and builds the same inputs for comparison.
func served(t *testing.T) (*harness, *generator.Result) {
	t.Helper()
	config := exampleSite(t)
	editFile(t, config, `targets = ["netlify", "cloudflare-pages"]`, `targets = ["netlify"]`)
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, config, string(data)+redirectRules)
	if _, err := exec.LookPath("git"); err == nil {
		dir := filepath.Dir(config)
		git(t, dir, "init", "-q")
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", "the example site")
	}
	want, err := generator.Build(buildOptions(config))
	if err != nil {
		t.Fatal(err)
	}
	return serveSite(t, config, Options{}), want
}

func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

// Every file is served with exactly the headers of the header table (the
// ones _headers states), a strong ETag of the body and its length; HTML
// carries the live-reload snippet before </body> and nothing else changes.
func TestHeadersMatchTable(t *testing.T) {
	h, want := served(t)
	for _, f := range want.Bundle.Files() {
		if hostOnly[f.Path] {
			continue
		}
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			resp, body := h.do(method, f.Path)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s %s: %s", method, f.Path, resp.Status)
				continue
			}
			for k, v := range f.Header {
				if got := resp.Header.Values(k); strings.Join(got, "\n") != strings.Join(v, "\n") {
					t.Errorf("%s %s: %s = %q, want %q", method, f.Path, k, got, v)
				}
			}
			if method == http.MethodHead {
				if len(body) != 0 {
					t.Errorf("HEAD %s sent a body", f.Path)
				}
				continue
			}
			if got := resp.Header.Get("ETag"); got != etagOf(body) {
				t.Errorf("GET %s: ETag %s, body hashes to %s", f.Path, got, etagOf(body))
			}
			if got := resp.Header.Get("Content-Length"); got != fmt.Sprint(len(body)) {
				t.Errorf("GET %s: Content-Length %s for %d bytes", f.Path, got, len(body))
			}
			checkBody(t, f, body)
		}
	}
}

// checkBody: a file's body is sent as built; an HTML page gets only the
// live-reload snippet, before </body>.
func checkBody(t *testing.T, f *bundle.File, body []byte) {
	t.Helper()
	if !strings.HasPrefix(f.ContentType, "text/html") {
		if !bytes.Equal(body, f.Body) {
			t.Errorf("GET %s: the body differs from the built file", f.Path)
		}
		return
	}
	at := bytes.LastIndex(f.Body, []byte("</body>"))
	head, tail := f.Body[:at], f.Body[at:]
	if !bytes.HasPrefix(body, head) || !bytes.HasSuffix(body, tail) {
		t.Errorf("GET %s: the page is not the built page with a snippet before </body>", f.Path)
		return
	}
	if added := body[len(head) : len(body)-len(tail)]; !bytes.Contains(added, []byte(EventsPath)) {
		t.Errorf("GET %s: the inserted snippet %q does not listen for reloads", f.Path, added)
	}
	if bytes.Contains(f.Body, []byte(EventsPath)) {
		t.Errorf("the built %s holds the live-reload script", f.Path)
	}
}

// The header table itself says what docs/output.md promises, so the comparison
// above is not between two empty sets.
func TestHeadersPromised(t *testing.T) {
	h, _ := served(t)
	for _, tc := range []struct{ path, header, want string }{
		{"/.well-known/did.json", "Content-Type", "application/did+json"},
		{"/.well-known/did.json", "Cache-Control", "public, max-age=300"},
		{"/.well-known/did.json", "Access-Control-Allow-Origin", "*"},
		{"/.well-known/did.json", "Access-Control-Expose-Headers", "ETag"},
		{"/.well-known/ai-catalog.json", "Content-Type", "application/ai-catalog+json"},
		{"/.well-known/ai-catalog.json", "Cache-Control", "public, max-age=3600"},
		{"/mcp/forecast/server-card.json", "Content-Type", "application/mcp-server-card+json"},
		{"/mcp/forecast/server-card.json", "Access-Control-Allow-Origin", "*"},
		{"/mcp/server-card", "Content-Type", "application/mcp-server-card+json"},
		{"/a2a/planner/agent-card.json", "Content-Type", "application/json"},
		{"/index.html", "Content-Type", "text/html; charset=utf-8"},
		{"/index.html", "Link", `</.well-known/ai-catalog.json>; rel="ai-catalog"`},
		{"/index.html", "X-Content-Type-Options", "nosniff"},
		{"/index.html", "Access-Control-Allow-Origin", ""},
		{"/.well-known/agent-feed.xml", "Content-Type", "application/atom+xml; charset=utf-8"},
		{"/.well-known/agent-feed.xml", "Cache-Control", "public, max-age=300"},
		{"/CNAME", "Content-Type", "text/plain; charset=utf-8"},
	} {
		resp, _ := h.get(tc.path)
		if got := resp.Header.Get(tc.header); got != tc.want {
			t.Errorf("GET %s: %s = %q, want %q", tc.path, tc.header, got, tc.want)
		}
	}
}

func TestConditionalRequests(t *testing.T) {
	h, _ := served(t)
	for _, path := range []string{"/.well-known/did.json", "/index.html", "/mcp/server-card"} {
		resp, _ := h.get(path)
		etag := resp.Header.Get("ETag")
		if len(etag) != 66 || !strings.HasPrefix(etag, `"`) {
			t.Fatalf("GET %s: ETag %q is not a quoted SHA-256", path, etag)
		}
		for _, tc := range []struct {
			ifNoneMatch string
			want        int
		}{
			{etag, http.StatusNotModified},
			{"W/" + etag, http.StatusNotModified},
			{"*", http.StatusNotModified},
			{`"0123", ` + etag, http.StatusNotModified},
			{`W/"0123",W/` + etag + `, "4567"`, http.StatusNotModified},
			{`"0123"`, http.StatusOK},
			{`W/"0123", "4567"`, http.StatusOK},
			{strings.Trim(etag, `"`), http.StatusOK}, // unquoted: not an entity tag
			{etag[:len(etag)-2] + `0"`, http.StatusOK},
		} {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				resp, body := h.do(method, path, "If-None-Match", tc.ifNoneMatch)
				if resp.StatusCode != tc.want {
					t.Errorf("%s %s If-None-Match %s: %s, want %d", method, path, tc.ifNoneMatch, resp.Status, tc.want)
					continue
				}
				if tc.want != http.StatusNotModified {
					continue
				}
				if len(body) != 0 {
					t.Errorf("%s %s: 304 with a body", method, path)
				}
				if resp.Header.Get("ETag") != etag {
					t.Errorf("%s %s: 304 with ETag %q, want %q", method, path, resp.Header.Get("ETag"), etag)
				}
				full := h.mustGet(path).Header
				for _, name := range []string{"Cache-Control", "Access-Control-Allow-Origin", "Access-Control-Expose-Headers"} {
					if got, want := resp.Header.Get(name), full.Get(name); got != want {
						t.Errorf("%s %s: 304 with %s %q, want %q as on the 200", method, path, name, got, want)
					}
				}
			}
		}
	}
}

func (h *harness) mustGet(path string) *http.Response {
	resp, _ := h.get(path)
	return resp
}

func TestMethods(t *testing.T) {
	h, _ := served(t)
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, "PROPFIND"} {
		for _, path := range []string{"/.well-known/did.json", "/", "/nope", EventsPath} {
			resp, _ := h.do(method, path)
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") == "" {
				t.Errorf("%s %s: %s, Allow %q; want 405 with Allow", method, path, resp.Status, resp.Header.Get("Allow"))
			}
		}
		if resp, _ := h.do(method, "/"); resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s /: Allow %q", method, resp.Header.Get("Allow"))
		}
	}

	// A CORS preflight gets 405, as on Netlify and Cloudflare Pages, and the
	// documents do not advertise OPTIONS.
	resp, _ := h.do(http.MethodOptions, "/.well-known/ai-catalog.json",
		"Origin", "https://client.example", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "if-none-match")
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("OPTIONS ai-catalog.json: %s, Allow %q; want 405 with GET, HEAD", resp.Status, resp.Header.Get("Allow"))
	}
	if got := h.mustGet("/.well-known/ai-catalog.json").Header.Get("Access-Control-Allow-Methods"); got != "GET, HEAD" {
		t.Errorf("ai-catalog.json: Access-Control-Allow-Methods %q, want GET, HEAD", got)
	}
}

func TestNotAcceptable(t *testing.T) {
	h, _ := served(t)
	for _, tc := range []struct {
		accept string // "" sends none
		want   int
	}{
		{"", http.StatusOK},
		{"application/mcp-server-card+json", http.StatusOK},
		{"APPLICATION/MCP-SERVER-CARD+JSON", http.StatusOK},
		{"application/mcp-server-card+json; charset=utf-8", http.StatusOK},
		{"application/*", http.StatusOK},
		{"*/*", http.StatusOK},
		{"text/html, application/xhtml+xml, */*;q=0.8", http.StatusOK},
		{"application/json, application/*;q=0.5", http.StatusOK},
		{"application/json", http.StatusNotAcceptable},
		{"text/html", http.StatusNotAcceptable},
		{"text/*", http.StatusNotAcceptable},
		{"application/mcp-server-card+json;q=0", http.StatusNotAcceptable},
		{"application/*;q=0.0, text/html", http.StatusNotAcceptable},
		{"*/*;q=0", http.StatusNotAcceptable},
		// The most specific matching range decides.
		{"application/mcp-server-card+json;q=0, */*", http.StatusNotAcceptable},
		{"application/mcp-server-card+json;q=0.000, application/*", http.StatusNotAcceptable},
		{"application/*;q=0, */*", http.StatusNotAcceptable},
		{"*/*;q=0, application/*;q=0, application/mcp-server-card+json", http.StatusOK},
		{"*/*;q=0, application/*;q=0.1", http.StatusOK},
	} {
		for _, path := range []string{"/mcp/forecast/server-card.json", "/.well-known/mcp/server-card.json", "/mcp/server-card"} {
			var header []string
			if tc.accept != "" {
				header = []string{"Accept", tc.accept}
			}
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				if resp, _ := h.do(method, path, header...); resp.StatusCode != tc.want {
					t.Errorf("%s %s Accept %q: %s, want %d", method, path, tc.accept, resp.Status, tc.want)
				}
			}
		}
	}
	// Other documents are never refused.
	if resp, _ := h.get("/.well-known/did.json", "Accept", "text/html"); resp.StatusCode != http.StatusOK {
		t.Errorf("did.json with Accept text/html: %s", resp.Status)
	}
}

func TestNotFoundAndDirectories(t *testing.T) {
	h, want := served(t)
	notFound, _ := want.Bundle.Get("/404.html")
	index, _ := want.Bundle.Get("/index.html")
	for _, tc := range []struct {
		path   string
		status int
		body   *bundle.File // nil: no check
	}{
		{"/", http.StatusOK, index},
		{"/index.html", http.StatusOK, index}, // a file shadows the rule sending it to /404.html
		{"/nope", http.StatusNotFound, notFound},
		{"/nope/", http.StatusNotFound, notFound},
		{"/.well-known/", http.StatusNotFound, notFound}, // no listings
		{"/.well-known", http.StatusNotFound, notFound},
		{"/mcp/", http.StatusNotFound, notFound},
		{"/mcp/forecast/", http.StatusNotFound, notFound},
		{"/CNAME/", http.StatusNotFound, notFound},
		{"/_headers", http.StatusNotFound, notFound}, // hosts read it and never serve it
		{"/_redirects", http.StatusNotFound, notFound},
		{"/.well-known/did.json?v=1", http.StatusOK, nil},
	} {
		resp, body := h.get(tc.path)
		if resp.StatusCode != tc.status {
			t.Errorf("GET %s: %s, want %d", tc.path, resp.Status, tc.status)
			continue
		}
		if tc.body != nil {
			checkBody(t, tc.body, body)
		}
		if tc.status == http.StatusNotFound && resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("GET %s: the 404 page is sent as %q", tc.path, resp.Header.Get("Content-Type"))
		}
	}
}

func TestRedirects(t *testing.T) {
	h, want := served(t)
	card, _ := want.Bundle.Get("/mcp/alerts/server-card.json")
	for _, tc := range []struct {
		path, location string
		status         int
	}{
		{"/old-card", "/mcp/forecast/server-card.json", http.StatusMovedPermanently},
		{"/old-card/", "/mcp/forecast/server-card.json", http.StatusMovedPermanently},
		{"/old-card?x=1", "/mcp/forecast/server-card.json?x=1", http.StatusMovedPermanently},
		{"/docs/a/b", "https://docs.example.com/a/b", http.StatusFound},
		{"/docs/", "https://docs.example.com/", http.StatusFound},
		{"/cards/alerts", "", http.StatusOK},     // rewritten, not redirected
		{"/cards/nope", "", http.StatusNotFound}, // rewritten to a missing file
		{"/cards/alerts/more", "", http.StatusNotFound},
		{"/api/v1/tools", "", http.StatusBadGateway}, // a proxy: not done by the dev server
	} {
		resp, body := h.get(tc.path)
		if resp.StatusCode != tc.status || resp.Header.Get("Location") != tc.location {
			t.Errorf("GET %s: %s to %q, want %d to %q", tc.path, resp.Status, resp.Header.Get("Location"), tc.status, tc.location)
		}
		if tc.path == "/cards/alerts" && !bytes.Equal(body, card.Body) {
			t.Errorf("GET %s: not the alerts Server Card", tc.path)
		}
		if tc.status == http.StatusBadGateway && !strings.Contains(string(body), "does not proxy") {
			t.Errorf("GET %s: the 502 does not say why: %q", tc.path, body)
		}
	}
}

// No request reaches a file outside the bundle, or a bundle file under
// another name: dot segments (plain or encoded), backslashes, NUL, encoded
// slashes and empty segments all get 404 (or 400 from the HTTP parser).
func TestTraversal(t *testing.T) {
	h, _ := served(t)
	const secret = "site.toml"
	for _, target := range []string{
		"/../" + secret,
		"/../../" + secret,
		"/.well-known/../_headers",
		"/.well-known/../index.html",
		"/./index.html",
		"/%2e%2e/" + secret,
		"/%2E%2E/%2e%2e/" + secret,
		"/.well-known/%2e%2e/_redirects",
		"/.well-known/%2e/did.json",
		"/.well-known%2fdid.json",
		"/.well-known%2Fdid.json",
		"/.well-known%5cdid.json",
		"/.well-known\\did.json",
		"/..\\" + secret,
		"/index.html%00",
		"/index.html%00.json",
		"/%00",
		"//.well-known/did.json",
		"/.well-known//did.json",
		"//" + secret,
		"/.well-known/did.json/",
	} {
		status, body := rawGet(t, h.url, target)
		if status != http.StatusNotFound && status != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 404 or 400", target, status)
		}
		if strings.Contains(body, "base_url") || strings.Contains(body, "did:web:") {
			t.Errorf("GET %s: the body holds a file it must not reach", target)
		}
	}
}

// rawGet sends a request line exactly as given (an HTTP client would clean
// or re-encode the path) and returns the status and body.
func rawGet(t *testing.T, base, target string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", target)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	bufio.NewReader(resp.Body).WriteTo(&b)
	return resp.StatusCode, b.String()
}

// A request naming another host is refused: a page elsewhere could point a
// name of its own at 127.0.0.1 and read the preview (DNS rebinding).
func TestForeignHostRefused(t *testing.T) {
	h, _ := served(t)
	for host, want := range map[string]int{
		"evil.example":      http.StatusMisdirectedRequest,
		"evil.example:1313": http.StatusMisdirectedRequest,
		"localhost:1313":    http.StatusOK,
		"127.0.0.1":         http.StatusOK,
		"[::1]:1313":        http.StatusOK,
		"preview.localhost": http.StatusOK,
		// Host names are case-insensitive.
		"LOCALHOST":              http.StatusOK,
		"LocalHost:1313":         http.StatusOK,
		"Preview.LOCALHOST:1313": http.StatusOK,
		"EVIL.example":           http.StatusMisdirectedRequest,
	} {
		resp, _ := h.do(http.MethodGet, "/", "Host", host)
		if resp.StatusCode != want {
			t.Errorf("Host %s: %s, want %d", host, resp.Status, want)
		}
	}
}

// A kept-alive connection that sends nothing more is closed after the idle
// timeout.
func TestIdleConnectionClosed(t *testing.T) {
	h := serveSite(t, exampleSite(t), Options{IdleTimeout: 100 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("GET /: %s, close %v; want 200 on a kept-alive connection", resp.Status, resp.Close)
	}
	// The read deadline only turns a hang into a failure.
	conn.SetReadDeadline(time.Now().Add(deadline))
	if n, err := r.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("after the response the idle connection read %d bytes, %v; want it closed (EOF)", n, err)
	}
}

// verify of a preview finds the documents made for base_url's host: the
// did-mismatch hint names --did, with which the preview verifies as the
// site, its Cache-Control as production's.
func TestVerifyPreview(t *testing.T) {
	h, res := served(t)
	did := "did:web:weather.example.com"
	rep, err := verify.Verify(context.Background(), verify.Options{Target: h.url + "/", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var hint string
	for _, f := range rep.Origins[0].Findings {
		if f.Code == "did-mismatch" {
			hint = f.Hint
		}
	}
	if !strings.Contains(hint, "--did "+did) {
		t.Errorf("did-mismatch hint %q, want one naming --did %s", hint, did)
	}
	rep, err = verify.Verify(context.Background(), verify.Options{Target: h.url + "/", DID: did, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	o := rep.Origins[0]
	for _, f := range o.Findings {
		if f.Code == "did-mismatch" || f.Code == "http-cache" {
			t.Errorf("with --did: %s", f)
		}
	}
	if o.Verified != len(res.Entries) {
		t.Errorf("with --did: %d of %d entries verified", o.Verified, len(res.Entries))
	}
}
