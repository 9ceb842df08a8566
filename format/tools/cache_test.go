package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// A tool file renamed again and again is one file to the cache, not one
// more at every load: a Sweep forgets the names no load has now.
func TestCacheForgetsRemovedFiles(t *testing.T) {
	dir := t.TempDir()
	c := NewCache()
	display := func(rel string) string { return rel }
	old := ""
	for i := range 5 {
		name := filepath.Join(dir, fmt.Sprintf("tool%d.json", i))
		if old == "" {
			if err := os.WriteFile(name, []byte(`{"name": "t", "inputSchema": {"type": "object"}}`), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Rename(old, name); err != nil {
			t.Fatal(err)
		}
		old = name
		files, err := Glob(dir, "*.json")
		if err != nil {
			t.Fatal(err)
		}
		ts, err := c.Load(dir, files, display, inputfile.Secret{})
		if err != nil || len(ts) != 1 {
			t.Fatalf("load %d: %d tools, error %v; want the one tool", i, len(ts), err)
		}
		c.Sweep()
		if len(c.parsed) != 1 {
			t.Fatalf("after %d renames the cache holds %d parsed files, want 1", i, len(c.parsed))
		}
	}
	if c.Parsed() != 5 {
		t.Errorf("%d files parsed, want 5: each rename is a file the cache has not seen", c.Parsed())
	}
}
