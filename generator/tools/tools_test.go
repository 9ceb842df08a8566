package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"tools/*.json", "tools/a.json", true},
		{"tools/*.json", "tools/sub/a.json", false},
		{"tools/**/*.json", "tools/a.json", true},
		{"tools/**/*.json", "tools/x/y/a.json", true},
		{"tools/**", "tools/x/y/a.json", true},
		{"**/*.json", "a.json", true},
		{"**/*.json", "deep/er/a.json", true},
		{"tools/**/*.json", "other/a.json", false},
		{"tools/?.json", "tools/ab.json", false},
		{"tools/[ab].json", "tools/b.json", true},
		{"tools/*.json", "tools/a.txt", false},
		{"tools/[.json", "tools/[.json", false}, // malformed: never matches
	} {
		if got := Match(tc.pattern, tc.name); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestGlob(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"tools/b.json", "tools/a.json", "tools/sub/c.json", "tools/sub/notes.txt", "other/d.json", "tools/.git/x.json"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for pattern, want := range map[string]string{
		"tools/*.json":    "tools/a.json tools/b.json",
		"tools/**/*.json": "tools/a.json tools/b.json tools/sub/c.json",
		"missing/*.json":  "",
	} {
		got, err := Glob(root, pattern)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("Glob(%q) = %v, want %s", pattern, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	valid := `{"name": "get_forecast", "description": "d", "inputSchema": {"type": "object"}}`
	tool, err := Parse("t.json", []byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	if tool.Name != "get_forecast" || tool.Description() != "d" || tool.File != "t.json" {
		t.Errorf("Parse = %+v", tool)
	}
	reformatted, _ := Parse("t.json", []byte("{\n  \"inputSchema\": {\"type\":\"object\"},\n\"description\":\"d\",  \"name\":\"get_forecast\"}\n"))
	if string(tool.Canonical) != string(reformatted.Canonical) {
		t.Errorf("canonical forms differ for a reformatted file:\n%s\n%s", tool.Canonical, reformatted.Canonical)
	}
	for _, tc := range []struct{ data, want string }{
		{`{"name": "a", "inputSchema": {"type": "object"},}`, "t.json:1: invalid JSON at column 49 (byte offset 48)"},
		{"\xff", "not valid UTF-8"},
		{`null`, "must hold a JSON object"},
		{`[]`, "invalid JSON"},
		{`{"inputSchema": {"type": "object"}}`, `tool has no "name"`},
		{`{"name": 7, "inputSchema": {"type": "object"}}`, `tool "name" must be a string`},
		{`{"name": "a b", "inputSchema": {"type": "object"}}`, `tool name "a b" must be 1–128 characters`},
		{`{"name": "` + strings.Repeat("a", 129) + `", "inputSchema": {"type": "object"}}`, "must be 1–128 characters"},
		{`{"name": "..", "inputSchema": {"type": "object"}}`, `tool name ".." is not usable`},
		{`{"name": "a"}`, `tool a has no "inputSchema"`},
		{`{"name": "a", "inputSchema": "object"}`, `"inputSchema" must be a JSON Schema object`},
		{`{"name": "a", "inputSchema": {"type": "string"}}`, `"inputSchema" must have "type": "object"`},
		{`{"name": "a", "inputSchema": {"type": "object"}, "outputSchema": {}}`, `"outputSchema" must have "type": "object"`},
		{`{"name": "a", "description": 3, "inputSchema": {"type": "object"}}`, `"description" must be a string`},
		{`{"name": "a", "inputSchema": {"type": "object"}, "annotations": []}`, `"annotations" must be an object`},
	} {
		_, err := Parse("t.json", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.data, err, tc.want)
		}
	}
}

func TestCheckUnique(t *testing.T) {
	ts := []Tool{{Name: "b", File: "x/b.json"}, {Name: "a", File: "x/a.json"}, {Name: "b", File: "y/b.json"}}
	err := CheckUnique(ts)
	if err == nil || err.Error() != `y/b.json: tool "b" is also declared in x/b.json` {
		t.Errorf("CheckUnique = %v", err)
	}
	if ts[0].Name != "a" {
		t.Errorf("CheckUnique did not sort by name: %v", ts)
	}
}

func TestDir(t *testing.T) {
	for pattern, want := range map[string]string{
		"content/servers/forecast/tools/*.json":  "content/servers/forecast/tools",
		"content/servers/alerts/tools/**/*.json": "content/servers/alerts/tools",
		"tools/v[12]/*.json":                     "tools",
		"**/*.json":                              "",
		"tool.json":                              "",
		"schemas/{a,b}/x.json":                   "schemas/{a,b}",
		"a/b?/c.json":                            "a",
	} {
		if got := Dir(pattern); got != want {
			t.Errorf("Dir(%q) = %q, want %q", pattern, got, want)
		}
	}
}
