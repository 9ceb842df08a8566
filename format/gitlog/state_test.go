package gitlog

import (
	"path/filepath"
	"strings"
	"testing"
)

// A state splits into the commit it names and the rest, which a commit
// does not change and a tag does.
func TestSplitState(t *testing.T) {
	r := newTestRepo(t)
	r.write("a.json", "1")
	first := r.commit("first")
	repo := r.open()
	state := func() string {
		s, err := repo.State("HEAD")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	was := state()
	r.write("a.json", "2")
	second := r.commit("second")
	now := state()
	wasCommit, wasRest := SplitState(was)
	nowCommit, nowRest := SplitState(now)
	if wasCommit != first || nowCommit != second || wasRest != nowRest {
		t.Errorf("states split into %s and %s, rests equal %v; want %s and %s, rests equal", wasCommit, nowCommit, wasRest == nowRest, first, second)
	}
	r.git("tag", "v1")
	if tagged, rest := SplitState(state()); tagged != second || rest == nowRest {
		t.Errorf("tagged: split into %s and a rest equal %v; want %s and a rest that differs", tagged, rest == nowRest, second)
	}
}

// A commit is on the first-parent line of a later one when the later one's
// history, following first parents, passes through it: not when it came in
// through a merge's second parent, nor when it is the later one or after it.
func TestOnFirstParentLine(t *testing.T) {
	r, root, side, main := forked(t)
	r.git("merge", "-q", "--no-ff", "-m", "merge", "side")
	merge := r.git("rev-parse", "HEAD")
	r.git("checkout", "-q", "-b", "other", root)
	r.write("c.json", "4")
	other := r.commit("other")
	repo := r.open()
	for _, c := range []struct {
		old, rev string
		want     bool
	}{
		{root, main, true}, {root, merge, true}, {main, merge, true},
		{side, merge, false}, {merge, merge, false}, {merge, main, false}, {main, other, false},
	} {
		if got, err := repo.OnFirstParentLine(c.old, c.rev); err != nil || got != c.want {
			t.Errorf("OnFirstParentLine(%.7s, %.7s) = %v, %v; want %v", c.old, c.rev, got, err, c.want)
		}
	}
}

// A fetch that deepens a shallow clone changes its state, though its
// commit, tags and remotes stay: a replay of it would read more history.
func TestStateOfADeepenedClone(t *testing.T) {
	r := newTestRepo(t)
	for i := range 3 {
		r.write("tools/a.json", strings.Repeat("a", i))
		r.commit("change")
	}
	clone := &testRepo{t: t, dir: filepath.Join(t.TempDir(), "clone")}
	r.git("clone", "--quiet", "--depth=1", "file://"+filepath.ToSlash(r.dir), clone.dir)
	repo := clone.open()
	was, err := repo.State("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	clone.git("fetch", "--quiet", "--deepen=1")
	now, err := repo.State("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	wasCommit, _ := SplitState(was)
	if nowCommit, _ := SplitState(now); now == was || nowCommit != wasCommit || !strings.HasPrefix(now, "true\n") {
		t.Errorf("the state after deepening is the one before (%v), or not of a shallow clone at the same commit:\n%q", now == was, now)
	}
}
