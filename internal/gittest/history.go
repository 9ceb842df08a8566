package gittest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// HistoryStart is the date of the history story's first commit; a commit
// follows every day.
var HistoryStart = time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC)

// HistorySite is the site.toml the history story commits last: a pinned
// version, added to a repository with release tags before it.
const HistorySite = `base_url = "https://items.example.com/"
title = "Items MCP"

[[servers]]
name = "com.example/items"
description = "Items."
version = "1.1.0"
tools = "tools/*.json"
`

// NewHistory builds, with real git and fixed dates, a server repository
// whose history holds each case the history of a feed must decide: an
// array's items widened to a oneOf, an anyOf constraint removed beside a
// one-branch anyOf written as its branch, a changed
// default, MCP annotation defaults written explicitly, readOnlyHint
// turned off, three commits landed at once by "rebase and merge", a tool
// file moved with git mv as its tool is renamed, and release tags (v0.9.0,
// v1.0.0) before site.toml pins the version 1.1.0, and then a typo in the
// tools glob, committed and fixed the next day, which removed every tool
// for one commit. It returns the repository; its site.toml is HistorySite.
func NewHistory(t testing.TB) *Repo {
	t.Helper()
	g := New(t, t.TempDir())
	g.When = HistoryStart.Add(-24 * time.Hour)
	day := func() { g.When = g.When.Add(23 * time.Hour) } // Commit adds the hour
	str := map[string]any{"type": "string"}
	tool := func(file, name string, props map[string]any, annotations map[string]any) {
		obj := map[string]any{"name": name, "description": "Tool " + name + ".",
			"inputSchema": map[string]any{"type": "object", "properties": props}}
		if annotations != nil {
			obj["annotations"] = annotations
		}
		data, err := json.MarshalIndent(obj, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		g.Write("tools/"+file+".json", string(data)+"\n")
	}
	search := func(file, name string) {
		tool(file, name, map[string]any{"query": str, "page": map[string]any{"type": "integer"}, "per_page": map[string]any{"type": "integer"}}, nil)
	}
	day()
	tool("add_labels", "add_labels", map[string]any{"labels": map[string]any{"type": "array", "items": str}}, nil)
	tool("create_note", "create_note", map[string]any{"title": map[string]any{"anyOf": []any{str}},
		"body": map[string]any{"type": "string", "anyOf": []any{map[string]any{"minLength": 1}, map[string]any{"format": "uri"}}}}, nil)
	tool("list_items", "list_items", map[string]any{"state": map[string]any{"type": "string", "default": "open"}}, nil)
	tool("get_item", "get_item", map[string]any{"id": str}, map[string]any{"title": "Get an item"})
	tool("sync_items", "sync_items", map[string]any{"since": str}, map[string]any{"readOnlyHint": true})
	tool("update_item", "update_item", map[string]any{"id": str}, nil)
	search("old_search", "search_items")
	g.Commit("initial tools")

	day()
	tool("add_labels", "add_labels", map[string]any{"labels": map[string]any{"type": "array",
		"items": map[string]any{"oneOf": []any{str, map[string]any{"type": "object"}}}}}, nil)
	g.Commit("add_labels: a label may be an object")
	g.Git("tag", "v0.9.0")

	day()
	tool("create_note", "create_note", map[string]any{"title": str, "body": str}, nil)
	g.Commit("create_note: body and title are plain strings")

	day()
	tool("list_items", "list_items", map[string]any{"state": map[string]any{"type": "string", "default": "all"}}, nil)
	g.Commit("list_items: all items by default")

	day()
	tool("get_item", "get_item", map[string]any{"id": str}, map[string]any{"title": "Get an item",
		"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true})
	g.Commit("SDK upgrade: annotation defaults written out")

	day()
	g.Write("CHANGELOG.md", "1.0.0\n")
	g.Commit("release 1.0.0")
	g.Git("tag", "-a", "-m", "1.0.0", "v1.0.0")

	day()
	tool("sync_items", "sync_items", map[string]any{"since": str}, map[string]any{"readOnlyHint": false})
	g.Commit("sync_items writes back")

	// A pull request of three commits, rebased onto main at once: one
	// committer time.
	day()
	tool("update_item", "update_item", map[string]any{"id": str, "title": str}, nil)
	g.Commit("update_item: title")
	g.When = g.When.Add(-time.Hour)
	tool("update_item", "update_item", map[string]any{"id": str, "title": str, "body": str}, nil)
	g.Commit("update_item: body")
	g.When = g.When.Add(-time.Hour)
	tool("update_item", "update_item", map[string]any{"id": str, "title": str, "body": str}, map[string]any{"title": "Update an item"})
	g.Commit("fix tests")

	day()
	g.Git("mv", "tools/old_search.json", "tools/search.json")
	search("search", "search")
	g.Commit("search_items is now search")

	day()
	g.Write("site.toml", HistorySite)
	g.Commit("publish the server with wellknown")

	day()
	g.Write("site.toml", strings.Replace(HistorySite, `"tools/*.json"`, `"tools/*.jsn"`, 1))
	g.Commit("site.toml: a glob typo")

	day()
	g.Write("site.toml", HistorySite)
	g.Commit("site.toml: the glob fixed")
	return g
}
