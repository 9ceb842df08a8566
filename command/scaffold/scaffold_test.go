package scaffold

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/diag"
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
			if check := string(file(t, files, ".github/workflows/check.yml")); !strings.Contains(check, "uses: wellknown-dev/wellknown@v1.2.3\n        with:\n          version: v1.2.3\n          command: check\n") {
				t.Errorf("check.yml does not run the pinned Action:\n%s", check)
			}
			// A release needs no compiler: every recipe installs the release archive.
			for _, f := range files {
				for _, s := range []string{"go install", "go run", "setup-go", "@latest", "version: latest", "@main"} {
					if bytes.Contains(f.Data, []byte(s)) {
						t.Errorf("%s of a pinned site has %q", f.Path, s)
					}
				}
			}
		})
	}
}

// Hosts other than GitHub install the pinned release the way the Action
// does: its install script at the same tag, which checks the archive, with
// pipefail so that a failed download fails the build.
func TestPinnedInstallOutsideGitHub(t *testing.T) {
	run := "set -o pipefail && curl -fsSL https://raw.githubusercontent.com/wellknown-dev/wellknown/v1.2.3/action/install.sh" +
		" | WELLKNOWN_VERSION=v1.2.3 WELLKNOWN_INSTALL_DIR=$HOME/.wellknown-bin bash && $HOME/.wellknown-bin/wellknown build --strict --previous-live"
	for host, path := range map[string]string{"netlify": "netlify.toml", "cloudflare-pages": "DEPLOY.md"} {
		files, err := Files(Options{Host: host, BaseURL: "https://mcp.example.org/", Version: "v1.2.3"})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(file(t, files, path)); !strings.Contains(got, run) {
			t.Errorf("%s of %s does not install and run v1.2.3 with %q:\n%s", path, host, run, got)
		}
	}
}

// A development build writes latest, says to pin it, and still compiles
// wellknown at most once per workflow run: the Action's go install, cached
// for the run's other jobs, or one go run.
func TestUnpinnedRecipesSayToPin(t *testing.T) {
	for _, host := range Hosts {
		files, err := Files(Options{Host: host, BaseURL: "https://mcp.example.org/", Version: "latest", SyncURL: "https://mcp.example.org/mcp"})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			recipe := strings.HasSuffix(f.Path, ".yml") || f.Path == "netlify.toml" || (f.Path == "DEPLOY.md" && host == "cloudflare-pages")
			if !recipe {
				continue
			}
			if !strings.Contains(string(f.Data), "pin a release") {
				t.Errorf("%s (%s) does not say to pin a release", f.Path, host)
			}
			if n := strings.Count(string(f.Data), "go install") + strings.Count(string(f.Data), "go run "+Module+"@latest build"); n > 1 {
				t.Errorf("%s (%s) compiles wellknown %d times", f.Path, host, n)
			}
		}
	}
}

// Only the job that deploys may write to Pages and ask for an OIDC token.
func TestPagesWorkflowPermissions(t *testing.T) {
	files, err := Files(Options{Host: "github-pages", BaseURL: "https://mcp.example.org/", Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	pages := string(file(t, files, ".github/workflows/pages.yml"))
	jobs := strings.Split(pages, "\n  deploy:\n")
	if len(jobs) != 2 || !strings.Contains(pages, "\npermissions:\n  contents: read\n\n") {
		t.Fatalf("pages.yml has no deploy job, or other top-level permissions:\n%s", pages)
	}
	deploy, _, _ := strings.Cut(jobs[1], "\n  verify:\n")
	for _, grant := range []string{"pages: write", "id-token: write"} {
		if strings.Count(pages, grant) != 1 || !strings.Contains(deploy, "\n    permissions:\n      pages: write\n      id-token: write\n") {
			t.Errorf("pages.yml grants %s outside the deploy job:\n%s", grant, pages)
		}
	}
}

// init --sync-url adds the drift watch: a daily sync --check through the
// Action, and a pull request with the synced files when the tools differ.
func TestDriftWatch(t *testing.T) {
	opt := Options{Host: "netlify", BaseURL: "https://mcp.example.org/", Version: "v1.2.3"}
	files, err := Files(opt)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(files, func(f File) bool { return strings.Contains(f.Path, "drift") }) {
		t.Error("a site without a sync URL has a drift workflow")
	}
	opt.SyncURL = "https://mcp.example.org/mcp?team=a&v=2"
	if files, err = Files(opt); err != nil {
		t.Fatal(err)
	}
	drift := string(file(t, files, ".github/workflows/drift.yml"))
	for _, want := range []string{
		"  schedule:\n    - cron: ",
		"permissions:\n  contents: write\n  pull-requests: write\n",
		"uses: wellknown-dev/wellknown@v1.2.3\n        with:\n          version: v1.2.3\n          command: sync\n          args: |\n            --check\n            --url\n            https://mcp.example.org/mcp?team=a&v=2\n",
		// Exit status 3 (the tools differ) opens the pull request; any
		// other failure fails the job.
		"if: steps.check.outcome == 'failure' && steps.check.outputs.exit-code != '3'\n",
		"if: steps.check.outputs.exit-code == '3'\n        env:\n          GH_TOKEN: ${{ github.token }}\n",
		"wellknown sync --url 'https://mcp.example.org/mcp?team=a&v=2'\n",
		"git push --force origin \"$branch\"",
		"gh pr create --head \"$branch\"",
		"GH_TOKEN: ${{ github.token }}",
	} {
		if !strings.Contains(drift, want) {
			t.Errorf("drift.yml lacks %q:\n%s", want, drift)
		}
	}
	for _, bad := range []string{"ftp://mcp.example.org/", "https://mcp.example.org/'$(id)'", "https://a b/", "mcp.example.org/mcp"} {
		opt.SyncURL = bad
		if _, err := Files(opt); err == nil || !strings.Contains(err.Error(), "is not an http(s) URL") {
			t.Errorf("sync URL %q: %v", bad, err)
		}
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
	_, err := Write(dir, files, false)
	if errs := diag.List(err); len(errs) != 1 || !strings.Contains(errs[0].Error(), "old.txt: already exists") {
		t.Fatalf("Write = %v, want one error about old.txt", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !os.IsNotExist(err) {
		t.Error("a refused Write created files")
	}
	if _, err := Write(dir, files, true); err != nil {
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
			_, err := Write(dir, files, true)
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

// An existing .gitignore is kept, even with force: the lines it lacks are
// appended, once.
func TestWriteExtendsGitignore(t *testing.T) {
	dir := t.TempDir()
	mine := "bin/\n*.log\n# secrets\n*.key"
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []File{{Path: ".gitignore", Data: []byte("# ours\npublic/\n.wellknown/\n*.key\n")}}
	for _, force := range []bool{false, true} {
		added, err := Write(dir, files, force)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"public/", ".wellknown/"}; !force && !slices.Equal(added, want) {
			t.Errorf("added %q, want %q", added, want)
		}
		if force && added != nil {
			t.Errorf("a second Write added %q again", added)
		}
	}
	got, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	want := mine + "\n\n# Added by wellknown init: the build output, the development key and\n# every signing key stay out of git.\npublic/\n.wellknown/\n"
	if string(got) != want {
		t.Errorf(".gitignore:\n%s\nwant:\n%s", got, want)
	}
}

// The tools glob covers the files found, as narrowly as one pattern can.
func TestToolsGlob(t *testing.T) {
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{nil, ""},
		{[]string{"tools/a.json", "tools/b.json"}, "tools/*.json"},
		{[]string{"pkg/x/snaps/a.json", "pkg/y/snaps/b.json"}, "pkg/**/*.json"},
		{[]string{"pkg/a.json", "pkg/sub/b.json"}, "pkg/**/*.json"},
		{[]string{"a.json", "tools/b.json"}, "**/*.json"},
		{[]string{"a.json"}, "*.json"},
	} {
		if got := ToolsGlob(tc.files); got != tc.want {
			t.Errorf("ToolsGlob(%q) = %q, want %q", tc.files, got, tc.want)
		}
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
