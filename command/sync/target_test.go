package sync

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/site"
)

func testSite(t *testing.T, servers string) *site.Config {
	t.Helper()
	cfg, err := site.Parse(filepath.Join("example", "site.toml"), "base_url = \"https://example.com/\"\n"+servers, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestDefaultDir(t *testing.T) {
	tests := []struct {
		glob, repo, want, err string
	}{
		{glob: "tools/*.json", want: "example/tools"},
		{glob: "content/servers/alerts/tools/**/*.json", want: "example/content/servers/alerts/tools"},
		{glob: "*.json", want: "example"},
		{glob: "**/*.json", want: "example"},
		{glob: "tools/*", want: "example/tools"},
		{glob: "schemas/*.json", repo: "../server-repo", want: "server-repo/schemas"},
		{glob: "tools/get_*.json", err: `tools glob "tools/get_*.json" does not name one directory`},
		{glob: "tools/*.tool.json", err: "does not name one directory"},
		{glob: "servers/*/tools/*.json", err: "does not name one directory"},
		{glob: "tools/**/x/*.json", err: "does not name one directory"},
		{glob: "", err: "has no tools glob"},
	}
	for _, tt := range tests {
		servers := "[[servers]]\nname = \"com.example/weather\"\ndescription = \"d\"\nversion = \"1.0.0\"\n"
		if tt.glob != "" {
			servers += "tools = \"" + tt.glob + "\"\n"
		}
		if tt.repo != "" {
			servers += "repo = \"" + tt.repo + "\"\n"
		}
		cfg := testSite(t, servers)
		got, err := DefaultDir(cfg, &cfg.Servers[0])
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("DefaultDir(%q): error %v, want %q", tt.glob, err, tt.err)
			}
		case err != nil:
			t.Errorf("DefaultDir(%q): %v", tt.glob, err)
		case got != filepath.FromSlash(tt.want):
			t.Errorf("DefaultDir(%q) = %q, want %q", tt.glob, got, tt.want)
		}
	}
}

func TestChooseServer(t *testing.T) {
	two := testSite(t, `
[[servers]]
name = "com.example/forecast"
description = "d"
version = "1.0.0"

[[servers]]
name = "com.example/alerts"
slug = "warnings"
description = "d"
version = "1.0.0"
`)
	one := testSite(t, "[[servers]]\nname = \"com.example/forecast\"\ndescription = \"d\"\nversion = \"1.0.0\"\n")
	none := testSite(t, "")
	tests := []struct {
		cfg        *site.Config
		name, want string
		err        string
	}{
		{cfg: two, name: "com.example/alerts", want: "com.example/alerts"},
		{cfg: two, name: "warnings", want: "com.example/alerts"},
		{cfg: two, name: "forecast", want: "com.example/forecast"},
		{cfg: one, name: "", want: "com.example/forecast"},
		{cfg: none, name: "", want: ""},
		{cfg: two, name: "", err: "has 2 servers; pick one with --server NAME or SLUG: com.example/forecast (forecast), com.example/alerts (warnings)"},
		{cfg: two, name: "alerts", err: "--server alerts: example/site.toml has no such server; its servers are com.example/forecast (forecast), com.example/alerts (warnings)"},
		{cfg: none, name: "alerts", err: "has no servers"},
	}
	for _, tt := range tests {
		s, err := ChooseServer(tt.cfg, tt.name)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ChooseServer(%q): error %v, want %q", tt.name, err, tt.err)
			}
		case err != nil:
			t.Errorf("ChooseServer(%q): %v", tt.name, err)
		case tt.want == "" && s != nil, tt.want != "" && (s == nil || s.Name != tt.want):
			t.Errorf("ChooseServer(%q) = %+v, want %q", tt.name, s, tt.want)
		}
	}
}
