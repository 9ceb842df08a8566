package bundle

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckPath(t *testing.T) {
	for _, p := range []string{"/index.html", "/.well-known/did.json", "/mcp/server-card", "/a/b/c.json"} {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range []string{"", "index.html", "/", "/a/", "/a/../b", "/..", "/./a", "/a//b", "/a\\b", "/a\x00b", "/a/.."} {
		if err := CheckPath(p); err == nil {
			t.Errorf("CheckPath(%q) succeeded, should have failed", p)
		}
	}
}

func TestAddRejectsConflicts(t *testing.T) {
	b := New()
	must(t, b.Add("/a/b.json", nil, "application/json"))
	for _, p := range []string{"/a/b.json", "/a", "/a/b.json/c"} {
		if err := b.Add(p, nil, "text/plain"); err == nil {
			t.Errorf("Add(%q) after /a/b.json succeeded, should have failed", p)
		}
	}
	if b.Len() != 1 {
		t.Errorf("Len = %d after rejected adds, want 1", b.Len())
	}
}

func TestFilesSorted(t *testing.T) {
	b := New()
	for _, p := range []string{"/z", "/a/b", "/m"} {
		must(t, b.Add(p, nil, "text/plain"))
	}
	var got []string
	for _, f := range b.Files() {
		got = append(got, f.Path)
	}
	if strings.Join(got, " ") != "/a/b /m /z" {
		t.Errorf("Files() order = %v", got)
	}
	// Files is kept sorted until the next Add; what a caller does to the
	// slice it got is its own.
	b.Files()[0] = nil
	if b.Files()[0] == nil {
		t.Fatal("Files() returns a slice a caller's change reaches")
	}
	got = nil
	for _, p := range []string{"/zz", "/b", "/0"} {
		must(t, b.Add(p, nil, "text/plain"))
	}
	for _, f := range b.Files() {
		got = append(got, f.Path)
	}
	if strings.Join(got, " ") != "/0 /a/b /b /m /z /zz" {
		t.Errorf("Files() after another Add = %v", got)
	}
}

func TestWriteDirReplacesOwnOutput(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "public")
	first := New()
	must(t, first.Add("/old.txt", []byte("old"), "text/plain"))
	write(t, first, out, WriteOptions{Root: root})
	second := New()
	must(t, second.Add("/.well-known/did.json", []byte("{}"), "application/json"))
	write(t, second, out, WriteOptions{Root: root})
	if info, err := os.Stat(out); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("output directory mode = %v, %v; want 0755, readable by a web server", info.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(out, "old.txt")); !os.IsNotExist(err) {
		t.Errorf("old.txt survived the rebuild: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(out, ".well-known", "did.json")); err != nil || string(data) != "{}" {
		t.Errorf("did.json = %q, %v", data, err)
	}
	assertNoTemporaries(t, root)
}

// A write that fails half-way leaves the previous output exactly as it was
// and no temporary directory behind.
func TestWriteDirFailureLeavesOutputUntouched(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "public")
	good := New()
	must(t, good.Add("/index.html", []byte("v1"), "text/html"))
	write(t, good, out, WriteOptions{Root: root})
	before := snapshot(t, out)

	bad := New()
	must(t, bad.Add("/index.html", []byte("v2"), "text/html"))
	must(t, bad.Add("/"+strings.Repeat("x", 300), []byte("too long a name for any file system"), "text/plain"))
	if _, err := bad.WriteDir(out, WriteOptions{Root: root}); err == nil {
		t.Fatal("WriteDir with an unwritable file succeeded")
	}
	if after := snapshot(t, out); after != before {
		t.Errorf("output changed by a failed write:\nbefore %s\nafter  %s", before, after)
	}
	assertNoTemporaries(t, root)
}

func TestWriteDirRefusals(t *testing.T) {
	root := t.TempDir()
	foreign := filepath.Join(root, "docs")
	must(t, os.MkdirAll(foreign, 0o755))
	must(t, os.WriteFile(filepath.Join(foreign, "keep.md"), []byte("mine"), 0o644))
	home, _ := os.UserHomeDir()
	for _, tc := range []struct {
		name, dir string
		opt       WriteOptions
		want      string
	}{
		{"file-system root", "/", WriteOptions{}, "file-system root"},
		{"home", home, WriteOptions{}, "home directory"},
		{"site root", root, WriteOptions{Root: root}, "site's root"},
		{"parent of the site", filepath.Dir(root), WriteOptions{Root: root}, "site's root"},
		{"outside the site", filepath.Join(t.TempDir(), "out"), WriteOptions{Root: root}, "outside"},
		{"directory not ours", foreign, WriteOptions{Root: root}, "not created by wellknown"},
	} {
		b := New()
		must(t, b.Add("/index.html", nil, "text/html"))
		_, err := b.WriteDir(tc.dir, tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: WriteDir(%s) = %v, want an error containing %q", tc.name, tc.dir, err, tc.want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(foreign, "keep.md")); string(data) != "mine" {
		t.Error("a refused write touched a foreign directory")
	}
	outside := filepath.Join(t.TempDir(), "out")
	b := New()
	must(t, b.Add("/index.html", nil, "text/html"))
	write(t, b, outside, WriteOptions{Root: root, Force: true})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, b *Bundle, dir string, opt WriteOptions) WriteStats {
	t.Helper()
	stats, err := b.WriteDir(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	return stats
}

// snapshot lists every entry under dir, relative to it, with its mode and
// a file's content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %v", rel, info.Mode())
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// assertNoTemporaries fails when anything under root looks like a
// temporary file or directory of a write.
func assertNoTemporaries(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && (strings.HasPrefix(d.Name(), tempPrefix) || strings.Contains(d.Name(), ".new-")) {
			t.Errorf("temporary %s left behind", p)
		}
		return nil
	})
}

func TestIsDocument(t *testing.T) {
	for ctype, want := range map[string]bool{
		"application/json": true, "application/mcp-server-card+json": true, "application/atom+xml; charset=utf-8": true,
		"application/did+json": true, "application/xslt+xml": false, "image/svg+xml": false, "text/html; charset=utf-8": false, "text/css; charset=utf-8": false,
	} {
		if got := (&File{ContentType: ctype}).IsDocument(); got != want {
			t.Errorf("IsDocument(%s) = %v, want %v", ctype, got, want)
		}
	}
}

func TestKinds(t *testing.T) {
	b := New()
	for p, ctype := range map[string]string{"/a.json": "application/json", "/feed.xml": "application/atom+xml; charset=utf-8",
		"/index.html": "text/html; charset=utf-8", "/x/index.html": "text/html; charset=utf-8", "/style.css": "text/css; charset=utf-8"} {
		if err := b.Add(p, []byte("x"), ctype); err != nil {
			t.Fatal(err)
		}
	}
	if documents, pages := b.Kinds(); documents != 2 || pages != 2 {
		t.Errorf("Kinds() = %d documents, %d pages; want 2, 2", documents, pages)
	}
}

// An added file has no headers of its own until package deploy sets them:
// a long history adds many files, which would each hold an empty map.
func TestAddedFileHasNoHeaderYet(t *testing.T) {
	b := New()
	must(t, b.Add("/.well-known/mcp/schemas/a/t/1.0.0.json", []byte("{}"), "application/json"))
	if f, _ := b.Get("/.well-known/mcp/schemas/a/t/1.0.0.json"); f.Header != nil {
		t.Errorf("Header = %v, want nil", f.Header)
	}
}

// Replaced makes a new bundle, whose replaced files keep their content
// type and headers, and leaves the first as it was.
func TestReplaced(t *testing.T) {
	b := New()
	must(t, b.Add("/a/index.html", []byte("old"), "text/html"))
	must(t, b.Add("/b.json", []byte("{}"), "application/json"))
	for _, f := range b.Files() {
		f.Header = http.Header{"X-Path": {f.Path}}
	}
	r, err := b.Replaced(map[string][]byte{"/a/index.html": []byte("new")})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := r.Get("/a/index.html")
	if string(got.Body) != "new" || got.ContentType != "text/html" || got.Header.Get("X-Path") != "/a/index.html" {
		t.Errorf("replaced file = %q, %s, %v", got.Body, got.ContentType, got.Header)
	}
	if old, _ := b.Get("/a/index.html"); string(old.Body) != "old" {
		t.Errorf("the first bundle's file became %q", old.Body)
	}
	if files := r.Files(); len(files) != 2 || files[0] != got || files[1].Path != "/b.json" {
		t.Errorf("Files = %v", files)
	}
	if err := r.Add("/a", nil, "text/plain"); err == nil {
		t.Error("a file where the replaced bundle has a directory was added")
	}
	if _, err := b.Replaced(map[string][]byte{"/c.html": nil}); err == nil {
		t.Error("a file the bundle does not have was replaced")
	}
}
