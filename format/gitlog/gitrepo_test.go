package gitlog

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/internal/prereq"
)

// TestMain isolates every git process of the tests, the package's own
// included, from the developer's configuration and identity.
func TestMain(m *testing.M) {
	for _, kv := range [][2]string{
		{"GIT_CONFIG_GLOBAL", os.DevNull},
		{"GIT_CONFIG_NOSYSTEM", "1"},
		{"GIT_AUTHOR_NAME", "Ada Author"},
		{"GIT_AUTHOR_EMAIL", "ada@example.com"},
		{"GIT_COMMITTER_NAME", "Cy Committer"},
		{"GIT_COMMITTER_EMAIL", "cy@example.com"},
	} {
		os.Setenv(kv[0], kv[1])
	}
	os.Exit(m.Run())
}

// firstCommitTime is the committer time of a testRepo's first commit; each
// further commit is one hour later.
var firstCommitTime = time.Date(2026, 4, 27, 12, 0, 0, 0, time.UTC)

// commitTime returns the committer time of a testRepo's nth commit (from 1).
func commitTime(n int) time.Time {
	return firstCommitTime.Add(time.Duration(n-1) * time.Hour)
}

// testRepo is a git repository built by a test with the real git.
type testRepo struct {
	t       testing.TB
	dir     string
	commits int // commits made so far, which fixes the next commit's dates
}

// newTestRepo returns an empty repository on branch main in a temporary
// directory. It skips the test when git is not installed.
func newTestRepo(t testing.TB) *testRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		prereq.Missing(t, "git is not installed (apt-get install git)")
	}
	r := &testRepo{t: t, dir: t.TempDir()}
	r.git("init", "--quiet", "--initial-branch=main")
	return r
}

// git runs git in the repository and returns its output without the final
// newline; a failure fails the test.
func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	return r.gitEnv(nil, args...)
}

func (r *testRepo) gitEnv(env []string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// write creates or replaces a file of the work tree.
func (r *testRepo) write(path, content string) {
	r.t.Helper()
	full := filepath.Join(r.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// commit stages every change of the work tree and commits it with the next
// commit time, given with a +02:00 offset so that UTC conversion shows. The
// author time is a day earlier, so that it cannot pass for the committer's.
func (r *testRepo) commit(message string) string {
	r.t.Helper()
	r.git("add", "--all")
	return r.commitStaged(message)
}

// commitStaged commits the index as it is; see commit.
func (r *testRepo) commitStaged(message string) string {
	r.t.Helper()
	r.commits++
	when := commitTime(r.commits)
	r.gitEnv([]string{
		"GIT_AUTHOR_DATE=" + gitDate(when.Add(-24*time.Hour)),
		"GIT_COMMITTER_DATE=" + gitDate(when),
	}, "commit", "--quiet", "--allow-empty", "--allow-empty-message", "--message", message)
	return r.git("rev-parse", "HEAD")
}

func gitDate(t time.Time) string {
	return fmt.Sprintf("@%d +0200", t.Unix())
}

// blob returns the id git gives a file with this content.
func (r *testRepo) blob(content string) ObjectID {
	r.t.Helper()
	cmd := exec.Command("git", "hash-object", "--stdin")
	cmd.Dir = r.dir
	cmd.Stdin = strings.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("git hash-object: %v", err)
	}
	id, ok := ParseObjectID(strings.TrimSuffix(string(out), "\n"))
	if !ok {
		r.t.Fatalf("git hash-object wrote %q", out)
	}
	return id
}

// open opens the repository with the package under test.
func (r *testRepo) open() *Repo {
	r.t.Helper()
	repo, err := Open(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	return repo
}
