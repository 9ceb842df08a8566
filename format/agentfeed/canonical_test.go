package agentfeed

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/internal/prereq"
)

const vectorsDir = "../../../shared/vectors"

// vectorDir returns an upstream vector folder, skipping the test without it.
func vectorDir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(vectorsDir, name)
	if _, err := os.Stat(dir); err != nil {
		prereq.Missing(t, "upstream vectors not found at %s (they live beside the repository, in shared/vectors/%s)", dir, name)
	}
	return dir
}

func TestCanonicalizeJSONMatchesRFC8785Vectors(t *testing.T) {
	dir := vectorDir(t, "jcs")
	inputs, err := filepath.Glob(filepath.Join(dir, "input", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no JCS inputs in %s (%v)", dir, err)
	}
	for _, in := range inputs {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			input, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, "output", name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := CanonicalizeJSON(input)
			if err != nil {
				t.Fatalf("CanonicalizeJSON: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("CanonicalizeJSON(%s)\n got %q\nwant %q", name, got, want)
			}
		})
	}
}

func TestCanonicalizeJSONRejects(t *testing.T) {
	for _, tc := range []struct{ name, input, want string }{
		{"missing comma", `[1 2]`, "not valid JSON"},
		{"trailing garbage", `{"a":1} x`, "not valid JSON"},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", "not valid UTF-8"},
		{"duplicate key", `{"a":1,"a":2}`, `duplicate key "a"`},
		{"lone surrogate", `["\ud800"]`, "lone UTF-16 surrogate"},
		{"empty", ``, "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CanonicalizeJSON([]byte(tc.input))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CanonicalizeJSON(%q) = %q, %v; want error containing %q", tc.input, got, err, tc.want)
			}
		})
	}
}

func TestCanonicalPayloads(t *testing.T) {
	for _, tc := range []struct {
		name    string
		payload any
		want    string
	}{
		{
			"announcement without extension",
			Announcement{EndpointID: "e", Endpoint: "https://x/?a=1&b=<2>", Protocol: "mcp", Version: "1.0.0", AssertedAt: "2026-01-01T00:00:00Z"},
			`{"asserted-at":"2026-01-01T00:00:00Z","endpoint":"https://x/?a=1&b=<2>","endpoint-id":"e","protocol":"mcp","version":"1.0.0"}`,
		},
		{
			"schema change with empty migration",
			SchemaChange{EndpointID: "e", FromVersion: "1.0.0", ToVersion: "1.0.1", EffectiveAt: "t", Compat: "cosmetic", SchemaSHA256: "ab"},
			`{"effective-at":"t","endpoint-id":"e","from-version":"1.0.0","migration":{},"to-version":"1.0.1","x-compat":"cosmetic","x-schema-sha256":"ab"}`,
		},
		{
			"schema change with every operator",
			SchemaChange{EndpointID: "e", FromVersion: "1", ToVersion: "2", EffectiveAt: "t", Migration: schemadiff.Migration{
				Add:    []string{"/b"},
				Remove: []string{"/a"},
				Rename: map[string]string{"/z": "/y"},
				Retype: map[string]schemadiff.Retype{"/n": {From: "number", To: "nullable<number>"}},
			}},
			`{"effective-at":"t","endpoint-id":"e","from-version":"1","migration":{"add":["/b"],"remove":["/a"],"rename":{"/z":"/y"},"retype":{"/n":{"from":"number","to":"nullable<number>"}}},"to-version":"2"}`,
		},
		{
			"deprecation with nulls",
			Deprecation{EndpointID: "e", AnnouncedAt: "t", Sunset: "u"},
			`{"announced-at":"t","endpoint-id":"e","reason":null,"replacement":null,"sunset":"u"}`,
		},
		{
			"deprecation with replacement and non-ASCII reason",
			Deprecation{EndpointID: "e", AnnouncedAt: "t", Sunset: "u", Replacement: ptr("f"), Reason: ptr("ersetzt durch „f“")},
			`{"announced-at":"t","endpoint-id":"e","reason":"ersetzt durch „f“","replacement":"f","sunset":"u"}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical(tc.payload)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("Canonical\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestEntryID(t *testing.T) {
	id := EntryID("example.com", TypeSchemaChange, "com.example/weather#get_forecast", "1.1.0")
	if want := "urn:af:example.com:schema-change:e33947fca9527ffa"; id != want {
		t.Errorf("EntryID = %s, want %s (ids must never change between builds)", id, want)
	}
	if !regexp.MustCompile(`^urn:af:example\.com:schema-change:[0-9a-f]{16}$`).MatchString(id) {
		t.Errorf("EntryID = %s, not of the form urn:af:<host>:<type>:<16 hex>", id)
	}
	others := [][4]string{
		{"example.org", TypeSchemaChange, "com.example/weather#get_forecast", "1.1.0"},
		{"example.com", TypeAnnouncement, "com.example/weather#get_forecast", "1.1.0"},
		{"example.com", TypeSchemaChange, "com.example/weather#get_alerts", "1.1.0"},
		{"example.com", TypeSchemaChange, "com.example/weather#get_forecast", "1.2.0"},
		// The separator keeps field boundaries apart.
		{"example.com", TypeSchemaChange, "com.example/weather#get_forecast1", ".1.0"},
	}
	for _, o := range others {
		if other := EntryID(o[0], o[1], o[2], o[3]); other == id {
			t.Errorf("EntryID%q = %s, same as for different fields", o, other)
		}
	}
}
