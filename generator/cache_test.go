package generator

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The paths told to a watched Cache add up until the next build: a
// Markdown save told after a change to site.toml does not make the build
// the last one with a page rendered again, which would keep the old title.
func TestChangedAddsUp(t *testing.T) {
	config := exampleSite(t)
	dir := filepath.Dir(config)
	cache := NewCache()
	cache.Watched()
	opt := Options{ConfigPath: config, Getenv: testEnv, Cache: cache}
	if _, err := Build(opt); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "content", "pages", "connecting.md")
	appendTo(t, page, "\nA first edit.\n")
	cache.Changed([]string{page})
	if res, err := Build(opt); err != nil || !res.Reuse.Build {
		t.Fatalf("a Markdown save alone: %v, reuse %+v; want the last build kept", err, res.Reuse)
	}
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(strings.Replace(string(data), "title = \"", "title = \"New: ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cache.Changed([]string{config})
	appendTo(t, page, "\nA second edit.\n")
	cache.Changed([]string{page})
	res, err := Build(opt)
	if err != nil || res.Reuse.Build || !strings.HasPrefix(res.Config.Title, "New: ") {
		t.Errorf("site.toml then a Markdown save: %v, reuse %+v, title %q; want a full build with the new title", err, res.Reuse, res.Config.Title)
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(text)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
}
