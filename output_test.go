package main

import (
	"bytes"
	"testing"
)

// A build never reads its own output as input: a tool glob that also
// matches files the previous build wrote (public/mcp/forecast/server-card.json
// and the tool snapshots under public/.well-known/) reads only the site's.
func TestOutputIsNeverAnInput(t *testing.T) {
	dir := inExampleSite(t)
	replace("site.toml", `tools = "content/servers/forecast/tools/*.json"`, `tools = "**/forecast/**/*.json"`)(t, dir)
	for _, args := range [][]string{{"build"}, {"build"}, {"build", "--out", "content/servers/forecast/out"}, {"build", "--out", "content/servers/forecast/out"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 0 {
			t.Fatalf("wellknown %v: exit status %d\n%s", args, code, stderr.String())
		}
	}
}
