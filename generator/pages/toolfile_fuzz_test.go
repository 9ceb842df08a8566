package pages

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
)

// previous is the version a fuzzed tool file is compared with.
const previous = `{"name": "get_forecast", "description": "Daily forecast.", "inputSchema": {"type": "object",
	"required": ["city"], "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}}}}`

// A tool page may be this many times larger than its tool file, plus the
// page's own frame: a row of the parameter table per property (about 200
// bytes for "a":{}) and the file, escaped and indented 16 levels at most.
const pageGrowth = 48

// FuzzToolFile reads arbitrary bytes as a tool file, with the limits on,
// and takes what it accepts through what a build does with a tool: its
// canonical form, a diff against a previous version and its page. An
// accepted file's canonical form is RFC 8785 (as the reference transformer
// writes it) and stable; a refused one gets one located line naming the
// file; ParseCanonical reads either as Parse does; the page grows linearly
// with the file.
func FuzzToolFile(f *testing.F) {
	for _, seed := range []string{
		previous,
		`{"name": "a", "inputSchema": {"type": "object", "properties": {"o": {"type": "object", "properties": {"p": {"type": "array", "items": {"type": "object", "properties": {"q": {"type": "string", "enum": ["x", null, 1e21]}}}}}}}}}`,
		`{"name": "a", "title": "\u00e9\ud83d\ude00", "inputSchema": {"type": "object", "properties": {"<b>": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/X"}], "default": -0}}}}`,
		`{"name": "a", "inputSchema": {"type": "object"}, "name": "b"}`,
		"\xEF\xBB\xBF{}",
		`[{"name": "a"}]`,
		`{"name": "a", "inputSchema": {"type": "object", "x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}`,
	} {
		f.Add([]byte(seed))
	}
	examples, _ := filepath.Glob("../../content/servers/*/tools/*.json")
	for _, file := range examples {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	before, err := tools.Parse("previous.json", []byte(previous))
	if err != nil {
		f.Fatal(err)
	}
	cfg, err := site.Parse(filepath.Join(f.TempDir(), "site.toml"), fuzzSite, nil)
	if err != nil {
		f.Fatal(err)
	}
	frame := len(toolPage(f, cfg, before))
	f.Fuzz(func(t *testing.T, data []byte) {
		tool, err := tools.Parse("t.json", data)
		lean, leanErr := tools.ParseCanonical("t.json", data)
		if fmt.Sprint(leanErr) != fmt.Sprint(err) || lean.Name != tool.Name || lean.File != tool.File || lean.SHA256 != tool.SHA256 || !bytes.Equal(lean.Canonical, tool.Canonical) || lean.Object != nil {
			t.Fatalf("ParseCanonical(%q) = %+v, %v; Parse: %+v, %v", data, lean, leanErr, tool, err)
		}
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "t.json") || strings.Contains(msg, "\n") {
				t.Fatalf("the error for %q is not one line naming the file: %q", data, msg)
			}
			return
		}
		if want, err := jcs.Transform(data); err == nil && !bytes.Equal(tool.Canonical, want) {
			t.Fatalf("canonical form of %q\n got %q\nwant %q", data, tool.Canonical, want)
		}
		again, err := tools.Parse("canonical.json", tool.Canonical)
		if err != nil || !bytes.Equal(again.Canonical, tool.Canonical) {
			t.Fatalf("the canonical form %q does not read back as itself: %v", tool.Canonical, err)
		}
		if got := schemadiff.Compare(tool.Object, tool.Object); !reflect.DeepEqual(got, schemadiff.Result{}) {
			t.Fatalf("a tool differs from itself: %+v", got)
		}
		schemadiff.Compare(before.Object, tool.Object)
		page := toolPage(t, cfg, tool)
		if limit := pageGrowth*len(data) + frame; len(page) > limit {
			t.Fatalf("a %d-byte tool file has a %d-byte page (more than %d)", len(data), len(page), limit)
		}
		var decoded any
		if err := json.Unmarshal(tool.Canonical, &decoded); err != nil {
			t.Fatalf("the canonical form is not JSON: %v", err)
		}
	})
}

// fuzzSite is a site of one server, whose only tool is the fuzzed one.
const fuzzSite = `base_url = "https://example.com/"
title = "Fuzz"

[[servers]]
name = "com.example/s"
description = "Fuzzed."
version = "1.0.0"
`

// toolPage renders the pages of a site of one server (cfg) with the tool
// as a build does, and returns the tool's.
func toolPage(t testing.TB, cfg *site.Config, tool tools.Tool) []byte {
	files, _, err := renderBuildFiles(BuildInput{
		Config:   cfg,
		Servers:  []BuildServer{{Config: &cfg.Servers[0], Tools: []tools.Tool{tool}}},
		Timeline: &timeline.Timeline{},
		Key:      ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey),
		Cache:    NewCache(),
	})
	if err != nil {
		t.Fatalf("rendering %s: %v", tool.Canonical, err)
	}
	for _, f := range files {
		if f.Path == "/servers/s/tools/"+tool.Name+"/index.html" {
			return f.Body
		}
	}
	t.Fatalf("no page for tool %s", tool.Name)
	return nil
}
