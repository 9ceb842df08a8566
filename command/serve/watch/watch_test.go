package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/paths"
)

// deadline bounds every wait for a batch; changes normally arrive within
// the debounce window.
const deadline = 10 * time.Second

// backends runs a test against file-system events and against polling.
func backends(t *testing.T, test func(t *testing.T, opt Options)) {
	t.Run("events", func(t *testing.T) { test(t, Options{Debounce: 20 * time.Millisecond}) })
	t.Run("poll", func(t *testing.T) { test(t, Options{Poll: 20 * time.Millisecond, Debounce: 20 * time.Millisecond}) })
}

// site is a directory laid out like a site: site.toml, content/ with a
// tool file, and no templates/ yet.
type site struct {
	t   *testing.T
	dir string
	n   int // writes so far, to make every write's content (and size) new
}

func newSite(t *testing.T) *site {
	s := &site{t: t, dir: t.TempDir()}
	s.write("site.toml")
	s.write("content/tools/a.json")
	return s
}

func (s *site) path(rel string) string { return filepath.Join(s.dir, filepath.FromSlash(rel)) }

// targets are the site's: site.toml, content/ and the missing templates/.
func (s *site) targets() Targets {
	return Targets{Trees: []string{s.path("content"), s.path("templates")}, Files: []string{s.path("site.toml")}}
}

// write gives a file new content of a new size, creating its directories.
func (s *site) write(rel string) {
	s.t.Helper()
	s.n++
	if err := os.MkdirAll(filepath.Dir(s.path(rel)), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(s.path(rel), []byte(fmt.Sprintf("%*d\n", s.n, s.n)), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// saveByRename saves a file the way many editors do: write a temporary
// file beside it, then rename it over the original.
func (s *site) saveByRename(rel string) {
	s.t.Helper()
	s.write(rel + ".partial")
	if err := os.Rename(s.path(rel+".partial"), s.path(rel)); err != nil {
		s.t.Fatal(err)
	}
}

func start(t *testing.T, targets Targets, opt Options) *Watcher {
	t.Helper()
	w, err := New(targets, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// awaitChange receives batches until one holds path, and fails if a batch
// before it (or it) holds any of unwanted.
func awaitChange(t *testing.T, w *Watcher, path string, unwanted ...string) {
	t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case batch := <-w.Changes():
			for _, u := range unwanted {
				if slices.Contains(batch, u) {
					t.Fatalf("batch %q holds %s, which must not count as a change", batch, u)
				}
			}
			if slices.Contains(batch, path) {
				return
			}
		case err := <-w.Errors():
			t.Fatalf("watch error: %v", err)
		case <-timeout:
			t.Fatalf("no change to %s reported within %v", path, deadline)
		}
	}
}

func TestWatchEdit(t *testing.T) {
	backends(t, func(t *testing.T, opt Options) {
		s := newSite(t)
		w := start(t, s.targets(), opt)
		s.write("content/tools/a.json")
		awaitChange(t, w, s.path("content/tools/a.json"))
		s.write("site.toml")
		awaitChange(t, w, s.path("site.toml"))
	})
}

// An editor's save-by-rename replaces the file (and its inode): the watch
// must survive it, save after save.
func TestWatchSaveByRename(t *testing.T) {
	backends(t, func(t *testing.T, opt Options) {
		s := newSite(t)
		w := start(t, s.targets(), opt)
		for range 3 {
			s.saveByRename("site.toml")
			awaitChange(t, w, s.path("site.toml"))
			s.saveByRename("content/tools/a.json")
			awaitChange(t, w, s.path("content/tools/a.json"))
		}
	})
}

// A new directory is watched by the time its batch is delivered: a file
// written into it afterwards is a change of its own.
func TestWatchNewDirectory(t *testing.T) {
	backends(t, func(t *testing.T, opt Options) {
		s := newSite(t)
		w := start(t, s.targets(), opt)
		s.write("content/tools/new/deeper/b.json")
		awaitChange(t, w, s.path("content/tools/new"))
		s.write("content/tools/new/deeper/b.json")
		awaitChange(t, w, s.path("content/tools/new/deeper/b.json"))
	})
}

// A tree that does not exist yet is seen when it is created.
func TestWatchMissingTree(t *testing.T) {
	backends(t, func(t *testing.T, opt Options) {
		s := newSite(t)
		w := start(t, s.targets(), opt)
		s.write("templates/index.html")
		awaitChange(t, w, s.path("templates"))
		s.write("templates/index.html")
		awaitChange(t, w, s.path("templates/index.html"))
	})
}

// Chmod alone, editors' temporary files and files beside the targets are
// not changes: the next batch, caused by a real edit, holds none of them.
func TestWatchIgnores(t *testing.T) {
	backends(t, func(t *testing.T, opt Options) {
		s := newSite(t)
		s.write("README.md")
		w := start(t, s.targets(), opt)
		if err := os.Chmod(s.path("content/tools/a.json"), 0o600); err != nil {
			t.Fatal(err)
		}
		s.write("content/tools/.a.json.swp")
		s.write("content/tools/a.json~")
		s.write("README.md")
		s.write("site.toml")
		awaitChange(t, w, s.path("site.toml"),
			s.path("content/tools/a.json"), s.path("content/tools/.a.json.swp"), s.path("content/tools/a.json~"), s.path("README.md"))
	})
}

// Build output inside a watched tree (a directory holding the marker, as
// after build --out content/public) is not an input: a build writing there
// is no change, whether the output was there before the watch or not.
func TestWatchIgnoresBuildOutput(t *testing.T) {
	backends(t, func(t *testing.T, opt Options) {
		s := newSite(t)
		s.write("content/public/" + paths.OutputMarker)
		w := start(t, s.targets(), opt)
		s.write("content/public/mcp/server-card.json")
		s.write("content/public/" + paths.OutputMarker)
		s.write("site.toml")
		awaitChange(t, w, s.path("site.toml"),
			s.path("content/public/mcp"), s.path("content/public/mcp/server-card.json"), s.path("content/public/"+paths.OutputMarker))
		s.write("content/public/mcp/server-card.json")
		s.write("content/tools/a.json")
		awaitChange(t, w, s.path("content/tools/a.json"), s.path("content/public/mcp/server-card.json"))
	})
}

// Watch switches to new targets, as when site.toml names another tool
// directory.
func TestWatchRetarget(t *testing.T) {
	backends(t, func(t *testing.T, opt Options) {
		s := newSite(t)
		s.write("elsewhere/tools/c.json")
		w := start(t, s.targets(), opt)
		next := s.targets()
		next.Trees = append(next.Trees, s.path("elsewhere"))
		w.Watch(next)
		s.write("elsewhere/tools/c.json")
		awaitChange(t, w, s.path("elsewhere/tools/c.json"))
	})
}
