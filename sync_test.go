package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/wellknown/command/sync/testdata/toolserver"
)

const (
	syncToken = "cli-secret-0123456789"
	syncTools = `[
	{"name": "get_forecast", "description": "Forecast.", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}},
	{"name": "get_alerts", "description": "Alerts.", "inputSchema": {"type": "object"}}
]`
	syncToolsLater = `[
	{"name": "get_forecast", "description": "Forecast.", "inputSchema": {"type": "object", "properties": {"place": {"type": "string"}}}},
	{"name": "list_stations", "description": "Stations.", "inputSchema": {"type": "object"}}
]`
)

// syncServer serves tools over Streamable HTTP, to clients that send the
// bearer token only.
func syncServer(t *testing.T, toolsJSON string) (url string, setTools func(string)) {
	t.Helper()
	var current atomic.Pointer[mcp.Server]
	setTools = func(toolsJSON string) {
		s, err := toolserver.New("com.example/weather", "1.0.0", []byte(toolsJSON), 1)
		if err != nil {
			t.Fatal(err)
		}
		current.Store(s)
	}
	setTools(toolsJSON)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return current.Load() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+syncToken {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, setTools
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// writeSite writes a site.toml whose one server reads tools/*.json.
func writeSite(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "site.toml")
	src := `base_url = "https://weather.example.com/"

[[servers]]
name = "com.example/weather"
description = "Weather."
version = "2.0.0"
tools = "tools/*.json"
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSyncCommand(t *testing.T) {
	t.Setenv("SYNC_TOKEN", syncToken)
	url, setTools := syncServer(t, syncTools)
	dir := t.TempDir()
	config := writeSite(t, dir)
	args := []string{"sync", "--config", config, "--url", url, "--header", "Authorization: Bearer $SYNC_TOKEN"}

	code, stdout, stderr := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	tools := filepath.Join(dir, "tools")
	wantOut := "added get_alerts (compatible)\nadded get_forecast (compatible)\n" +
		"synced 2 tools from com.example/weather 1.0.0 (2 pages of tools/list) into " + tools + ": 2 added\n"
	if stdout != wantOut {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, wantOut)
	}
	wantWarning := `wellknown: warning: the server reports version "1.0.0", but the site's card for com.example/weather says "2.0.0"`
	if !strings.Contains(stderr, wantWarning) {
		t.Errorf("stderr lacks the version warning:\n%s", stderr)
	}

	setTools(syncToolsLater)
	code, stdout, stderr = runCLI(append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var sum syncSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	var got []string
	for _, c := range sum.Changes {
		got = append(got, string(c.Change)+" "+c.Tool+" "+c.Class)
	}
	want := []string{"added list_stations compatible", "changed get_forecast breaking", "removed get_alerts breaking"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || !sum.OK || sum.Pages != 2 {
		t.Errorf("--json report: ok %v, pages %d, changes %q; want ok, 2 pages, %q", sum.OK, sum.Pages, got, want)
	}
	if len(sum.Changes) > 1 && (len(sum.Changes[1].Diff) == 0 || sum.Changes[1].Diff[0].Text == "") {
		t.Errorf("the changed tool has no diff texts: %+v", sum.Changes[1])
	}

	if strings.Contains(stdout+stderr, syncToken) {
		t.Error("the output shows the token")
	}
	entries, err := os.ReadDir(tools)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(tools, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(syncToken)) {
			t.Errorf("%s holds the token", e.Name())
		}
	}
}

func TestSyncCommandErrors(t *testing.T) {
	t.Setenv("SYNC_TOKEN", "wrong-token-0123456789")
	url, _ := syncServer(t, syncTools)
	out := t.TempDir()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"no server", []string{"sync", "--out", out}, 2, []string{"wellknown: error: sync needs exactly one of --url and --command"}},
		{"both", []string{"sync", "--out", out, "--url", url, "--command", "x"}, 2, []string{"exactly one of --url and --command"}},
		{"header with command", []string{"sync", "--out", out, "--command", "x", "--header", "A: b"}, 2, []string{"--header goes with --url"}},
		{"argument", []string{"sync", "here"}, 2, []string{`sync takes no arguments (got "here")`}},
		{"no site, no out", []string{"sync", "--config", filepath.Join(out, "none.toml"), "--url", url}, 1, []string{"none.toml not found", "wellknown: hint: pass --out DIR"}},
		{"refused", []string{"sync", "--out", out, "--url", url, "--header", "Authorization: Bearer $SYNC_TOKEN"}, 1, []string{
			"wellknown: error: " + url + " refused access during the handshake (HTTP 401 Unauthorized)",
			"wellknown: hint: pass credentials with --header 'Authorization: Bearer $TOKEN'",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\n%s", code, tt.code, stderr)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Contains(stderr, "wrong-token") {
				t.Errorf("stderr shows the token:\n%s", stderr)
			}
		})
	}
}

// --check writes nothing and fails when the files are stale: the CI recipe
// (a new tool, an untracked file for git diff, is caught too).
func TestSyncCheck(t *testing.T) {
	t.Setenv("SYNC_TOKEN", syncToken)
	url, setTools := syncServer(t, syncTools)
	dir := t.TempDir()
	config := writeSite(t, dir)
	args := []string{"sync", "--config", config, "--url", url, "--header", "Authorization: Bearer $SYNC_TOKEN"}
	if code, _, stderr := runCLI(args...); code != 0 {
		t.Fatalf("sync: exit %d\n%s", code, stderr)
	}
	if code, stdout, stderr := runCLI(append(args, "--check")...); code != 0 || !strings.Contains(stdout, "checked 2 tools") || !strings.Contains(stdout, ": no changes") {
		t.Errorf("--check on fresh files: exit %d\n%s%s", code, stdout, stderr)
	}
	setTools(syncToolsLater)
	tools := filepath.Join(dir, "tools")
	before, _ := os.ReadDir(tools)
	code, stdout, stderr := runCLI(append(args, "--check")...)
	if code != 3 || !strings.Contains(stdout, "added list_stations (compatible)") || !strings.Contains(stderr, "wellknown: error: the tool files in "+tools+" are not what com.example/weather 1.0.0 lists: 1 added, 1 changed, 1 removed") {
		t.Errorf("--check on stale files: exit %d\n%s%s", code, stdout, stderr)
	}
	after, _ := os.ReadDir(tools)
	if len(after) != len(before) {
		t.Errorf("--check changed the directory: %d files, then %d", len(before), len(after))
	}
}

// A version the site sets at build time (a ${VERSION} left in an imported
// server.json) is given to sync with --set, as to build.
func TestSyncSet(t *testing.T) {
	t.Setenv("SYNC_TOKEN", syncToken)
	url, _ := syncServer(t, syncTools)
	dir := t.TempDir()
	config := filepath.Join(dir, "site.toml")
	os.WriteFile(filepath.Join(dir, "server.json"), []byte(`{"name": "com.example/weather", "description": "Weather.", "version": "${VERSION}"}`), 0o644)
	os.WriteFile(config, []byte("base_url = \"https://weather.example.com/\"\n[[servers]]\nimport = \"server.json\"\ntools = \"tools/*.json\"\n"), 0o644)
	args := []string{"sync", "--config", config, "--url", url, "--header", "Authorization: Bearer $SYNC_TOKEN"}
	if code, _, stderr := runCLI(args...); code != 1 || !strings.Contains(stderr, "--set servers.weather.version=") {
		t.Errorf("without --set: exit %d, want 1 with the hint\n%s", code, stderr)
	}
	if code, _, stderr := runCLI(append(args, "--set", "servers.weather.version=1.0.0")...); code != 0 {
		t.Errorf("with --set: exit %d\n%s", code, stderr)
	}
}
