package bundle_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/command/verify"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// errStopped is what the test hook panics with to stop a write.
var errStopped = errors.New("stopped at a file boundary")

// writeUntil writes b into dir and stops it, as a kill would, after n files
// are renamed into place. It reports whether the write was stopped.
func writeUntil(t *testing.T, b *bundle.Bundle, dir string, n int) (stopped bool) {
	t.Helper()
	renamed := 0
	defer bundle.SetTestHook(func(event string) {
		if event == "renamed" {
			if renamed++; renamed == n {
				panic(errStopped)
			}
		}
	})()
	defer func() {
		if r := recover(); r != nil {
			if r != errStopped {
				panic(r)
			}
			stopped = true
		}
	}()
	if _, err := b.WriteDir(dir, bundle.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return false
}

// copyDir copies the regular files and directories of from into to.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The example site, one build before and one after a release that changes
// a tool (a new archived version), adds one, bumps the server's version and
// fills feed archives (two entries a page). The second build keeps its
// immutable files in a spool, as wellknown build does.
func twoBuilds(t *testing.T) (before, after *bundle.Bundle) {
	t.Helper()
	g := gittest.ExampleRepo(t)
	config := filepath.Join(g.Dir, "site.toml")
	site, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	g.Write("site.toml", strings.Replace(string(site), "[feed]\n", "[feed]\npage_size = 2\n", 1))
	g.Commit("two entries a page")
	seed := base64.RawURLEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	build := func(spool bool) *bundle.Bundle {
		res, err := generator.Build(generator.Options{ConfigPath: config, Spool: spool, Getenv: func(name string) string {
			if name == "WELLKNOWN_SIGNING_KEY" {
				return seed
			}
			return ""
		}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Close() })
		return res.Bundle
	}
	before = build(false)

	g.Write("site.toml", strings.Replace(strings.Replace(string(site), "[feed]\n", "[feed]\npage_size = 2\n", 1), `version = "2.1.0"`, `version = "2.2.0"`, 1))
	tool, err := os.ReadFile(filepath.Join(g.Dir, "content/servers/forecast/tools/get_forecast.json"))
	if err != nil {
		t.Fatal(err)
	}
	g.Write("content/servers/forecast/tools/get_forecast.json", strings.Replace(string(tool), `"required": ["city"]`, `"required": ["city"], "additionalProperties": false`, 1))
	g.Write("content/servers/forecast/tools/get_radar.json", `{"name": "get_radar", "description": "Radar image of a place.", "inputSchema": {"type": "object"}}`)
	g.Commit("forecast 2.2.0: radar, and get_forecast refuses unknown arguments")
	after = build(true)
	return before, after
}

// Disagreements between two documents that do not refer to each other:
// the window between their renames, which no order closes.
var window = map[string]bool{"card-feed-disagreement": true, "snapshot-disagreement": true}

// A write stopped at every file boundary leaves a site whose every
// reference resolves: the feed's archives and archived tool versions (by
// their SHA-256), the signing key in did.json, the cards the catalogs list.
// Only two documents that refer to nothing of each other may disagree for
// a moment: a card with the feed, the snapshot with the feed.
func TestWriteStoppedAtEveryFileIsConsistent(t *testing.T) {
	before, after := twoBuilds(t)
	root := t.TempDir()
	old := filepath.Join(root, "old")
	if _, err := before.WriteDir(old, bundle.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	check := func(dir, when string) (errs []string) {
		rep, err := verify.Verify(t.Context(), verify.Options{Target: dir, Base: "https://weather.example.com"})
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		for _, o := range rep.Origins {
			for _, f := range o.Findings {
				if f.Severity == verify.SeverityError {
					errs = append(errs, f.String())
				}
			}
		}
		return errs
	}
	if errs := check(old, "the old site"); len(errs) > 0 {
		t.Fatalf("the old site does not verify:\n%s", strings.Join(errs, "\n"))
	}
	boundaries := 0
	for n := 1; ; n++ {
		dir := filepath.Join(root, fmt.Sprint(n))
		copyDir(t, old, dir)
		stopped := writeUntil(t, after, dir, n)
		for _, e := range check(dir, fmt.Sprintf("stopped after %d files", n)) {
			code := e[strings.LastIndex(e, "(")+1 : len(e)-1]
			if !stopped || !window[code] {
				t.Errorf("stopped after %d files (of the write): %s", n, e)
			}
		}
		if !stopped {
			break
		}
		boundaries++
	}
	if boundaries < 10 {
		t.Errorf("the write had %d file boundaries; the test wants a release that changes more", boundaries)
	}
	if f, ok := after.Get(paths.FeedArchive(3)); !ok {
		t.Error("the release fills no new feed archive")
	} else if f.Body != nil {
		t.Error("the second build kept its feed archives in memory, not in its spool")
	}
}
