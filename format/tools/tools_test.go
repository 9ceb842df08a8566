package tools

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/wellknown-dev/wellknown/format/canonjson"
	"github.com/wellknown-dev/wellknown/internal/diag"
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
		{`null`, "t.json: a tool file holds one JSON object (found null)"},
		{`[]`, "t.json: a tool file holds one JSON object (found an array)"},
		{`"x"`, "t.json: a tool file holds one JSON object (found a string)"},
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
		if _, leanErr := ParseCanonical("t.json", []byte(tc.data)); fmt.Sprint(leanErr) != fmt.Sprint(err) {
			t.Errorf("ParseCanonical(%q) = %v, Parse %v", tc.data, leanErr, err)
		}
	}
}

// ParseCanonical is Parse without the decoded object.
func TestParseCanonical(t *testing.T) {
	files, err := filepath.Glob("../../content/servers/*/tools/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example tool files (%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		want.Object = nil
		got, err := ParseCanonical(f, data)
		if err != nil || got.Name != want.Name || got.File != want.File || got.SHA256 != want.SHA256 || !bytes.Equal(got.Canonical, want.Canonical) || got.Object != nil {
			t.Errorf("ParseCanonical(%s) = %+v, %v; want %+v", f, got, err, want)
		}
		// A reader of a long history keeps every version's form.
		if cap(got.Canonical) != len(got.Canonical) {
			t.Errorf("ParseCanonical(%s) keeps %d bytes for a form of %d", f, cap(got.Canonical), len(got.Canonical))
		}
	}
}

// storedAt is a Stored for tests: where a form was kept.
type storedAt int

func (storedAt) Read() ([]byte, error) { return nil, nil }

// ParseStored gives store the form and SHA256 ParseCanonical returns,
// and keeps what store returns in place of the form, or the form when
// store keeps none.
func TestParseStored(t *testing.T) {
	files, err := filepath.Glob("../../content/servers/*/tools/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example tool files (%v)", err)
	}
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ParseCanonical(f, data)
		if err != nil {
			t.Fatal(err)
		}
		var stored []byte
		var storedSum string
		got, err := ParseStored(f, data, func(canonical []byte, sha256 string) Stored {
			stored, storedSum = append(stored, canonical...), sha256
			return storedAt(i)
		})
		if err != nil || got.Name != want.Name || got.SHA256 != want.SHA256 || got.Canonical != nil || got.Stored != storedAt(i) || !bytes.Equal(stored, want.Canonical) || storedSum != want.SHA256 {
			t.Errorf("ParseStored(%s) = %+v, %v, stored %q with %s; want %+v stored", f, got, err, stored, storedSum, want)
		}
		kept, err := ParseStored(f, data, func([]byte, string) Stored { return nil })
		if err != nil || kept.Stored != nil || !bytes.Equal(kept.Canonical, want.Canonical) {
			t.Errorf("ParseStored(%s) with a store that keeps nothing = %+v, %v", f, kept, err)
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

// Each problem that encoding/json would let through, or word obscurely, is
// one error naming the file, the line and the problem.
func TestParseNamesTheProblem(t *testing.T) {
	head := "{\n  \"name\": \"a\",\n  \"inputSchema\": {\"type\": \"object\"},\n"
	for _, tc := range []struct{ name, data, want string }{
		{"byte-order mark", "\xEF\xBB\xBF" + head + "}", "t.json: starts with a UTF-8 byte-order mark; save it without one"},
		{"duplicate key", head + "  \"description\": \"x\",\n  \"description\": \"y\"\n}", `t.json:5: duplicate key "description"`},
		{"lone surrogate", head + "  \"description\": \"\\ud83d\"\n}", `t.json:4: string holds a lone UTF-16 surrogate \ud83d, which is not a character`},
		{"invalid UTF-8", head + "  \"description\": \"\xff\"\n}", "t.json:4: is not valid UTF-8"},
		{"number out of range", head + "  \"_meta\": {\"n\": 1e999}\n}", "t.json:4: number 1e999 is too large for a 64-bit floating-point number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.json", []byte(tc.data))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Parse = %v\nwant %s", err, tc.want)
			}
		})
	}
}

// toolWith returns a valid tool file whose input schema holds extra.
func toolWith(extra string) []byte {
	return []byte(`{"name": "a", "inputSchema": {"type": "object", "x": ` + extra + `}}`)
}

func TestParseLimits(t *testing.T) {
	// The tool object, inputSchema and extra itself are three levels.
	nested := func(levels int) string { return strings.Repeat(`{"a":`, levels) + "1" + strings.Repeat("}", levels) }
	props := func(n int) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `"p%d": 1`, i)
		}
		return b.String() + "}"
	}
	padded := func(size int) []byte {
		file := toolWith(`""`)
		return toolWith(`"` + strings.Repeat("x", size-len(file)) + `"`)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string // "" when the file is within the limits
	}{
		{"size at the limit", padded(MaxFileBytes), ""},
		{"size over the limit", padded(MaxFileBytes + 1), "t.json: tool file is 1048577 bytes; the limit is 1048576"},
		{"depth at the limit", toolWith(nested(MaxDepth - 2)), ""},
		{"depth over the limit", toolWith(nested(MaxDepth - 1)), "t.json:1: objects and arrays nest more than 64 deep (the limit)"},
		{"arrays count as nesting", toolWith(strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)), "t.json:1: objects and arrays nest more than 64 deep (the limit)"},
		// Deeper than encoding/json's own cap, met before ours is counted.
		{"depth 10,001", toolWith("\n" + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001)), "t.json:2: objects and arrays nest more than 64 deep (the limit)"},
		// name, inputSchema, type and x are four properties.
		{"properties at the limit", toolWith(props(MaxProperties - 4)), ""},
		{"properties over the limit", toolWith(props(MaxProperties - 3)), "t.json:9997: more than 10000 properties (the limit)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.json", tc.data)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case tc.want == "":
			case err == nil || err.Error() != tc.want:
				t.Fatalf("Parse = %v\nwant %s", err, tc.want)
			case !errors.Is(err, ErrLimit):
				t.Errorf("errors.Is(%v, ErrLimit) = false", err)
			case !strings.Contains(diag.Hint(err), "docs/limits.md"):
				t.Errorf("hint %q does not point to the documented limits", diag.Hint(err))
			}
		})
	}
}

// The canonical bytes (which the schema archive hashes) are those of the
// RFC 8785 transformer the project used before canonicalising decoded values.
func TestCanonicalUnchanged(t *testing.T) {
	files, err := filepath.Glob("../../content/servers/*/tools/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example tool files (%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tool, err := Parse(f, data)
		if err != nil {
			t.Fatal(err)
		}
		want, err := jcs.Transform(data)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(tool.Canonical, want) {
			t.Errorf("%s: canonical form\n got %s\nwant %s", f, tool.Canonical, want)
		}
	}
}

// checkCanonical accepts what check accepts, with the same name, and
// nothing else, reading the canonical form's text.
func FuzzCheckCanonical(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","inputSchema":{"type":"object"}}`,
		`{"name":"a.b-c_1","title":"T","description":"D","inputSchema":{"properties":{"x":{"type":"object"}},"type":"string"}}`,
		`{"name":"a","inputSchema":{"properties":{},"type":"object","uniqueItems":true},"outputSchema":{"type":"object"},"annotations":{},"_meta":{}}`,
		`{"name":".","inputSchema":{"type":"object"}}`, `{"name":"..","inputSchema":{"type":"object"}}`,
		`{"name":"a\u0062","inputSchema":{"type":"object"}}`, `{"name":"a b","inputSchema":{"type":"object"}}`,
		`{"name":null,"inputSchema":{"type":"object"}}`, `{"name":"a","inputSchema":null}`, `{"name":"a"}`,
		`{"name":"a","inputSchema":{"type":"Object"}}`, `{"name":"a","inputSchema":{"type":["object"]}}`,
		`{"name":"a","inputSchema":{"a":"\",\"type\":\"object\"}"}}`, `{"name":"a","inputSchema":{"type":"object"},"outputSchema":[]}`,
		`{"name":"a","inputSchema":{"type":"object"},"title":1}`, `{"name":"a","inputSchema":{"type":"object"},"annotations":[]}`,
		`{"name":"a","inputSchema":{"type":"object"},"_meta":"m"}`, `[{"name":"a","inputSchema":{"type":"object"}}]`,
		`{"name":"` + strings.Repeat("n", 129) + `","inputSchema":{"type":"object"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := canonjson.Decode(data, limits)
		if err != nil {
			return
		}
		canonical, err := canonjson.Canonical(v)
		if err != nil {
			return
		}
		obj, isObject := v.(map[string]any)
		want := isObject && check(obj) == nil
		name, got := checkCanonical(canonical)
		if got != want || got && name != obj["name"] {
			t.Fatalf("checkCanonical(%s) = %q, %v; check accepts it: %v", canonical, name, got, want)
		}
	})
}

// isName is namePattern without the regular expression: they agree on
// names at and around every boundary of the pattern.
func TestIsNameIsNamePattern(t *testing.T) {
	names := []string{"", "a", ".", "..", "a.b-c_D9", strings.Repeat("x", 128), strings.Repeat("x", 129),
		"a b", "a/b", "é", "a\n", "\x00", "a:b", "A-Z", "~", "`", "@", "[", "{", "\xff"}
	for c := range 256 {
		names = append(names, string([]byte{byte(c)}), "ok"+string([]byte{byte(c)}))
	}
	for _, name := range names {
		if got, want := isName([]byte(name)), namePattern.MatchString(name); got != want {
			t.Errorf("isName(%q) = %v, namePattern says %v", name, got, want)
		}
	}
}
