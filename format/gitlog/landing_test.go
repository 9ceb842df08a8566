package gitlog

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// TestLandings joins the commits one "rebase and merge" wrote (one
// committer, one committer time) and keeps commits made one by one apart.
func TestLandings(t *testing.T) {
	r := newTestRepo(t)
	r.write("tools/a.json", `{"name":"a"}`)
	first := r.commit("add a")
	// Three commits rebased onto main at once: one committer time.
	var landed []string
	for i, content := range []string{`{"name":"a","x":1}`, `{"name":"a","x":2}`, ""} {
		if content == "" {
			r.git("rm", "-q", "tools/a.json")
			r.write("tools/b.json", `{"name":"b"}`)
			r.git("add", "--all")
		} else {
			r.write("tools/a.json", content)
			r.git("add", "--all")
		}
		date := gitDate(commitTime(10))
		r.gitEnv([]string{"GIT_AUTHOR_DATE=" + gitDate(commitTime(i+2)), "GIT_COMMITTER_DATE=" + date},
			"commit", "--quiet", "--message", "rebased")
		landed = append(landed, r.git("rev-parse", "HEAD"))
	}
	r.write("tools/b.json", `{"name":"b","x":1}`)
	last := r.commit("one by one")

	commits, err := r.open().Log("HEAD", toolFiles)
	if err != nil {
		t.Fatal(err)
	}
	if len(commits) != 5 || commits[0].Committer == "" {
		t.Fatalf("Log = %+v, want 5 commits with their committer", commits)
	}
	got := slices.Collect(Landings(slices.Values(commits)))
	if len(got) != 3 {
		t.Fatalf("Landings = %d commits %+v, want 3", len(got), got)
	}
	if got[0].Hash != first || got[0].First != "" || got[2].Hash != last || got[2].First != "" {
		t.Errorf("single commits changed: %+v", got)
	}
	// Each landing comes as soon as the commit after it is read: a
	// caller need not hold the commits read before.
	read := 0
	counted := func(yield func(Commit) bool) {
		for _, c := range commits {
			read++
			if !yield(c) {
				return
			}
		}
	}
	var readAt []int
	for range Landings(counted) {
		readAt = append(readAt, read)
	}
	if want := []int{2, 5, 5}; !slices.Equal(readAt, want) {
		t.Errorf("the landings came after %v commits read, want %v", readAt, want)
	}
	run := got[1]
	if run.Hash != landed[2] || run.First != landed[0] || !run.Time.Equal(commitTime(10)) {
		t.Errorf("the run = %s (first %s) at %v, want %s (first %s) at %v", run.Hash, run.First, run.Time, landed[2], landed[0], commitTime(10))
	}
	want := []Change{{Path: "tools/a.json"}, {Path: "tools/b.json", Blob: r.blob(`{"name":"b"}`)}}
	if !reflect.DeepEqual(run.Changes, want) {
		t.Errorf("the run's changes = %v, want %v", run.Changes, want)
	}
}

// TestRenames finds a file moved with other contents, and only renames.
func TestRenames(t *testing.T) {
	r := newTestRepo(t)
	// git compares files line by line: tool files are pretty-printed.
	const body = "{\n  \"name\": %q,\n  \"description\": \"A tool.\",\n  \"inputSchema\": {\n    \"type\": \"object\"\n  }\n}\n"
	r.write("tools/old.json", fmt.Sprintf(body, "old_name"))
	r.write("tools/kept.json", `{"name":"kept"}`)
	before := r.commit("add")
	r.git("mv", "tools/old.json", "tools/new.json")
	r.write("tools/new.json", fmt.Sprintf(body, "new_name"))
	r.write("tools/kept.json", `{"name":"kept","x":1}`)
	after := r.commit("rename")
	got, err := r.open().Renames(before, after)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"tools/old.json": "tools/new.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Renames = %v, want %v", got, want)
	}
}
