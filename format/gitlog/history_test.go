package gitlog

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/prereq"
)

func TestOpenFindsTopLevel(t *testing.T) {
	r := newTestRepo(t)
	r.write("tools/deep/a.json", "{}")
	repo, err := Open(filepath.Join(r.dir, "tools", "deep"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := filepath.EvalSymlinks(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	if repo.Root() != want {
		t.Errorf("Root() = %q, want %q", repo.Root(), want)
	}
}

func TestOpenOutsideRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		prereq.Missing(t, "git is not installed (apt-get install git)")
	}
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir)) // in case the temporary directory is inside a repository
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), dir+" is not in a git repository") {
		t.Errorf("Open(%q) error = %v, want one saying it is not in a git repository", dir, err)
	}
}

func TestOpenWithoutGit(t *testing.T) {
	t.Setenv("PATH", "")
	_, err := Open(t.TempDir())
	if !errors.Is(err, exec.ErrNotFound) || !strings.Contains(err.Error(), "git") {
		t.Errorf("Open without git error = %v, want one wrapping exec.ErrNotFound", err)
	}
}

func TestHead(t *testing.T) {
	r := newTestRepo(t)
	repo := r.open()
	if _, err := repo.Head(); !errors.Is(err, ErrNoCommits) {
		t.Errorf("Head() of an empty repository: error = %v, want ErrNoCommits", err)
	}
	if _, err := repo.Log("HEAD", nil); err == nil {
		t.Error("Log of an empty repository succeeded")
	}
	r.write("a", "a")
	want := r.commit("first")
	if got, err := repo.Head(); err != nil || got != want {
		t.Errorf("Head() = %q, %v; want %q", got, err, want)
	}
}

func TestIsShallow(t *testing.T) {
	r := newTestRepo(t)
	for i := range 3 {
		r.write("tools/a.json", strings.Repeat("a", i))
		r.commit("change")
	}
	clone := filepath.Join(t.TempDir(), "clone")
	r.git("clone", "--quiet", "--depth=1", "file://"+filepath.ToSlash(r.dir), clone)

	for _, tc := range []struct {
		dir  string
		want bool
	}{{r.dir, false}, {clone, true}} {
		repo, err := Open(tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := repo.IsShallow(); err != nil || got != tc.want {
			t.Errorf("IsShallow() of %s = %v, %v; want %v", tc.dir, got, err, tc.want)
		}
	}
}

func TestLogErrors(t *testing.T) {
	r := newTestRepo(t)
	r.write("a", "a")
	r.commit("first")
	repo := r.open()

	_, err := repo.Log("no-such-branch", nil)
	for _, want := range []string{"git log", repo.Root(), "no-such-branch"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Log of an unknown revision: error = %v, want it to mention %q", err, want)
		}
	}
	if _, err := repo.Log("", nil); err == nil {
		t.Error("Log of an empty revision succeeded")
	}
	// A revision is never taken for an option, which here would write a file.
	if _, err := repo.Log("--output=written", nil); err == nil {
		t.Error("Log(\"--output=written\") succeeded")
	}
	if _, err := os.Stat(filepath.Join(r.dir, "written")); err == nil {
		t.Error("Log(\"--output=written\") wrote a file")
	}
}

// TestIgnoresHookEnvironment runs the package as a git hook of another
// repository would, with GIT_DIR and GIT_INDEX_FILE naming that repository.
func TestIgnoresHookEnvironment(t *testing.T) {
	other := newTestRepo(t)
	other.write("tools/other.json", "other")
	other.commit("other")
	r := newTestRepo(t)
	r.write("tools/mine.json", "mine")
	want := r.commit("mine")
	repo := r.open()

	t.Setenv("GIT_DIR", filepath.Join(other.dir, ".git"))
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other.dir, ".git", "index"))
	got, err := repo.Log("HEAD", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Hash != want {
		t.Errorf("Log with another repository's hook environment = %+v, want commit %s", got, want)
	}
}

// TestGitReadsPacksWithBoundedMemory checks that git sees the limits
// gitConfig sets, over a user's own configuration of them, and still
// sees the rest of the user's configuration.
func TestGitReadsPacksWithBoundedMemory(t *testing.T) {
	r := newTestRepo(t)
	r.git("config", "core.packedGitLimit", "8g")
	r.git("config", "user.name", "Someone")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.deltaBaseCacheLimit=1g'")
	repo := r.open()
	for key, want := range map[string]string{
		"core.packedGitWindowSize":   "16m",
		"core.packedGitLimit":        "32m",
		"core.deltaBaseCacheLimit":   "16m",
		"advice.graftFileDeprecated": "false",
		"user.name":                  "Someone",
	} {
		out, stderr, err := repo.output("config", "--get", key)
		if got := strings.TrimSpace(string(out)); err != nil || got != want {
			t.Errorf("git config --get %s = %q (%v, %s), want %q", key, got, err, stderr, want)
		}
	}
}

// forked returns a repository whose branches main and side each add a
// commit to a root commit, main checked out, and the three commits.
func forked(t *testing.T) (r *testRepo, root, side, main string) {
	r = newTestRepo(t)
	r.write("a.json", "1")
	root = r.commit("root")
	r.git("checkout", "-q", "-b", "side")
	r.write("a.json", "2")
	side = r.commit("side")
	r.git("checkout", "-q", "main")
	r.write("b.json", "3")
	return r, root, side, r.commit("main")
}

func TestResolveAndMergeBase(t *testing.T) {
	r, root, side, head := forked(t)
	repo := r.open()

	for rev, want := range map[string]string{"main": head, "side": side, "side~1": root, "nope": "", "--output=x": "", "": ""} {
		if got, err := repo.Resolve(rev); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", rev, got, err, want)
		}
	}
	if got, err := repo.MergeBase("HEAD", "side"); err != nil || got != root {
		t.Errorf("MergeBase(HEAD, side) = %q, %v; want %q", got, err, root)
	}
	r.git("checkout", "-q", "--orphan", "unrelated")
	r.write("c.json", "4")
	r.commit("unrelated root")
	if _, err := repo.MergeBase("HEAD", "main"); !errors.Is(err, ErrNoMergeBase) {
		t.Errorf("MergeBase of unrelated histories: %v, want ErrNoMergeBase", err)
	}
}

func TestSameRepository(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"https://github.com/acme/tracker", "https://github.com/acme/tracker.git", true},
		{"https://github.com/acme/tracker/", "git@github.com:acme/tracker.git", true},
		{"https://github.com/Acme/Tracker", "ssh://git@github.com/acme/tracker", true},
		{"https://github.com/acme/tracker", "https://github.com/acme/other", false},
		{"https://github.com/acme/tracker", "https://gitlab.com/acme/tracker", false},
		{"https://github.com/acme/tracker", "/srv/git/tracker", false},
		{"", "", false},
	} {
		if got := SameRepository(tc.a, tc.b); got != tc.want {
			t.Errorf("SameRepository(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}
