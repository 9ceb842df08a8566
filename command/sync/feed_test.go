package sync

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/internal/gittest"
	"github.com/wellknown-dev/wellknown/internal/prereq"
)

const feedSite = `base_url = "https://weather.example.com/"

[[servers]]
name = "com.example/weather"
description = "Weather."
version = "1.0.0"
tools = "tools/*.json"

[[servers.remotes]]
type = "streamable-http"
url = "https://weather.example.com/mcp"
`

// TestSyncsBecomeFeedEntries commits two syncs and checks that build turns
// them into the feed entries they mean.
func TestSyncsBecomeFeedEntries(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		prereq.Missing(t, "git is not installed (apt-get install git)")
	}
	repo := gittest.New(t, t.TempDir())
	repo.When = time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC) // the first sync is committed at 09:00
	config := filepath.Join(repo.Dir, "site.toml")
	if err := os.WriteFile(config, []byte(feedSite), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := site.Load(config, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := DefaultDir(cfg, &cfg.Servers[0])
	if err != nil {
		t.Fatal(err)
	}
	srv := newMCPServer(t, toolsV1, "")
	opt := Options{Source: httpSource(t, srv.URL), Dir: dir}

	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	repo.Commit("sync")
	srv.setTools(t, toolsV2)
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	repo.Commit("sync")

	seed := base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	res, err := generator.Build(generator.Options{ConfigPath: config, Getenv: func(name string) string {
		if name == "WELLKNOWN_SIGNING_KEY" {
			return seed
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}

	// Within a commit the feed's own tests check the order; here, the set.
	const server, tool = "com.example/weather", "com.example/weather#"
	want := map[string][]string{
		"2026-05-01T09:00:00Z": {
			"endpoint-announcement " + server + " 1.0.0",
			"endpoint-announcement " + tool + "convert_units 1.0.0",
			"endpoint-announcement " + tool + "get_alerts 1.0.0",
			"endpoint-announcement " + tool + "get_forecast 1.0.0",
			"endpoint-announcement " + tool + "list_stations 1.0.0",
			"endpoint-announcement " + tool + "old_tool 1.0.0",
		},
		"2026-05-01T10:00:00Z": {
			"deprecation " + tool + "old_tool",
			"endpoint-announcement " + tool + "new_tool 1.0.0",
			"schema-change " + tool + "convert_units 1.0.0>2.0.0 breaking",
			"schema-change " + tool + "get_alerts 1.0.0>1.1.0 compatible",
			"schema-change " + tool + "get_forecast 1.0.0>1.0.1 cosmetic",
		},
	}
	got := map[string][]string{}
	for _, e := range res.Entries {
		var p map[string]any
		if err := json.Unmarshal(e.Content, &p); err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("%s %v", e.Type, p["endpoint-id"])
		switch e.Type {
		case "endpoint-announcement":
			line += fmt.Sprintf(" %v", p["version"])
		case "schema-change":
			line += fmt.Sprintf(" %v>%v %v", p["from-version"], p["to-version"], p["x-compat"])
		}
		got[e.Updated] = append(got[e.Updated], line)
	}
	for at := range got {
		slices.Sort(got[at])
	}
	for at, lines := range want {
		if !slices.Equal(got[at], lines) {
			t.Errorf("entries at %s:\n%s\nwant:\n%s", at, strings.Join(got[at], "\n"), strings.Join(lines, "\n"))
		}
	}
	if len(got) != len(want) {
		t.Errorf("entries at %d times, want %d: %v", len(got), len(want), got)
	}
}
