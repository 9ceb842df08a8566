package sync

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	gosync "sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/wellknown/command/sync/testdata/toolserver"
	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/prereq"
	"github.com/wellknown-dev/wellknown/internal/tlstest"
)

// The server's tools before and after a release: get_forecast changes its
// description (cosmetic), get_alerts gains an optional parameter
// (compatible), convert_units loses an enum value (breaking), old_tool goes
// and new_tool comes. Five tools at two a page take three pages.
const (
	toolsV1 = `[
	{"name": "get_forecast", "title": "Forecast", "description": "Forecast for a city & its region (<= 14 days).",
	 "_meta": {"com.example/owner": "forecast-team"},
	 "inputSchema": {"type": "object", "required": ["city"], "properties": {
	   "days": {"type": "integer", "minimum": 1, "maximum": 14.0},
	   "city": {"type": "string", "description": "City name"}}}},
	{"name": "get_alerts", "description": "Active alerts.",
	 "inputSchema": {"type": "object", "properties": {"region": {"type": "string"}}}},
	{"name": "convert_units", "description": "Converts a temperature.",
	 "inputSchema": {"type": "object", "properties": {"units": {"enum": ["celsius", "fahrenheit", "kelvin"]}}}},
	{"name": "list_stations", "description": "Weather stations.", "inputSchema": {"type": "object"}},
	{"name": "old_tool", "description": "Going away.", "inputSchema": {"type": "object"}}
]`
	toolsV2 = `[
	{"name": "get_forecast", "title": "Forecast", "description": "Hourly forecast for a city.",
	 "_meta": {"com.example/owner": "forecast-team"},
	 "inputSchema": {"type": "object", "required": ["city"], "properties": {
	   "days": {"type": "integer", "minimum": 1, "maximum": 14.0},
	   "city": {"type": "string", "description": "City name"}}}},
	{"name": "get_alerts", "description": "Active alerts.",
	 "inputSchema": {"type": "object", "properties": {"region": {"type": "string"}, "severity": {"type": "string"}}}},
	{"name": "convert_units", "description": "Converts a temperature.",
	 "inputSchema": {"type": "object", "properties": {"units": {"enum": ["celsius", "fahrenheit"]}}}},
	{"name": "list_stations", "description": "Weather stations.", "inputSchema": {"type": "object"}},
	{"name": "new_tool", "description": "Brand new.", "inputSchema": {"type": "object"}}
]`
	toolsInvalid = `[
	{"name": "get_alerts", "description": "Active alerts.", "inputSchema": {"type": "object"}},
	{"name": "bad name!", "description": "Spaces are not allowed.", "inputSchema": {"type": "object"}},
	{"name": "list_stations", "description": "Weather stations.", "inputSchema": {"type": "object"}}
]`
)

// wantForecast is get_forecast.json after syncing toolsV1: keys sorted at
// every level, the server's 14.0 kept, & and < not escaped.
const wantForecast = `{
  "_meta": {
    "com.example/owner": "forecast-team"
  },
  "description": "Forecast for a city & its region (<= 14 days).",
  "inputSchema": {
    "properties": {
      "city": {
        "description": "City name",
        "type": "string"
      },
      "days": {
        "maximum": 14.0,
        "minimum": 1,
        "type": "integer"
      }
    },
    "required": [
      "city"
    ],
    "type": "object"
  },
  "name": "get_forecast",
  "title": "Forecast"
}
`

// wantV2Changes is the report of the second sync.
var wantV2Changes = []string{
	"added new_tool compatible",
	"changed convert_units breaking",
	"changed get_alerts compatible",
	"changed get_forecast cosmetic",
	"removed old_tool breaking",
}

const token = "s3cret-token-0123456789"

// mcpServer is an in-process Streamable HTTP MCP server on loopback whose
// tools a test can replace. It records the Authorization headers it gets
// and, when auth is set, refuses requests without exactly that one.
type mcpServer struct {
	*httptest.Server
	current atomic.Pointer[mcp.Server]
	auth    string

	mu   gosync.Mutex
	seen []string
}

func newMCPServer(t *testing.T, toolsJSON, auth string) *mcpServer {
	t.Helper()
	s := &mcpServer{auth: auth}
	s.setTools(t, toolsJSON)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.current.Load() }, nil)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("Authorization")
		s.mu.Lock()
		s.seen = append(s.seen, got)
		s.mu.Unlock()
		if s.auth != "" && got != s.auth {
			// Echo the credentials, as careless servers do: sync must hide them.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"credentials %s refused"}}`, got)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *mcpServer) setTools(t *testing.T, toolsJSON string) {
	t.Helper()
	srv, err := toolserver.New("toolserver", "1.0.0", []byte(toolsJSON), 2)
	if err != nil {
		t.Fatal(err)
	}
	s.current.Store(srv)
}

func (s *mcpServer) sawAuth(value string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Contains(s.seen, value)
}

func httpSource(t *testing.T, url string, headers ...string) *Source {
	t.Helper()
	src, err := HTTP(url, headers, func(name string) string {
		if name == "TOKEN" {
			return token
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// summary is a change as one comparable line.
func summary(changes []Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, strings.TrimSpace(fmt.Sprintf("%s %s %s", c.Kind, c.Tool, c.Class)))
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// listDir returns the names of the files in dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// seedUnrelated puts files in dir that sync must never touch: a README, a
// JSON file that is no tool, and a tool file named after another name.
func seedUnrelated(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{
		"README.md":     "# tools\n",
		"settings.json": `{"theme": "dark"}`,
		"legacy.json":   `{"name": "legacy_tool", "description": "Hand-written.", "inputSchema": {"type": "object"}}`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestHTTPTwoSyncs syncs from a Streamable HTTP server, changes its tools,
// and syncs again.
func TestHTTPTwoSyncs(t *testing.T) {
	srv := newMCPServer(t, toolsV1, "Bearer "+token)
	dir := t.TempDir()
	unrelated := seedUnrelated(t, dir)
	opt := Options{Source: httpSource(t, srv.URL, "Authorization: Bearer $TOKEN"), Dir: dir, Timeout: 10 * time.Second}

	first, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if first.Pages != 3 {
		t.Errorf("read %d pages of tools/list, want 3 (five tools, two a page)", first.Pages)
	}
	wantFirst := []string{"added convert_units compatible", "added get_alerts compatible", "added get_forecast compatible", "added list_stations compatible", "added old_tool compatible"}
	if got := summary(first.Changes); !slices.Equal(got, wantFirst) {
		t.Errorf("first sync:\n got %q\nwant %q", got, wantFirst)
	}
	if got := readFile(t, filepath.Join(dir, "get_forecast.json")); got != wantForecast {
		t.Errorf("get_forecast.json:\n%s\nwant:\n%s", got, wantForecast)
	}
	if first.Server != (ServerInfo{Name: "toolserver", Version: "1.0.0"}) {
		t.Errorf("server info %+v", first.Server)
	}

	srv.setTools(t, toolsV2)
	second, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(second.Changes); !slices.Equal(got, wantV2Changes) {
		t.Errorf("second sync:\n got %q\nwant %q", got, wantV2Changes)
	}
	wantFiles := []string{"README.md", "convert_units.json", "get_alerts.json", "get_forecast.json", "legacy.json", "list_stations.json", "new_tool.json", "settings.json"}
	if got := listDir(t, dir); !slices.Equal(got, wantFiles) {
		t.Errorf("files after the second sync:\n got %q\nwant %q", got, wantFiles)
	}
	for name, content := range unrelated {
		if got := readFile(t, filepath.Join(dir, name)); got != content {
			t.Errorf("%s was changed to %q", name, got)
		}
	}
	wantTools := []string{"convert_units", "get_alerts", "get_forecast", "list_stations", "new_tool"}
	if !slices.Equal(second.Tools, wantTools) {
		t.Errorf("tools %q, want %q", second.Tools, wantTools)
	}

	if !srv.sawAuth("Bearer " + token) {
		t.Error("the server never got the Authorization header given on the command line")
	}
	for _, name := range listDir(t, dir) {
		if strings.Contains(readFile(t, filepath.Join(dir, name)), token) {
			t.Errorf("%s holds the token", name)
		}
	}
	if report := fmt.Sprintf("%+v %+v", first, second); strings.Contains(report, token) {
		t.Errorf("the report holds the token: %s", report)
	}
}

// TestChangeDetails checks a changed tool's diff and that syncing an
// unchanged server changes nothing.
func TestChangeDetails(t *testing.T) {
	srv := newMCPServer(t, toolsV1, "")
	dir := t.TempDir()
	opt := Options{Source: httpSource(t, srv.URL), Dir: dir}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	again, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Changes) != 0 {
		t.Errorf("an unchanged server gave changes %q", summary(again.Changes))
	}

	srv.setTools(t, toolsV2)
	r, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(r.Changes, func(c Change) bool { return c.Tool == "convert_units" })
	want := []schemadiff.Change{{Pointer: "/inputSchema/properties/units/enum", Class: schemadiff.Breaking}}
	if i < 0 || len(r.Changes[i].Diff) != 1 || r.Changes[i].Diff[0].Pointer != want[0].Pointer || r.Changes[i].Diff[0].Class != want[0].Class {
		t.Errorf("convert_units diff: %+v, want one breaking change at %s", r.Changes, want[0].Pointer)
	}
}

// TestReformatted rewrites a file the server's tool matches in meaning but
// not in bytes, and reports it as reformatted.
func TestReformatted(t *testing.T) {
	srv := newMCPServer(t, toolsV1, "")
	dir := t.TempDir()
	path := filepath.Join(dir, "list_stations.json")
	hand := `{"name":"list_stations","inputSchema":{"type":"object"},"description":"Weather stations."}`
	if err := os.WriteFile(path, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), Options{Source: httpSource(t, srv.URL), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(r.Changes); !slices.Contains(got, "reformatted list_stations") {
		t.Errorf("changes %q lack the reformatted list_stations", got)
	}
	want := "{\n  \"description\": \"Weather stations.\",\n  \"inputSchema\": {\n    \"type\": \"object\"\n  },\n  \"name\": \"list_stations\"\n}\n"
	if got := readFile(t, path); got != want {
		t.Errorf("list_stations.json:\n%s\nwant:\n%s", got, want)
	}
}

// TestWarnings checks the card comparison, a second declaration of a
// synced tool, and a tools glob that does not read the directory.
func TestWarnings(t *testing.T) {
	srv := newMCPServer(t, toolsV1, "")
	siteDir := t.TempDir()
	dir := filepath.Join(siteDir, "elsewhere")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dup := `{"name": "get_alerts", "description": "Old copy.", "inputSchema": {"type": "object"}}`
	if err := os.WriteFile(filepath.Join(dir, "alerts.json"), []byte(dup), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &site.Config{File: filepath.Join(siteDir, "site.toml"), Dir: siteDir}
	card := &site.Server{Identity: site.Identity{Name: "com.example/weather", Version: "2.0.0"}, Tools: "tools/*.json"}
	r, err := Run(context.Background(), Options{Source: httpSource(t, srv.URL), Dir: dir, Site: cfg, Server: card})
	if err != nil {
		t.Fatal(err)
	}
	wants := []string{
		`the server calls itself "toolserver", but the site's card for it is "com.example/weather"`,
		`the server reports version "1.0.0", but the site's card for com.example/weather says "2.0.0"`,
		filepath.Join(dir, "alerts.json") + " also declares tool get_alerts",
		`the tools glob "tools/*.json" of server com.example/weather does not read ` + filepath.Join(dir, "convert_units.json"),
	}
	all := fmt.Sprint(r.Warnings)
	for _, w := range wants {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
}

// TestInvalidTool: a tool with an invalid name is listed as an error and
// nothing is written, unless AllowInvalid.
func TestInvalidTool(t *testing.T) {
	srv := newMCPServer(t, toolsInvalid, "")
	dir := t.TempDir()
	opt := Options{Source: httpSource(t, srv.URL), Dir: dir}
	_, err := Run(context.Background(), opt)
	if err == nil || !strings.Contains(err.Error(), `tool name "bad name!"`) {
		t.Fatalf("error %v, want one naming the tool \"bad name!\"", err)
	}
	if !strings.Contains(diag.Hint(err), "--allow-invalid") {
		t.Errorf("hint %q does not mention --allow-invalid", diag.Hint(err))
	}
	if names := listDir(t, dir); len(names) != 0 {
		t.Errorf("wrote %q despite an invalid tool", names)
	}

	opt.AllowInvalid = true
	r, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0].Error(), "bad name!") {
		t.Errorf("skipped %v, want the tool \"bad name!\"", r.Skipped)
	}
	if got, want := listDir(t, dir), []string{"get_alerts.json", "list_stations.json"}; !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
}

// TestToolOverLimits: a server's tool over the limits of a tool file is an
// error, as in build, at the line of the file sync would write; nothing is
// written.
func TestToolOverLimits(t *testing.T) {
	wide := strings.Repeat(`{"a":1,"b":2,"c":3,"d":4},`, 3000)
	for _, tc := range []struct{ name, schema, want string }{
		{"nested 500 deep", strings.Repeat("[", 500) + strings.Repeat("]", 500), "tools/list item 2:66: objects and arrays nest more than 64 deep (the limit)"},
		{"12,000 properties", "[" + wide + "{}]", "tools/list item 2:14999: more than 10000 properties (the limit)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newMCPServer(t, `[
	{"name": "get_alerts", "description": "Active alerts.", "inputSchema": {"type": "object"}},
	{"name": "huge", "description": "Over the limits.", "inputSchema": {"type": "object", "properties": {"x": {"type": "array", "default": `+tc.schema+`}}}}
]`, "")
			dir := t.TempDir()
			_, err := Run(context.Background(), Options{Source: httpSource(t, srv.URL), Dir: dir})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want one starting %q", err, tc.want)
			}
			if names := listDir(t, dir); len(names) != 0 {
				t.Errorf("wrote %q despite a tool over the limits", names)
			}
		})
	}
}

// TestUnportableNames: names whose files would collide on macOS and
// Windows (Ok, ok), or that Windows reserves for devices (CON, nul.txt),
// are refused with the reason; nothing is written.
func TestUnportableNames(t *testing.T) {
	tool := func(name string) string {
		return `{"name": "` + name + `", "description": "D.", "inputSchema": {"type": "object"}}`
	}
	for _, tc := range []struct{ names, want string }{
		{tool("Ok") + "," + tool("ok"), `tools "Ok" and "ok" differ only in letter case: their files Ok.json and ok.json are one file on macOS and Windows`},
		{tool("get_alerts") + "," + tool("CON"), "tool CON: CON.json is a name Windows reserves for a device"},
		{tool("nul.txt"), "tools/list item 1: tool nul.txt: nul.txt.json is a name Windows reserves"},
		{tool("Com7"), "tool Com7: Com7.json is a name Windows reserves"},
		{tool("lpt1.x"), "tool lpt1.x: lpt1.x.json is a name Windows reserves"},
	} {
		srv := newMCPServer(t, "["+tc.names+"]", "")
		dir := t.TempDir()
		_, err := Run(context.Background(), Options{Source: httpSource(t, srv.URL), Dir: dir})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.names, err, tc.want)
		}
		if names := listDir(t, dir); len(names) != 0 {
			t.Errorf("wrote %q", names)
		}
	}
	// Names that only start like a device are fine.
	srv := newMCPServer(t, "["+tool("console")+","+tool("COM10")+","+tool("auxiliary.v2")+"]", "")
	if _, err := Run(context.Background(), Options{Source: httpSource(t, srv.URL), Dir: t.TempDir()}); err != nil {
		t.Errorf("console, COM10, auxiliary.v2: %v", err)
	}
}

// TestInvalidToolKeepsItsFile: with AllowInvalid, the file of a tool that
// has become invalid stays, since the server still lists the tool.
func TestInvalidToolKeepsItsFile(t *testing.T) {
	srv := newMCPServer(t, `[{"name": "get_alerts", "description": "Alerts.", "inputSchema": {"type": "object"}}]`, "")
	dir := t.TempDir()
	opt := Options{Source: httpSource(t, srv.URL), Dir: dir, AllowInvalid: true}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	srv.setTools(t, `[{"name": "get_alerts", "description": "Alerts.", "inputSchema": {"type": "object"}, "outputSchema": {"type": "string"}}]`)
	r, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 0 || len(r.Skipped) != 1 {
		t.Errorf("changes %q, skipped %v; want no change and one skipped tool", summary(r.Changes), r.Skipped)
	}
	if got := listDir(t, dir); !slices.Equal(got, []string{"get_alerts.json"}) {
		t.Errorf("files %q, want get_alerts.json kept", got)
	}
}

// TestHTTPErrors checks the message and hint of each way reaching a server
// fails, and that none of them shows the token.
func TestHTTPErrors(t *testing.T) {
	authed := newMCPServer(t, toolsV1, "Bearer the-right-one")
	stop := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // else the server would not notice the client leaving
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(stop) })
	notMCP := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notMCP.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	tests := []struct {
		name, url, msg, hint string
	}{
		{"unreachable", closed.URL + "/mcp", "cannot reach " + closed.URL + "/mcp", "check --url"},
		{"auth refused", authed.URL, "refused access during the handshake (HTTP 401 Unauthorized)", "--header 'Authorization: Bearer $TOKEN'"},
		{"timeout", slow.URL, "did not complete the handshake within 300ms", "raise --timeout"},
		{"not an MCP server", notMCP.URL, "the handshake failed with " + notMCP.URL, "is an MCP server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			opt := Options{Source: httpSource(t, tt.url, "Authorization: Bearer $TOKEN"), Dir: dir, Timeout: 300 * time.Millisecond}
			start := time.Now()
			_, err := Run(context.Background(), opt)
			if err == nil {
				t.Fatal("no error")
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("took %v despite a timeout of 300ms", d)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q lacks %q", err, tt.msg)
			}
			if hint := diag.Hint(err); !strings.Contains(hint, tt.hint) {
				t.Errorf("hint %q lacks %q", hint, tt.hint)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("error %q shows the token", err)
			}
			if names := listDir(t, dir); len(names) != 0 {
				t.Errorf("wrote %q", names)
			}
		})
	}
}

// TestAuthErrorIsRedacted: a server echoing the credentials it refused
// must not make sync print them.
func TestAuthErrorIsRedacted(t *testing.T) {
	srv := newMCPServer(t, toolsV1, "Bearer the-right-one")
	_, err := Run(context.Background(), Options{Source: httpSource(t, srv.URL, "Authorization: Bearer $TOKEN"), Dir: t.TempDir()})
	if err == nil {
		t.Fatal("no error")
	}
	if !strings.Contains(err.Error(), "[redacted]") || strings.Contains(err.Error(), token) {
		t.Errorf("error %q: want the echoed token redacted", err)
	}
}

func TestMain(m *testing.M) { tlstest.Main(m) }

// TestRedirectRules: sync over HTTP follows the rules of every fetch: never
// from https to plain http, at most three redirects, and plain http only to
// this machine.
func TestRedirectRules(t *testing.T) {
	target := newMCPServer(t, toolsV1, "")
	for _, tc := range []struct {
		hops int
		msg  string
	}{{1, "redirect from https to http refused"}, {4, "more than 3 redirects"}} {
		u := tlstest.Redirector(t, target.URL, tc.hops)("")
		_, err := Run(context.Background(), Options{Source: httpSource(t, u), Dir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), "cannot reach "+u+": "+tc.msg) || !strings.Contains(diag.Hint(err), "redirects") {
			t.Errorf("%d redirects from https: error %v, want %q and a hint about redirects", tc.hops, err, tc.msg)
		}
	}
	const want = "--url: http://mcp.example.com/mcp: https is required (plain http only for localhost and loopback addresses)"
	if _, err := HTTP("http://mcp.example.com/mcp", nil, os.Getenv); err == nil || err.Error() != want {
		t.Errorf("plain http elsewhere: %v, want %q", err, want)
	}
}

// TestHeadersStayOnTheOrigin: a redirect to another origin does not carry
// the user's headers along.
func TestHeadersStayOnTheOrigin(t *testing.T) {
	target := newMCPServer(t, toolsV1, "")
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirector.Close)
	r, err := Run(context.Background(), Options{Source: httpSource(t, redirector.URL, "Authorization: Bearer $TOKEN"), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tools) != 5 {
		t.Errorf("synced %q through the redirect, want five tools", r.Tools)
	}
	if target.sawAuth("Bearer " + token) {
		t.Error("the redirect target got the Authorization header")
	}
}

// TestStdio syncs twice from a compiled stdio server, and checks the
// failures particular to commands.
func TestStdio(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		prereq.Missing(t, "no go command to build the stdio server with")
	}
	bin := filepath.Join(t.TempDir(), "toolserver")
	build := exec.Command(goTool, "build", "-o", bin, "./testdata/toolserver/stdio")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the stdio server: %v\n%s", err, out)
	}
	toolsFile := filepath.Join(t.TempDir(), "tools file.json") // a space, to exercise quoting
	command := fmt.Sprintf("%s -page-size 2 -tools '%s'", bin, toolsFile)

	t.Run("two syncs", func(t *testing.T) {
		dir := t.TempDir()
		src, err := Stdio(command)
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{Source: src, Dir: dir, Timeout: 20 * time.Second}
		writeTools(t, toolsFile, toolsV1)
		first, err := Run(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if first.Pages != 3 || len(first.Changes) != 5 {
			t.Errorf("first sync: %d pages, changes %q; want 3 pages and 5 tools added", first.Pages, summary(first.Changes))
		}
		if got := readFile(t, filepath.Join(dir, "get_forecast.json")); got != wantForecast {
			t.Errorf("get_forecast.json:\n%s\nwant:\n%s", got, wantForecast)
		}
		writeTools(t, toolsFile, toolsV2)
		second, err := Run(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := summary(second.Changes); !slices.Equal(got, wantV2Changes) {
			t.Errorf("second sync:\n got %q\nwant %q", got, wantV2Changes)
		}
	})

	tests := []struct {
		name, command, msg, hint string
	}{
		{"crash", bin + ` -crash "config missing: WEATHER_API_KEY"`, `its last words on standard error: "config missing: WEATHER_API_KEY"`, "is an MCP server"},
		{"no such program", "./no-such-server --stdio", "cannot start ./no-such-server", "check --command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := Stdio(tt.command)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Run(context.Background(), Options{Source: src, Dir: t.TempDir(), Timeout: 20 * time.Second})
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %v, want one containing %q", err, tt.msg)
			}
			if hint := diag.Hint(err); !strings.Contains(hint, tt.hint) {
				t.Errorf("hint %q lacks %q", hint, tt.hint)
			}
		})
	}
}

func writeTools(t *testing.T, path, toolsJSON string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(toolsJSON), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A server that puts the credential it was sent into its serverInfo does
// not get it printed.
func TestServerInfoIsRedacted(t *testing.T) {
	srv := newMCPServer(t, `[{"name": "a", "inputSchema": {"type": "object"}}]`, "")
	echo, err := toolserver.New("echo Bearer "+token, token, []byte(`[{"name": "a", "inputSchema": {"type": "object"}}]`), 2)
	if err != nil {
		t.Fatal(err)
	}
	srv.current.Store(echo)
	r, err := Run(context.Background(), Options{Source: httpSource(t, srv.URL, "Authorization: Bearer $TOKEN"), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Server.Name+r.Server.Version, token) {
		t.Errorf("serverInfo printed as %+v", r.Server)
	}
}

// With a ** glob, a file in a subdirectory that declares a tool sync writes
// is reported: build would refuse the two.
func TestDuplicateInSubdirectoryIsReported(t *testing.T) {
	srv := newMCPServer(t, `[{"name": "list_alerts", "inputSchema": {"type": "object"}}]`, "")
	dir := t.TempDir()
	cfg, err := site.Parse(filepath.Join(dir, "site.toml"), "base_url = \"https://example.com/\"\n[[servers]]\nname = \"com.example/alerts\"\ndescription = \"A.\"\nversion = \"1.0.0\"\ntools = \"tools/**/*.json\"\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	nested := filepath.Join(dir, "tools", "active", "list_alerts.json")
	os.MkdirAll(filepath.Dir(nested), 0o755)
	os.WriteFile(nested, []byte(`{"name": "list_alerts", "inputSchema": {"type": "object"}}`), 0o644)
	r, err := Run(context.Background(), Options{Source: httpSource(t, srv.URL), Dir: filepath.Join(dir, "tools"), Site: cfg, Server: &cfg.Servers[0]})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.Warnings, func(w *diag.Error) bool { return strings.HasPrefix(w.Msg, nested+" also declares tool list_alerts") }) {
		t.Errorf("warnings %q lack the duplicate in %s", r.Warnings, nested)
	}
}

// TestSessionOverTheCap: a server that streams without end, in one answer
// (as JSON or as an event stream) or in pages of tools/list that never
// end, is cut off at the session's cap, well before the time limit, with
// an error that says so, and nothing is written.
func TestSessionOverTheCap(t *testing.T) {
	for _, tc := range []struct{ name, during string }{
		{"one answer", "the handshake"},
		{"one event stream", "the handshake"},
		{"pages", "tools/list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(endlessServer(tc.name))
			t.Cleanup(srv.Close)
			dir := t.TempDir()
			_, err := Run(context.Background(), Options{Source: httpSource(t, srv.URL), Dir: dir, Timeout: time.Minute})
			want := srv.URL + " sent more than 64 MiB (the limit for a session) by the end of " + tc.during
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(diag.Hint(err), "at most 64 MiB from one") {
				t.Errorf("%v (hint %q), want %q", err, diag.Hint(err), want)
			}
			if names := listDir(t, dir); len(names) != 0 {
				t.Errorf("wrote %q", names)
			}
		})
	}
}

// endlessServer answers MCP requests over HTTP with no end: to the
// handshake with one endless answer, or, for "pages", to every tools/list
// with a page of 1 MiB and a cursor to a next one.
func endlessServer(kind string) http.HandlerFunc {
	padding := strings.Repeat("a", 1<<20)
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
				Cursor          string `json:"cursor"`
			} `json:"params"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil || req.ID == nil {
			w.WriteHeader(http.StatusAccepted) // a notification, or the closing DELETE
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case kind == "one event stream":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: ")
			fallthrough
		case kind == "one answer":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"padding":"`, req.ID)
			for {
				if _, err := io.WriteString(w, padding); err != nil {
					return // the client hung up
				}
			}
		case req.Method == "initialize":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"endless","version":"1.0.0"}}}`,
				req.ID, req.Params.ProtocolVersion)
		default:
			next := len(req.Params.Cursor) + 1
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t%d","description":"%s","inputSchema":{"type":"object"}}],"nextCursor":%q}}`,
				req.ID, next, padding, strings.Repeat("c", next))
		}
	}
}
