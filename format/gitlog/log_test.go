package gitlog

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// toolFiles are the pathspecs of a typical site: its tool schemas by glob and
// its configuration by plain path.
var toolFiles = []string{":(glob)tools/**/*.json", "site.toml"}

// wantCommit is what a test expects of one commit of a Log.
type wantCommit struct {
	hash    string
	n       int    // the commit's number in its testRepo, which fixes its time
	subject string // its message, to name it by
	changes []Change
	tree    Tree // the matching files after the commit
}

func checkLog(t *testing.T, got []Commit, want []wantCommit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("Log returned %d commits %+v, want %d", len(got), got, len(want))
	}
	tree := Tree{}
	for i, w := range want {
		c := got[i]
		if c.Hash != w.hash {
			t.Errorf("commit %d = %s, want %s (%q)", i, c.Hash, w.hash, w.subject)
		}
		if wantTime := commitTime(w.n); !c.Time.Equal(wantTime) || c.Time.Location() != time.UTC {
			t.Errorf("commit %q: Time = %v, want %v", w.subject, c.Time, wantTime)
		}
		if !reflect.DeepEqual(c.Changes, w.changes) {
			t.Errorf("commit %q: Changes =\n%v\nwant\n%v", w.subject, c.Changes, w.changes)
		}
		tree.Apply(c)
		if !reflect.DeepEqual(tree, w.tree) {
			t.Errorf("after commit %q: Tree =\n%v\nwant\n%v", w.subject, tree, w.tree)
		}
	}
}

func hashes(commits []Commit) []string {
	var s []string
	for _, c := range commits {
		s = append(s, c.Hash)
	}
	return s
}

func TestLogAddModifyMoveDelete(t *testing.T) {
	r := newTestRepo(t)
	r.write("tools/a.json", `{"name":"a"}`)
	r.write("tools/b.json", `{"name":"b"}`)
	r.write("tools/notes.txt", "not a schema")
	r.write("site.toml", `title = "x"`)
	r.write("README.md", "outside the pathspecs")
	root := r.commit("add tools")
	r.write("tools/a.json", `{"name":"a","description":"A"}`)
	modify := r.commit("describe a")
	r.write("README.md", "still outside")
	r.write("tools/notes.txt", "still not a schema")
	r.commit("docs only")
	if err := os.MkdirAll(filepath.Join(r.dir, "tools", "weather"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.git("mv", "tools/b.json", "tools/weather/b.json")
	move := r.commitStaged("move b")
	r.git("rm", "--quiet", "tools/a.json")
	r.write("site.toml", `title = "y"`)
	remove := r.commit("remove a, retitle")

	a1, a2 := r.blob(`{"name":"a"}`), r.blob(`{"name":"a","description":"A"}`)
	b, site1, site2 := r.blob(`{"name":"b"}`), r.blob(`title = "x"`), r.blob(`title = "y"`)
	got, err := r.open().Log("HEAD", toolFiles)
	if err != nil {
		t.Fatal(err)
	}
	checkLog(t, got, []wantCommit{
		{root, 1, "add tools",
			[]Change{{"site.toml", site1}, {"tools/a.json", a1}, {"tools/b.json", b}},
			Tree{"site.toml": site1, "tools/a.json": a1, "tools/b.json": b}},
		{modify, 2, "describe a",
			[]Change{{"tools/a.json", a2}},
			Tree{"site.toml": site1, "tools/a.json": a2, "tools/b.json": b}},
		{move, 4, "move b",
			[]Change{{"tools/b.json", ""}, {"tools/weather/b.json", b}},
			Tree{"site.toml": site1, "tools/a.json": a2, "tools/weather/b.json": b}},
		{remove, 5, "remove a, retitle",
			[]Change{{"site.toml", site2}, {"tools/a.json", ""}},
			Tree{"site.toml": site2, "tools/weather/b.json": b}},
	})
}

// The commits of a log share one string for a path, and one for a
// committer, however many name them: a long history keeps them all.
func TestLogKeepsOneStringPerPathAndCommitter(t *testing.T) {
	r := newTestRepo(t)
	for i := range 3 {
		r.write("tools/a.json", fmt.Sprintf(`{"name":"a","description":"%d"}`, i))
		r.commit(fmt.Sprintf("change %d", i))
	}
	got, err := r.open().Log("HEAD", toolFiles)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d commits, want 3", len(got))
	}
	first := got[0]
	for _, c := range got[1:] {
		if unsafe.StringData(c.Changes[0].Path) != unsafe.StringData(first.Changes[0].Path) {
			t.Errorf("commit %s: its path is a string of its own", c.Hash)
		}
		if unsafe.StringData(c.Committer) != unsafe.StringData(first.Committer) {
			t.Errorf("commit %s: its committer is a string of its own", c.Hash)
		}
	}
}

func TestLogMergeIsOneCommitAtMergeTime(t *testing.T) {
	r := newTestRepo(t)
	r.write("tools/a.json", "a1")
	root := r.commit("root")
	r.git("switch", "--quiet", "--create", "feature")
	r.write("tools/a.json", "a2")
	r.write("tools/draft.json", "short-lived")
	r.commit("feature 1")
	r.write("tools/a.json", "a3")
	r.git("rm", "--quiet", "tools/draft.json")
	r.write("tools/c.json", "c")
	r.commit("feature 2")
	r.git("switch", "--quiet", "main")
	r.write("README.md", "main moves on outside the pathspecs")
	r.commit("readme")
	r.commits++
	r.gitEnv([]string{
		"GIT_AUTHOR_DATE=" + gitDate(commitTime(r.commits)),
		"GIT_COMMITTER_DATE=" + gitDate(commitTime(r.commits)),
	}, "merge", "--quiet", "--no-ff", "--message", "Merge feature", "feature")
	merge := r.git("rev-parse", "HEAD")

	got, err := r.open().Log("HEAD", toolFiles)
	if err != nil {
		t.Fatal(err)
	}
	a1, a3, c := r.blob("a1"), r.blob("a3"), r.blob("c")
	checkLog(t, got, []wantCommit{
		{root, 1, "root", []Change{{"tools/a.json", a1}}, Tree{"tools/a.json": a1}},
		{merge, 5, "Merge feature",
			[]Change{{"tools/a.json", a3}, {"tools/c.json", c}},
			Tree{"tools/a.json": a3, "tools/c.json": c}},
	})
}

func TestLogPathsWithSpacesAndNonASCII(t *testing.T) {
	r := newTestRepo(t)
	const odd = "tools/café menu/naïve tool.json"
	r.write(odd, "{}")
	r.write("tools/plain.json", "{}")
	hash := r.commit("odd names")
	repo := r.open()
	for _, pathspecs := range [][]string{toolFiles, {odd}, {":(glob)tools/caf*/*"}} {
		got, err := repo.Log("HEAD", pathspecs)
		if err != nil {
			t.Fatal(err)
		}
		want := []Change{{odd, r.blob("{}")}}
		if pathspecs[0] == toolFiles[0] {
			want = append(want, Change{"tools/plain.json", r.blob("{}")})
		}
		if len(got) != 1 || got[0].Hash != hash || !reflect.DeepEqual(got[0].Changes, want) {
			t.Errorf("Log(%q) = %+v, want one commit with %v", pathspecs, got, want)
		}
	}
}

func TestLogKeepsOnlyRegularFiles(t *testing.T) {
	r := newTestRepo(t)
	r.write("tools/a.json", "a")
	r.write("tools/run.json", "executable")
	r.git("add", "--all")
	r.git("update-index", "--chmod=+x", "tools/run.json")
	root := r.commitStaged("root")
	r.git("update-index", "--chmod=-x", "tools/run.json")
	r.commitStaged("only the mode changes")
	if err := os.Symlink("a.json", filepath.Join(r.dir, "tools", "link.json")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	r.git("add", "tools/link.json")
	// A submodule is a gitlink entry; it needs no second repository to be recorded.
	r.git("update-index", "--add", "--cacheinfo", "160000,"+root+",tools/sub.json")
	r.commitStaged("link and submodule")
	if err := os.Remove(filepath.Join(r.dir, "tools", "a.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("run.json", filepath.Join(r.dir, "tools", "a.json")); err != nil {
		t.Fatal(err)
	}
	r.git("add", "tools/a.json")
	replaced := r.commitStaged("a becomes a link")

	got, err := r.open().Log("HEAD", toolFiles)
	if err != nil {
		t.Fatal(err)
	}
	a, run := r.blob("a"), r.blob("executable")
	checkLog(t, got, []wantCommit{
		{root, 1, "root",
			[]Change{{"tools/a.json", a}, {"tools/run.json", run}},
			Tree{"tools/a.json": a, "tools/run.json": run}},
		{replaced, 4, "a becomes a link",
			[]Change{{"tools/a.json", ""}},
			Tree{"tools/run.json": run}},
	})
}

// TestLogMessages reads commits whose messages look like what Log parses:
// it never reads them.
func TestLogMessages(t *testing.T) {
	r := newTestRepo(t)
	messages := []string{
		"plain",
		"",
		"0123456789abcdef0123456789abcdef01234567",
		":100644 100644 looks like a diff entry",
		"separators \x1e\x1f\x1d and\ttab, ünïcödé",
		"wrapped\nsubject line\n\nbody is not part of it",
		strings.Repeat("long subject ", 10000), // past the parser's buffer
	}
	var want []string
	for i, m := range messages {
		r.write("tools/t.json", strings.Repeat("x", i))
		want = append(want, r.commit(m))
	}
	got, err := r.open().Log("HEAD", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(hashes(got), want) {
		t.Fatalf("Log returned commits %q, want %q", hashes(got), want)
	}
	for i := range messages {
		if len(got[i].Changes) != 1 {
			t.Errorf("commit %d: Changes = %v, want one", i, got[i].Changes)
		}
	}
}

func TestLogWithoutPathspecsSkipsEmptyCommits(t *testing.T) {
	r := newTestRepo(t)
	r.write("anything", "1")
	first := r.commit("first")
	r.commit("nothing changed")
	r.write("anything", "2")
	last := r.commit("last")
	got, err := r.open().Log("main", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Hash != first || got[1].Hash != last {
		t.Errorf("Log = %v, want the first and last commits", hashes(got))
	}
}

// TestLogIgnoresConfiguration checks that settings which change git's
// output by default change nothing in what Log returns.
func TestLogIgnoresConfiguration(t *testing.T) {
	r := newTestRepo(t)
	r.write("tools/a.json", `{"name":"a"}`)
	r.write("tools/b.json", `{"name":"b"}`)
	r.commit("root")
	r.git("mv", "tools/a.json", "tools/renamed.json")
	r.write("tools/b.json", `{"name":"b","description":"changed"}`)
	r.commit("rename a, ünïcödé")
	r.git("mv", "tools/renamed.json", "tools/again.json")
	r.write("tools/new/untracked.json", "{}")
	r.write("order.txt", "tools/renamed.json\n")

	repo := r.open()
	wantLog, err := repo.Log("HEAD", toolFiles)
	if err != nil {
		t.Fatal(err)
	}
	if len(wantLog) != 2 || len(wantLog[1].Changes) != 3 {
		t.Fatalf("without configuration, Log = %+v", wantLog)
	}
	for _, kv := range [][2]string{
		{"log.showRoot", "false"},
		{"log.follow", "true"},
		{"log.decorate", "full"},
		{"diff.renames", "copies"},
		{"diff.relative", "true"},
		{"diff.orderFile", "order.txt"},
		{"diff.noprefix", "true"},
		{"color.ui", "always"},
		{"core.abbrev", "7"},
		{"i18n.logOutputEncoding", "ISO-8859-1"},
		{"status.showUntrackedFiles", "no"},
		{"status.renames", "true"},
		{"format.pretty", "oneline"},
	} {
		r.git("config", kv[0], kv[1])
	}

	gotLog, err := repo.Log("HEAD", toolFiles)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotLog, wantLog) {
		t.Errorf("with configuration, Log =\n%+v\nwant\n%+v", gotLog, wantLog)
	}
	// log.follow would follow a single path back through its rename.
	followed, err := repo.Log("HEAD", []string{"tools/renamed.json"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Change{{"tools/renamed.json", r.blob(`{"name":"a"}`)}}; len(followed) != 1 || !reflect.DeepEqual(followed[0].Changes, want) {
		t.Errorf("with configuration, Log of one path = %+v, want one commit with %v", followed, want)
	}
}

func TestShort(t *testing.T) {
	for hash, want := range map[string]string{
		"0123456789abcdef0123456789abcdef01234567": "0123456789ab",
		"0123456789ab": "0123456789ab",
		"abc":          "abc",
		"":             "",
	} {
		if got := Short(hash); got != want {
			t.Errorf("Short(%q) = %q, want %q", hash, got, want)
		}
	}
}

// An object id is held in binary, and written back in hex as git wrote
// it, SHA-1 or SHA-256.
func TestObjectID(t *testing.T) {
	for _, hex := range []string{strings.Repeat("0123456789abcdef", 3)[:40], strings.Repeat("fedcba9876543210", 4)} {
		id, ok := ParseObjectID(hex)
		if !ok || len(id) != len(hex)/2 || id.String() != hex || fmt.Sprint(id) != hex {
			t.Errorf("ParseObjectID(%s) = %q (%d bytes), %v, back %s", hex, string(id), len(id), ok, id)
		}
	}
	for _, bad := range []string{"", "HEAD", strings.Repeat("A", 40), strings.Repeat("a", 39)} {
		if _, ok := ParseObjectID(bad); ok {
			t.Errorf("ParseObjectID(%q) is an id", bad)
		}
	}
}

// Each raw diff entry is read whole before its path overwrites it (here,
// in a reader too small for either), and one that is not five fields is
// an error that quotes it.
func TestParseLogEntries(t *testing.T) {
	const (
		header = "1111111111111111111111111111111111111111\x001700000000\x00c@example.com\x00\n"
		a      = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		b      = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
		zero   = "0000000000000000000000000000000000000000"
		dir    = "tools/server-0/with-a-long-name/"
	)
	parse := func(log string) ([]Change, error) {
		var got []Change
		err := parseLog(bufio.NewReaderSize(strings.NewReader(header+log), 16), func(c Commit) error {
			got = c.Changes
			return nil
		})
		return got, err
	}
	got, err := parse(":100644 100644 " + a + " " + b + " M\x00" + dir + "x.json\x00" +
		":100644 100755 " + a + " " + a + " M\x00" + dir + "exec.json\x00" +
		":100644 000000 " + a + " " + zero + " D\x00" + dir + "gone.json\x00" +
		":000000 120000 " + zero + " " + b + " A\x00" + dir + "link\x00")
	bID, _ := ParseObjectID(b)
	if want := []Change{{dir + "gone.json", ""}, {dir + "x.json", bID}}; err != nil || !slices.Equal(got, want) {
		t.Errorf("parseLog = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{":100644 100644 " + a + " M", ":100644 100644 " + a + " " + b + " M extra", ":100644 100644 " + a + " nothex M"} {
		if _, err := parse(bad + "\x00" + dir + "x.json\x00"); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("malformed diff entry %q", bad)) {
			t.Errorf("parseLog of entry %q: %v, want it reported as malformed", bad, err)
		}
	}
}
