package generator

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitRepo is a real git repository for a test, whose commits get fixed,
// increasing dates so that builds from it are reproducible.
type gitRepo struct {
	t    *testing.T
	dir  string
	when time.Time
}

func newGitRepo(t *testing.T, dir string) *gitRepo {
	t.Helper()
	g := &gitRepo{t: t, dir: dir, when: time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)}
	g.git("init", "-q", "-b", "main")
	return g
}

// git runs a git command in the repository and returns its output.
func (g *gitRepo) git(args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = g.dir
	date := g.when.Format(time.RFC3339)
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+g.dir,
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_COMMITTER_DATE="+date,
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// write writes a file of the work tree.
func (g *gitRepo) write(path, content string) {
	g.t.Helper()
	p := filepath.Join(g.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
}

// commit commits everything, one hour after the previous commit.
func (g *gitRepo) commit(message string) {
	g.t.Helper()
	g.when = g.when.Add(time.Hour)
	g.git("add", "-A")
	g.git("commit", "-q", "--no-gpg-sign", "-m", message)
}
