package serve

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The benchmarks measure the time from saving a tool file to the reload
// event open pages get (ns/op), with the default debounce window
// (watch.DefaultDebounce) included; build-ms is the rebuild's share.

func BenchmarkRebuildExample(b *testing.B) {
	config := exampleSite(b)
	benchmarkReload(b, config, filepath.Join(filepath.Dir(config), "content", "servers", "forecast", "tools", "get_forecast.json"))
}

func BenchmarkRebuild1000Tools(b *testing.B) {
	config := manyToolsSite(b, 1000)
	benchmarkReload(b, config, filepath.Join(filepath.Dir(config), "tools", "get_tool_0500.json"))
}

// benchmarkReload commits the site first, when git is installed, so that
// every rebuild reads the history as it does in real use.
func benchmarkReload(b *testing.B, config, tool string) {
	if _, err := exec.LookPath("git"); err == nil {
		dir := filepath.Dir(config)
		git(b, dir, "init", "-q")
		git(b, dir, "add", "-A")
		git(b, dir, "commit", "-q", "-m", "the site")
	}
	h := serveSite(b, config, Options{})
	events := h.events()
	version := events.next(b)
	before := len(h.rebuilds())
	b.ResetTimer()
	for i := range b.N {
		if err := renameTool(tool, fmt.Sprintf("get_renamed_%d", i)); err != nil {
			b.Fatal(err)
		}
		for old := version; version == old; {
			version = events.next(b)
		}
	}
	b.StopTimer()
	var build time.Duration
	rebuilt := h.rebuilds()[before:]
	for _, r := range rebuilt {
		if r.Err != nil {
			b.Fatalf("rebuild failed: %v", r.Err)
		}
		build += r.Elapsed
	}
	b.ReportMetric(float64(build.Milliseconds())/float64(len(rebuilt)), "build-ms")
}

// manyToolsSite writes a site with one server of n tools.
func manyToolsSite(b *testing.B, n int) string {
	dir := b.TempDir()
	config := filepath.Join(dir, "site.toml")
	writeFile(b, config, `base_url = "https://tools.example.com/"
title = "Many tools"

[[servers]]
name = "com.example.tools/many"
description = "A server with many tools."
version = "1.0.0"
tools = "tools/*.json"
`)
	for i := range n {
		writeFile(b, filepath.Join(dir, "tools", fmt.Sprintf("get_tool_%04d.json", i)), fmt.Sprintf(`{
  "name": "get_tool_%04d",
  "description": "Tool number %d: reads a record by id.",
  "inputSchema": {
    "type": "object",
    "properties": {
      "id": {"type": "string", "description": "The record's id."},
      "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}
    },
    "required": ["id"]
  }
}
`, i, i))
	}
	return config
}
