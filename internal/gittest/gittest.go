// Package gittest gives tests real git repositories, with fixed identities
// and commit dates and without the user's git configuration, so that what
// is built from them is the same on every run; and copies of this
// repository's example site.
package gittest

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// FirstCommit is the date of a new repository's first commit.
var FirstCommit = time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)

// Repo is a git repository of a test.
type Repo struct {
	t    testing.TB
	Dir  string
	When time.Time // the date of the last commit; Commit moves it an hour on
}

// New creates a repository with a main branch in dir, creating dir.
func New(t testing.TB, dir string) *Repo {
	t.Helper()
	return newRepo(t, dir, "sha1")
}

// NewSHA256 creates a repository as New does, whose objects are named
// by their SHA-256: 64 hex digits where git's default names take 40.
func NewSHA256(t testing.TB, dir string) *Repo {
	t.Helper()
	return newRepo(t, dir, "sha256")
}

func newRepo(t testing.TB, dir, format string) *Repo {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Repo{t: t, Dir: dir, When: FirstCommit.Add(-time.Hour)}
	r.Git("init", "-q", "-b", "main", "--object-format="+format)
	return r
}

// Git runs a git command in the repository, dated When, and returns its output.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	out, err := Run(r.Dir, r.When, args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// Write writes a file of the work tree.
func (r *Repo) Write(path, content string) {
	r.t.Helper()
	if err := writeFile(filepath.Join(r.Dir, filepath.FromSlash(path)), []byte(content)); err != nil {
		r.t.Fatal(err)
	}
}

// Commit commits everything, an hour after the previous commit.
func (r *Repo) Commit(message string) {
	r.t.Helper()
	r.When = r.When.Add(time.Hour)
	r.Git("add", "-A")
	r.Git("commit", "-q", "--no-gpg-sign", "-m", message)
}

// CommitEach commits the files of each map given (content by path), a
// commit each, an hour apart as Commit would, and checks the last out:
// through one git fast-import, so that a long history takes the time of
// a few commits.
func (r *Repo) CommitEach(message string, commits []map[string]string) {
	r.t.Helper()
	var stream strings.Builder
	parent := ""
	if out, err := Run(r.Dir, r.When, "rev-parse", "--verify", "-q", "HEAD"); err == nil {
		parent = strings.TrimSpace(out)
	}
	for i, files := range commits {
		r.When = r.When.Add(time.Hour)
		msg := fmt.Sprintf("%s %d", message, i)
		fmt.Fprintf(&stream, "commit refs/heads/main\nauthor Test <test@example.com> %[1]d +0000\ncommitter Test <test@example.com> %[1]d +0000\ndata %[2]d\n%[3]s\n",
			r.When.Unix(), len(msg), msg)
		if i == 0 && parent != "" {
			fmt.Fprintf(&stream, "from %s\n", parent)
		}
		for _, path := range slices.Sorted(maps.Keys(files)) {
			fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n%s\n", path, len(files[path]), files[path])
		}
	}
	if _, err := run(r.Dir, r.When, strings.NewReader(stream.String()), "fast-import", "--quiet"); err != nil {
		r.t.Fatal(err)
	}
	r.Git("reset", "-q", "--hard", "main")
}

// Run runs git in dir as Repo.Git does, for callers without a testing.TB.
func Run(dir string, when time.Time, args ...string) (string, error) {
	return run(dir, when, nil, args...)
}

// run runs git as Run does, with stdin as its input (none for nil).
func run(dir string, when time.Time, stdin io.Reader, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stdin = dir, stdin
	date := when.UTC().Format(time.RFC3339)
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_COMMITTER_DATE="+date,
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// ExampleSite commits a copy of the example site to a new repository in a
// temporary directory and returns the path of its site.toml.
func ExampleSite(t testing.TB) string {
	t.Helper()
	return filepath.Join(ExampleRepo(t).Dir, "site.toml")
}

// ExampleRepo is ExampleSite, returning the repository.
func ExampleRepo(t testing.TB) *Repo {
	t.Helper()
	r := New(t, t.TempDir())
	if err := CopyExampleSite(r.Dir, false); err != nil {
		t.Fatal(err)
	}
	r.Commit("the example site")
	return r
}

// CopyExampleSite copies the example site of this repository
// (site.example.toml, as site.toml, and content/) into dir; in reverse
// order when reversed, so that two copies differ in file-system order.
func CopyExampleSite(dir string, reversed bool) error {
	root, err := ModuleRoot()
	if err != nil {
		return err
	}
	files := []string{"site.example.toml"}
	err = filepath.WalkDir(filepath.Join(root, "content"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		return err
	}
	if reversed {
		slices.Reverse(files)
	}
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			return err
		}
		if rel == "site.example.toml" {
			rel = "site.toml"
		}
		if err := writeFile(filepath.Join(dir, rel), data); err != nil {
			return err
		}
	}
	return nil
}

// ModuleRoot returns the directory of this repository's go.mod, found
// upward from the working directory (a test runs in its package's).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
