package scaffold

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/generator/diag"
)

func TestFilesOfEachHost(t *testing.T) {
	common := []string{".github/workflows/check.yml", ".gitignore", "DEPLOY.md", "content/index.md", "content/servers/hello/tools/greet.json", "site.toml"}
	for _, tc := range []struct {
		host  string
		extra []string
	}{
		{"github-pages", []string{".github/workflows/pages.yml"}},
		{"netlify", []string{"netlify.toml"}},
		{"cloudflare-pages", nil},
	} {
		t.Run(tc.host, func(t *testing.T) {
			files, err := Files(Options{Host: tc.host, BaseURL: "https://Mcp.Example.org", Version: "v1.2.3"})
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, f := range files {
				paths = append(paths, f.Path)
				if bytes.ContainsAny(f.Data, "«»") {
					t.Errorf("%s keeps a template delimiter", f.Path)
				}
				if bytes.Contains(f.Data, []byte("example.com")) {
					t.Errorf("%s names example.com, not the site's origin", f.Path)
				}
			}
			want := slices.Sorted(slices.Values(append(slices.Clone(common), tc.extra...)))
			if !slices.Equal(paths, want) {
				t.Errorf("files = %v, want %v", paths, want)
			}
			site := string(file(t, files, "site.toml"))
			for _, s := range []string{`base_url = "https://mcp.example.org/"`, `name = "org.example.mcp/hello"`, `targets = ["` + tc.host + `"]`} {
				if !strings.Contains(site, s) {
					t.Errorf("site.toml lacks %s", s)
				}
			}
			if check := string(file(t, files, ".github/workflows/check.yml")); !strings.Contains(check, "go install "+Module+"@v1.2.3") {
				t.Errorf("check.yml does not install the pinned version:\n%s", check)
			}
		})
	}
}

func TestFilesRefusesBadOptions(t *testing.T) {
	for _, opt := range []Options{
		{Host: "vercel", BaseURL: "https://example.com/"},
		{Host: "netlify", BaseURL: "http://example.com/"},
		{Host: "netlify", BaseURL: "https://example.com/sub/"},
		{Host: "netlify", BaseURL: "https://user@example.com/"},
		{Host: "netlify", BaseURL: "example.com"},
		{Host: "netlify", BaseURL: "https://a$(id)b.com/"}, // ends up in a shell command
	} {
		if _, err := Files(opt); err == nil {
			t.Errorf("Files(%+v) succeeded", opt)
		}
	}
}

func TestWriteNeverOverwritesUnlessForced(t *testing.T) {
	dir := t.TempDir()
	files := []File{{Path: "a/new.txt", Data: []byte("new")}, {Path: "old.txt", Data: []byte("new")}}
	if err := os.WriteFile(filepath.Join(dir, "old.txt"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(dir, files, false)
	if errs := diag.List(err); len(errs) != 1 || !strings.Contains(errs[0].Error(), "old.txt: already exists") {
		t.Fatalf("Write = %v, want one error about old.txt", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !os.IsNotExist(err) {
		t.Error("a refused Write created files")
	}
	if err := Write(dir, files, true); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil || string(data) != "new" {
			t.Errorf("%s = %q, %v after a forced Write", f.Path, data, err)
		}
	}
}

// A symlink where a file or one of its directories goes is refused, even
// with force, and nothing is written anywhere.
func TestWriteNeverWritesThroughSymlinks(t *testing.T) {
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	for _, tc := range []struct{ name, link, target string }{
		{"file", "old.txt", victim},
		{"dangling file", "old.txt", filepath.Join(outside, "missing.txt")},
		{"directory", "a", outside},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(victim, []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := os.Symlink(tc.target, filepath.Join(dir, tc.link)); err != nil {
				t.Fatal(err)
			}
			files := []File{{Path: "a/new.txt", Data: []byte("new")}, {Path: "old.txt", Data: []byte("new")}, {Path: "z.txt", Data: []byte("new")}}
			err := Write(dir, files, true)
			want := filepath.Join(dir, tc.link) + ": is a symbolic link; wellknown init never writes through one"
			if errs := diag.List(err); len(errs) != 1 || errs[0].Error() != want {
				t.Fatalf("Write = %v, want one error: %s", err, want)
			}
			if data, _ := os.ReadFile(victim); string(data) != "mine" {
				t.Errorf("the file behind the link was overwritten: %q", data)
			}
			for _, p := range []string{"z.txt", filepath.Join(outside, "new.txt"), filepath.Join(outside, "missing.txt")} {
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				if _, err := os.Stat(p); !os.IsNotExist(err) {
					t.Errorf("a refused Write created %s", p)
				}
			}
		})
	}
}

func file(t *testing.T, files []File, path string) []byte {
	t.Helper()
	for _, f := range files {
		if f.Path == path {
			return f.Data
		}
	}
	t.Fatalf("no %s", path)
	return nil
}
