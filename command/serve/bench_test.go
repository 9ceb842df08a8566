package serve

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The benchmarks measure the time from saving a file to the reload event
// open pages get (ns/op), with the default debounce window
// (watch.DefaultDebounce) included; build-ms is the rebuild's share.

func BenchmarkRebuildExample(b *testing.B) {
	config := exampleSite(b)
	commitSite(b, config)
	benchmarkReload(b, config, nil, renamingTool(filepath.Join(filepath.Dir(config), "content", "servers", "forecast", "tools", "get_forecast.json")), "")
}

func BenchmarkRebuild1000Tools(b *testing.B) {
	config := manyToolsSite(b, 1000)
	commitSite(b, config)
	benchmarkReload(b, config, nil, renamingTool(filepath.Join(filepath.Dir(config), "tools", "get_tool_0500.json")), "")
}

// BenchmarkRebuildBenchSiteMarkdown saves one Markdown page, its title
// unchanged, of the 2,000 pages and 1,000 tools internal/benchsite writes.
func BenchmarkRebuildBenchSiteMarkdown(b *testing.B) {
	config := benchSite(b)
	page := filepath.Join(filepath.Dir(config), "content", "pages", "s07", "page-1007.md")
	benchmarkReload(b, config, nil, func(i int) error {
		appendFile(b, page, fmt.Sprintf("\nEdit %d.\n", i))
		return nil
	}, "")
}

// BenchmarkRebuildBenchSiteTool renames one tool of the same site.
func BenchmarkRebuildBenchSiteTool(b *testing.B) {
	config := benchSite(b)
	tool := filepath.Join(filepath.Dir(config), "tools", "server-3", "tool_0503.json")
	editFile(b, tool, `"name": "tool_0503"`, `"name": "get_tool_0503"`) // a name renameTool recognises
	benchmarkReload(b, config, nil, renamingTool(tool), "")
}

// BenchmarkRebuildBenchSiteCommit commits one tool's edit on the same
// site, the edit itself made and rebuilt untimed.
func BenchmarkRebuildBenchSiteCommit(b *testing.B) {
	config := benchSite(b)
	dir := filepath.Dir(config)
	tool := filepath.Join(dir, "tools", "server-3", "tool_0503.json")
	editFile(b, tool, `"name": "tool_0503"`, `"name": "get_tool_0503"`)
	git(b, dir, "commit", "-qam", "a name renameTool recognises")
	commit := func(i int) error {
		git(b, dir, "commit", "-qam", fmt.Sprintf("edit %d", i))
		return nil
	}
	benchmarkReload(b, config, renamingTool(tool), commit, string(filepath.Separator)+".git"+string(filepath.Separator))
}

// commitSite commits the site, when git is installed, so that every
// rebuild reads the history as it does in real use.
func commitSite(b *testing.B, config string) {
	if _, err := exec.LookPath("git"); err == nil {
		dir := filepath.Dir(config)
		git(b, dir, "init", "-q")
		git(b, dir, "add", "-A")
		git(b, dir, "commit", "-q", "-m", "the site")
	}
}

// benchSite writes the site of internal/benchsite (2,000 Markdown pages,
// 1,000 tools in 10 servers, committed) and returns its site.toml.
func benchSite(b *testing.B) string {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("the benchmark site is committed with git, which is not installed")
	}
	dir := b.TempDir()
	cmd := exec.Command("go", "run", "./internal/benchsite", "-pages", "2000", "-tools", "1000", dir)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go run ./internal/benchsite: %v\n%s", err, out)
	}
	return filepath.Join(dir, "wellknown", "site.toml")
}

func renamingTool(file string) func(i int) error {
	return func(i int) error { return renameTool(file, fmt.Sprintf("get_renamed_%d", i)) }
}

// benchmarkReload times edit, b.N times, to the reload event; prepare,
// when set, changes the site first, untimed, and waits for its reload.
// build-ms averages the rebuilds caused by a path containing cause.
func benchmarkReload(b *testing.B, config string, prepare, edit func(i int) error, cause string) {
	h := serveSite(b, config, Options{})
	events := h.events()
	version := events.next(b)
	await := func() {
		for old := version; version == old; {
			version = events.next(b)
		}
	}
	before := len(h.rebuilds())
	b.ResetTimer()
	for i := range b.N {
		if prepare != nil {
			b.StopTimer()
			if err := prepare(i); err != nil {
				b.Fatal(err)
			}
			await()
			b.StartTimer()
		}
		if err := edit(i); err != nil {
			b.Fatal(err)
		}
		await()
	}
	b.StopTimer()
	var build time.Duration
	var counted int
	for _, r := range h.rebuilds()[before:] {
		if r.Err != nil {
			b.Fatalf("rebuild failed: %v", r.Err)
		}
		if slices.ContainsFunc(r.Changed, func(p string) bool { return strings.Contains(p, cause) }) {
			build += r.Elapsed
			counted++
		}
	}
	b.ReportMetric(float64(build.Milliseconds())/float64(counted), "build-ms")
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
