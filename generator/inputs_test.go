package generator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A symlink to another file of the repository is an input like any other:
// only links that leave the repository are refused (see the hostile corpus).
func TestSymlinkInsideRepository(t *testing.T) {
	config := exampleSite(t)
	dir := filepath.Dir(config)
	if err := os.Mkdir(filepath.Join(dir, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shared", "words.md"), []byte("# Shared words\n\nSaid once, shown twice.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../shared/words.md", filepath.Join(dir, "content", "pages", "words.md")); err != nil {
		t.Fatal(err)
	}
	page, ok := build(t, config).Bundle.Get("/words/index.html")
	if !ok || !strings.Contains(string(page.Body), "Said once, shown twice.") {
		t.Errorf("the symlinked page is missing or does not show its target's text (found: %v)", ok)
	}
}
