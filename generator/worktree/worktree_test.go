package worktree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// weatherSite is a site of one server whose tools are tools/*.json, and a
// deprecation of its one tool.
const weatherSite = `base_url = "https://weather.example.com/"
title = "Weather"

[[servers]]
name = "com.example.weather/forecast"
description = "Forecasts."
version = "1.0.0"
tools = "tools/*.json"

[[servers.remotes]]
type = "streamable-http"
url = "https://weather.example.com/mcp"

[[deprecations]]
endpoint = "com.example.weather/forecast#get_forecast"
announced_at = "2026-05-01T00:00:00Z"
sunset = "2026-12-31T00:00:00Z"
`

const forecastTool = `{"name": "get_forecast", "inputSchema": {"type": "object"}}`

// load writes weatherSite (with extra appended) and the forecast tool to a
// directory, and loads its working tree.
func load(t *testing.T, extra string) (*site.Config, []Server) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tools", "get_forecast.json"), []byte(forecastTool), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := site.Parse(filepath.Join(dir, "site.toml"), weatherSite+extra, nil)
	if err != nil {
		t.Fatal(err)
	}
	servers, err := Load(cfg, tools.NewCache(), inputfile.Secret{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, servers
}

// committed is a history whose last commit holds the server at version,
// with the given tool file.
func committed(t *testing.T, cfg *site.Config, version, tool string) *timeline.Timeline {
	t.Helper()
	parsed, err := tools.Parse("tools/get_forecast.json", []byte(tool))
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Servers[0]
	return &timeline.Timeline{Servers: []*timeline.ServerHistory{{
		Name: s.Name,
		Last: timeline.Server{Name: s.Name, Slug: s.Slug, Version: version, Endpoint: cfg.Endpoint(s),
			Tools: map[string]tools.Tool{parsed.Name: parsed}},
		Tools: []*timeline.ToolHistory{{Server: s.Name, Name: parsed.Name}},
	}}}
}

// Load reads each server's tool files from the working tree, in site.toml
// order, with its position.
func TestLoadReadsTheToolFiles(t *testing.T) {
	cfg, servers := load(t, "")
	if len(servers) != 1 || servers[0].Config != &cfg.Servers[0] || servers[0].Index != 0 {
		t.Fatalf("servers %+v: want the one server of site.toml at index 0", servers)
	}
	if ts := servers[0].Tools; len(ts) != 1 || ts[0].Name != "get_forecast" {
		t.Errorf("tools %+v: want get_forecast", ts)
	}
}

// A working tree the same as the last commit passes; one that differs is a
// warning that names the difference, or, when strict, the error.
func TestCheckComparesWithTheLastCommit(t *testing.T) {
	cfg, servers := load(t, "")
	same := committed(t, cfg, "1.0.0", forecastTool)
	if warnings, err := Check(Input{Config: cfg, Timeline: same, Servers: servers}); err != nil || len(warnings) != 0 {
		t.Fatalf("the committed state: warnings %q, error %v; want neither", warnings, err)
	}
	older := committed(t, cfg, "0.9.0", `{"name": "get_forecast", "inputSchema": {"type": "object", "properties": {}}}`)
	warnings, err := Check(Input{Config: cfg, Timeline: older, Servers: servers})
	if err != nil || len(warnings) != 1 ||
		!strings.Contains(warnings[0].Msg, "server com.example.weather/forecast version 1.0.0 (committed: 0.9.0)") ||
		!strings.Contains(warnings[0].Msg, "tool get_forecast changed") || !strings.HasPrefix(warnings[0].Hint, "commit them") {
		t.Errorf("a changed version and tool: warnings %+v, error %v; want one warning naming both, with the fix", warnings, err)
	}
	if _, err := Check(Input{Config: cfg, Timeline: older, Servers: servers, Strict: true}); err == nil || !strings.Contains(err.Error(), "uncommitted changes") {
		t.Errorf("strict: error %v, want the uncommitted changes", err)
	}
	if warnings, err := Check(Input{Config: cfg, Timeline: older, Servers: servers, Strict: true, IgnoreUncommitted: true}); err != nil || len(warnings) != 0 {
		t.Errorf("ignoring the working tree: warnings %q, error %v; want neither", warnings, err)
	}
}

// A deprecation must name a server or tool of the history or the working
// tree, even when the working tree is not compared.
func TestCheckDeprecations(t *testing.T) {
	cfg, servers := load(t, `
[[deprecations]]
endpoint = "com.example.weather/forecast#get_radar"
announced_at = "2026-05-01T00:00:00Z"
sunset = "2026-12-31T00:00:00Z"
`)
	_, err := Check(Input{Config: cfg, Timeline: &timeline.Timeline{}, Servers: servers, IgnoreUncommitted: true})
	if err == nil || !strings.Contains(err.Error(), `deprecation names "com.example.weather/forecast#get_radar"`) || strings.Contains(err.Error(), "#get_forecast") {
		t.Errorf("error %v: want get_radar named as no tool of the site, and get_forecast accepted", err)
	}
}
