//go:build unix

package bundle

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/paths"
)

// sampleSite is a site of n files in nested directories; version v changes
// a third of the files, drops some and adds others, so that writing one
// version over another writes, removes and keeps files.
func sampleSite(t testing.TB, v, n int) *Bundle {
	t.Helper()
	b := New()
	for i := range n {
		if (i+v)%7 == 0 {
			continue
		}
		body := fmt.Sprintf("file %d\n", i)
		if i%3 == 0 {
			body = fmt.Sprintf("file %d of version %d\n", i, v)
		}
		p := fmt.Sprintf("/d%d/e%d/f%d.json", i%10, i%4, i)
		if i%11 == 0 {
			p = fmt.Sprintf("/v%d/f%d.json", v, i)
		}
		if err := b.Add(p, []byte(body), "application/json"); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// cleanWrite is the tree a write of b into an empty directory produces.
func cleanWrite(t *testing.T, b *Bundle) string {
	t.Helper()
	root := t.TempDir()
	out := filepath.Join(root, "public")
	write(t, b, out, WriteOptions{Root: root})
	return snapshot(t, out)
}

func TestWriteDirWritesOnlyWhatChanged(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "public")
	v1 := sampleSite(t, 1, 60)
	if got := write(t, v1, out, WriteOptions{Root: root}); got != (WriteStats{Written: v1.Len()}) {
		t.Errorf("first write: %+v, want every file written", got)
	}
	before := fileIdentities(t, out)
	if got := write(t, v1, out, WriteOptions{Root: root}); got != (WriteStats{Unchanged: v1.Len()}) {
		t.Errorf("second write of the same site: %+v, want every file unchanged", got)
	}
	if after := fileIdentities(t, out); after != before {
		t.Errorf("a write of the same site touched files:\nbefore %s\nafter  %s", before, after)
	}

	v2 := sampleSite(t, 2, 60)
	got := write(t, v2, out, WriteOptions{Root: root})
	if got.Written == 0 || got.Removed == 0 || got.Unchanged == 0 || got.Written+got.Unchanged != v2.Len() {
		t.Errorf("write of a changed site: %+v; want some written, some removed, some unchanged, %d in all", got, v2.Len())
	}
	if snapshot(t, out) != cleanWrite(t, v2) {
		t.Error("the tree after an update differs from a clean write")
	}
	for _, f := range v2.Files() {
		old, inV1 := v1.Get(f.Path)
		if inV1 && string(old.Body) == string(f.Body) {
			if b, a := identity(t, filepath.Join(out, f.Path)), before[strings.Index(before, f.Path):]; !strings.HasPrefix(a, f.Path+" "+b) {
				t.Errorf("%s was rewritten though its bytes did not change", f.Path)
			}
		}
	}
	assertNoTemporaries(t, root)
}

// fileIdentities lists every file under dir with its inode and mtime,
// which a write that leaves it alone keeps.
func fileIdentities(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != paths.OutputMarker {
			rel, _ := filepath.Rel(dir, p)
			fmt.Fprintf(&b, "/%s %s\n", filepath.ToSlash(rel), identity(t, p))
		}
		return err
	})
	return b.String()
}

func identity(t *testing.T, p string) string {
	t.Helper()
	info, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d %d", info.Sys().(*syscall.Stat_t).Ino, info.ModTime().UnixNano())
}

// Whatever sits in an old output, a write replaces it and never writes or
// deletes through a symlink.
func TestWriteDirNeverFollowsSymlinksInside(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "public")
	victim := t.TempDir()
	must(t, os.WriteFile(filepath.Join(victim, "keep.txt"), []byte("mine"), 0o644))
	first := New()
	must(t, first.Add("/placeholder", []byte("x"), "text/plain"))
	write(t, first, out, WriteOptions{Root: root})
	must(t, os.Symlink(victim, filepath.Join(out, "mcp")))
	must(t, os.Symlink(filepath.Join(victim, "keep.txt"), filepath.Join(out, "index.html")))
	must(t, os.Symlink(victim, filepath.Join(out, "gone")))
	must(t, os.MkdirAll(filepath.Join(out, "was-a-dir.json", "sub"), 0o755))

	b := New()
	must(t, b.Add("/mcp/keep.txt", []byte("site"), "text/plain"))
	must(t, b.Add("/index.html", []byte("home"), "text/html"))
	must(t, b.Add("/was-a-dir.json", []byte("{}"), "application/json"))
	write(t, b, out, WriteOptions{Root: root})
	if data, _ := os.ReadFile(filepath.Join(victim, "keep.txt")); string(data) != "mine" {
		t.Errorf("a file outside the output was overwritten through a symlink: %q", data)
	}
	if snapshot(t, out) != cleanWrite(t, b) {
		t.Errorf("the output is not a clean write:\n%s", snapshot(t, out))
	}
}

// An output path under a symlink is judged where it really is.
func TestWriteDirResolvesSymlinkedParent(t *testing.T) {
	root := t.TempDir()
	elsewhere := t.TempDir()
	must(t, os.Symlink(elsewhere, filepath.Join(root, "sub")))
	b := New()
	must(t, b.Add("/index.html", nil, "text/html"))
	_, err := b.WriteDir(filepath.Join(root, "sub", "public"), WriteOptions{Root: root})
	if err == nil || !strings.Contains(err.Error(), "outside the site's repository") || !strings.Contains(err.Error(), elsewhere) {
		t.Errorf("WriteDir through a symlink to %s = %v, want a refusal naming it", elsewhere, err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("a refused write created %v outside the site", entries)
	}
	write(t, b, filepath.Join(root, "sub", "public"), WriteOptions{Root: root, Force: true})

	// A symlink to a directory inside the site is fine.
	must(t, os.Mkdir(filepath.Join(root, "build"), 0o755))
	must(t, os.Symlink("build", filepath.Join(root, "alias")))
	write(t, b, filepath.Join(root, "alias", "public"), WriteOptions{Root: root})
	if _, err := os.Stat(filepath.Join(root, "build", "public", "index.html")); err != nil {
		t.Error(err)
	}
}

func TestWriteDirWaitsForTheLock(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "public")
	b := sampleSite(t, 1, 5)
	write(t, b, out, WriteOptions{Root: root})
	holder, err := lockMarker(out, filepath.Join(out, paths.OutputMarker), time.Second)
	must(t, err)
	before := snapshot(t, out)
	_, err = sampleSite(t, 2, 5).WriteDir(out, WriteOptions{Root: root, LockWait: time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "another build is writing to "+out) {
		t.Errorf("WriteDir while another holds the lock = %v, want the clear error", err)
	}
	if snapshot(t, out) != before {
		t.Error("a write that could not take the lock changed the output")
	}
	holder.Close()
	write(t, b, out, WriteOptions{Root: root, LockWait: time.Millisecond})
}

// The helper process: when the environment says so, this test writes a
// sample site into a directory, and kills itself with SIGKILL at the given
// step of the write. Other tests run it as a separate process.
func TestWriterProcess(t *testing.T) {
	dir := os.Getenv("BUNDLE_TEST_WRITE_DIR")
	if dir == "" {
		t.Skip("only run as a helper process")
	}
	v, _ := strconv.Atoi(os.Getenv("BUNDLE_TEST_WRITE_VERSION"))
	if killAt, _ := strconv.Atoi(os.Getenv("BUNDLE_TEST_KILL_AT")); killAt > 0 {
		var steps atomic.Int64
		testHook = func(string) {
			if steps.Add(1) == int64(killAt) {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {}
			}
		}
	}
	if _, err := sampleSite(t, v, helperFiles).WriteDir(dir, WriteOptions{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

const helperFiles = 300

func writerProcess(dir string, version, killAt int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "BUNDLE_TEST_WRITE_DIR="+dir,
		"BUNDLE_TEST_WRITE_VERSION="+strconv.Itoa(version), "BUNDLE_TEST_KILL_AT="+strconv.Itoa(killAt))
	return cmd
}

// A write killed at any point is completed by the next: the tree equals a
// clean write, and no temporary file is left.
func TestWriteDirKilledMidwayIsCompletedByTheNext(t *testing.T) {
	v1, v2 := sampleSite(t, 1, helperFiles), sampleSite(t, 2, helperFiles)
	want := cleanWrite(t, v2)
	root := t.TempDir()
	probe := filepath.Join(root, "probe")
	write(t, v1, probe, WriteOptions{})
	changed := write(t, v2, probe, WriteOptions{}).Written
	// Steps 1…changed stage files; the rest rename them into place.
	for _, killAt := range []int{1, changed / 2, changed, changed + 1, changed + changed/2, 2 * changed} {
		t.Run(fmt.Sprintf("killed at step %d of %d", killAt, 2*changed), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "public")
			write(t, v1, out, WriteOptions{})
			err := writerProcess(out, 2, killAt).Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the writer was not killed: %v", err)
			}
			if killAt < changed && !hasTemporaries(out) {
				t.Error("a writer killed while staging left no temporary file: the test does not test cleaning")
			}
			write(t, v2, out, WriteOptions{})
			if snapshot(t, out) != want {
				t.Error("the write after a killed one differs from a clean write")
			}
			assertNoTemporaries(t, filepath.Dir(out))
		})
	}
}

func hasTemporaries(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		found = found || err == nil && strings.HasPrefix(d.Name(), tempPrefix)
		return nil
	})
	return found
}

// Builds into one directory from two processes take turns: both succeed and
// the tree is a clean write.
func TestWriteDirConcurrentProcesses(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	write(t, sampleSite(t, 1, helperFiles), out, WriteOptions{})
	for round, version := range []int{2, 3, 1} {
		var cmds []*exec.Cmd
		var outputs []*strings.Builder
		for range 2 {
			cmd := writerProcess(out, version, 0)
			var combined strings.Builder
			cmd.Stdout, cmd.Stderr = &combined, &combined
			must(t, cmd.Start())
			cmds, outputs = append(cmds, cmd), append(outputs, &combined)
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Errorf("round %d: writer %d failed: %v\n%s", round, i, err, outputs[i])
			}
		}
		if snapshot(t, out) != cleanWrite(t, sampleSite(t, version, helperFiles)) {
			t.Errorf("round %d: the tree after two concurrent writes differs from a clean write", round)
		}
		assertNoTemporaries(t, filepath.Dir(out))
	}
}

// The order of renames: immutable files, pages, documents before the
// documents that list them, the feed, the snapshot.
func TestWriteRank(t *testing.T) {
	files := []struct{ path, ctype string }{
		{"/.well-known/agent-card.json", "application/json"},
		{"/.well-known/agent-feed.xml", "application/atom+xml; charset=utf-8"},
		{"/.well-known/agent-feed/archive-1.xml", "application/atom+xml; charset=utf-8"},
		{"/.well-known/ai-catalog.json", "application/ai-catalog+json"},
		{"/.well-known/did.json", "application/did+json"},
		{"/.well-known/mcp/schemas/a/t/1.0.0.json", "application/json"},
		{"/_headers", "text/plain; charset=utf-8"},
		{"/index.html", "text/html; charset=utf-8"},
		{"/mcp/a/server-card.json", "application/mcp-server-card+json"},
	}
	order := func(b *Bundle) string {
		fs := b.Files()
		slices.SortStableFunc(fs, func(x, y *File) int { return cmp.Compare(b.writeRank(x), b.writeRank(y)) })
		var ps []string
		for _, f := range fs {
			ps = append(ps, f.Path)
		}
		return strings.Join(ps, "\n")
	}
	b := New()
	for _, f := range files {
		b.Add(f.path, []byte("x"), f.ctype)
	}
	want := "/.well-known/agent-feed/archive-1.xml\n/.well-known/mcp/schemas/a/t/1.0.0.json\n/_headers\n/index.html\n" +
		"/.well-known/did.json\n/mcp/a/server-card.json\n/.well-known/ai-catalog.json\n/.well-known/agent-feed.xml\n/.well-known/agent-card.json"
	if got := order(b); got != want {
		t.Errorf("order:\n%s\nwant:\n%s", got, want)
	}
	// With an A2A card at /.well-known/agent-card.json, the snapshot moves.
	b.Add("/.well-known/agent-feed-snapshot.json", []byte("x"), "application/json")
	want = "/.well-known/agent-feed/archive-1.xml\n/.well-known/mcp/schemas/a/t/1.0.0.json\n/_headers\n/index.html\n" +
		"/.well-known/agent-card.json\n/.well-known/did.json\n/mcp/a/server-card.json\n/.well-known/ai-catalog.json\n/.well-known/agent-feed.xml\n/.well-known/agent-feed-snapshot.json"
	if got := order(b); got != want {
		t.Errorf("order with an A2A card:\n%s\nwant:\n%s", got, want)
	}
}
