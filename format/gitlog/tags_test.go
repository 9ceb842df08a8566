package gitlog

import (
	"fmt"
	"strings"
	"testing"
)

// Tags lists the tags of commits a revision reaches, annotated ones peeled;
// FirstParents lists the first-parent line with its times; CommitTime
// resolves one revision.
func TestTagsAndFirstParents(t *testing.T) {
	r := newTestRepo(t)
	r.write("a.json", "1")
	first := r.commit("first")
	r.git("tag", "v1.0.0")
	r.git("checkout", "-q", "-b", "side")
	r.write("b.json", "2")
	side := r.commit("side")
	r.git("tag", "-a", "-m", "side release", "v9.0.0")
	r.git("checkout", "-q", "main")
	r.write("c.json", "3")
	second := r.commit("second")
	r.git("tag", "-a", "-m", "release", "v1.1.0")
	r.git("tag", "tree-tag", "HEAD^{tree}")
	r.commits++
	r.gitEnv([]string{"GIT_COMMITTER_DATE=" + gitDate(commitTime(r.commits))}, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	merge := r.git("rev-parse", "HEAD")
	repo := r.open()

	tags, err := repo.Tags("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tag := range tags {
		got = append(got, tag.Name+"="+tag.Commit)
	}
	want := []string{"v1.0.0=" + first, "v1.1.0=" + second, "v9.0.0=" + side}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Tags(HEAD) = %v, want %v", got, want)
	}
	if tags, _ := repo.Tags(first); len(tags) != 1 || tags[0].Name != "v1.0.0" {
		t.Errorf("Tags(first) = %v, want v1.0.0 only", tags)
	}

	line, err := repo.FirstParents("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, c := range line {
		got = append(got, fmt.Sprintf("%s@%s", c.Hash, c.Time.Format("15:04")))
	}
	want = []string{first + "@12:00", second + "@14:00", merge + "@15:00"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("FirstParents(HEAD) = %v, want %v (the side commit is not on the line)", got, want)
	}

	if at, ok, err := repo.CommitTime("v1.1.0"); err != nil || !ok || !at.Equal(commitTime(3)) {
		t.Errorf("CommitTime(v1.1.0) = %v, %v, %v; want %v", at, ok, err, commitTime(3))
	}
	if _, ok, err := repo.CommitTime("no-such-tag"); err != nil || ok {
		t.Errorf("CommitTime(no-such-tag) = %v, %v; want not found", ok, err)
	}
}
