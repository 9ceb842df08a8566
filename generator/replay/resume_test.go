package replay

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

const resumeSite = "base_url = \"https://example.com/\"\ntitle = \"T\"\n\n[[servers]]\nname = \"com.example/s\"\ndescription = \"S.\"\nversion = \"1.0.0\"\ntools = \"tools/*.json\"\n"

// resumer replays a repository's history after each change, resumed from
// the replay before and whole, and compares the two.
type resumer struct {
	t    *testing.T
	g    *gittest.Repo
	prev *Output
	was  []string

	allowShallow bool // Input.AllowShallow
}

func newResumer(t *testing.T, g *gittest.Repo) *resumer {
	r := &resumer{t: t, g: g}
	r.prev, r.was = r.read()
	return r
}

func (r *resumer) input() Input {
	return Input{Config: load(r.t, r.g.Dir), Endpoint: cardEndpoint, AllowShallow: r.allowShallow}
}

// read is a whole replay of the repository as it is now, and the states
// of the repositories it read.
func (r *resumer) read() (*Output, []string) {
	r.t.Helper()
	out, err := readAndPlay(r.input())
	if err != nil {
		r.t.Fatal(err)
	}
	states, ok := statesOf(out.sources)
	if !ok {
		r.t.Fatal("no states")
	}
	return out, states
}

// step makes a change, resumes the replay before it, and checks whether it
// resumed, with how many new commits, and that the result is a whole
// replay's. A replay that does not resume is followed by a whole one.
func (r *resumer) step(name string, change func(), resumes bool, newCommits int) {
	r.t.Helper()
	change()
	full, now := r.read()
	out, ok := resume(r.prev, r.was, now, r.input())
	if ok != resumes {
		r.t.Fatalf("%s: resumed %v, want %v", name, ok, resumes)
	}
	r.was = now
	if !ok {
		r.prev = full
		return
	}
	if !out.Resumed || out.newCommits != newCommits {
		r.t.Errorf("%s: Resumed %v with %d new commits, want %d", name, out.Resumed, out.newCommits, newCommits)
	}
	if full.Timeline.EventCount() == 0 {
		r.t.Fatalf("%s: no events", name)
	}
	if !reflect.DeepEqual(out.Timeline, full.Timeline) {
		r.t.Errorf("%s: the resumed timeline differs from a whole replay's:\n%s", name, eventDiff(out, full))
	}
	for _, f := range []struct {
		what           string
		resumed, whole any
	}{
		{"warnings", out.Warnings, full.Warnings},
		{"notices", out.Notices, full.Notices},
		{"commit links", out.CommitRepos, full.CommitRepos},
		{"sources", out.sources, full.sources},
	} {
		if !reflect.DeepEqual(f.resumed, f.whole) {
			r.t.Errorf("%s: resumed %s %q, a whole replay's %q", name, f.what, f.resumed, f.whole)
		}
	}
	r.prev = out
}

// eventDiff lists the events of two replays, one a line, the first that
// differs marked.
func eventDiff(a, b *Output) string {
	var s string
	for i := range max(a.Timeline.EventCount(), b.Timeline.EventCount()) {
		var ea, eb string
		if i < a.Timeline.EventCount() {
			ea = a.Timeline.Event(i).Title()
		}
		if i < b.Timeline.EventCount() {
			eb = b.Timeline.Event(i).Title()
		}
		mark := "  "
		if ea != eb {
			mark = "≠ "
		}
		s += mark + ea + " | " + eb + "\n"
	}
	return s
}

// A replay resumed with the commits since equals a whole replay, whatever
// the commits do to the tools; a change it cannot go on from (site.toml
// edited, a checkout backwards, a branch switch, an amended commit, a new
// tag) makes it give up, for a whole replay.
func TestResumeEqualsWholeReplay(t *testing.T) {
	// The commits read on fill the last chunk of the repository's list,
	// whose steps point at its commits, and start new ones.
	smallChunks(t, 3)
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", resumeSite)
	g.Write("tools/a.json", toolJSON("a", "A.", "x"))
	g.Write("tools/b.json", toolJSON("b", "B.", "x"))
	g.Commit("first")
	r := newResumer(t, g)
	commit := func(message string, files ...string) func() {
		return func() {
			for i := 0; i < len(files); i += 2 {
				g.Write(files[i], files[i+1])
			}
			g.Commit(message)
		}
	}
	r.step("tool added", commit("add c", "tools/c.json", toolJSON("c", "C.")), true, 1)
	r.step("compatible change", commit("a: y", "tools/a.json", toolJSON("a", "A.", "x", "y")), true, 1)
	r.step("breaking change", commit("a: no x", "tools/a.json", toolJSON("a", "A.", "y")), true, 1)
	r.step("cosmetic change", commit("a: text", "tools/a.json", toolJSON("a", "A, described.", "y")), true, 1)
	r.step("tool removed", func() { g.Git("rm", "-q", "tools/b.json"); g.Commit("rm b") }, true, 1)
	r.step("tool file renamed", func() { g.Git("mv", "tools/c.json", "tools/see.json"); g.Commit("mv c") }, true, 1)
	r.step("tool back", commit("b again", "tools/b.json", toolJSON("b", "B.", "x")), true, 1)
	r.step("only other files", commit("readme", "README.md", "# Site\n"), true, 0)
	r.step("a clash opened", commit("a twice", "tools/a2.json", toolJSON("a", "A two.")), true, 1)
	r.step("the clash closed", func() { g.Git("rm", "-q", "tools/a2.json"); g.Commit("a once") }, true, 1)
	r.step("three commits", func() {
		commit("d", "tools/d.json", toolJSON("d", "D."))()
		commit("d: x", "tools/d.json", toolJSON("d", "D.", "x"))()
		commit("readme again", "README.md", "# The site\n")()
	}, true, 2)
	r.step("a merge", func() {
		g.Git("checkout", "-q", "-b", "side")
		commit("side: e", "tools/e.json", toolJSON("e", "E."))()
		g.Git("checkout", "-q", "main")
		commit("main: b", "tools/b.json", toolJSON("b", "B.", "x", "z"))()
		g.When = g.When.Add(time.Hour)
		g.Git("merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge side", "side")
	}, true, 2)
	// A blob the log names first outside every glob is read again at
	// its first path, a tool file's.
	r.step("a tool file moved out of the tools", func() {
		commit("k", "tools/k.json", toolJSON("k", "K."))()
		g.Git("mv", "tools/k.json", "k.json")
		g.Commit("k moved out")
	}, true, 2)
	// A blob the log names first at its newest path is parsed there,
	// and read again at its oldest, where the replay meets it first.
	r.step("a tool file added and renamed", func() {
		commit("k", "tools/k.json", toolJSON("k", "K."))()
		g.Git("mv", "tools/k.json", "tools/kk.json")
		g.Commit("k renamed")
	}, true, 2)
	r.step("site.toml edited", commit("title", "site.toml", strings.Replace(resumeSite, `title = "T"`, `title = "The site"`, 1)), false, 0)
	r.step("resumes after a whole replay", commit("f", "tools/f.json", toolJSON("f", "F.")), true, 1)
	r.step("checkout backwards", func() { g.Git("checkout", "-q", "HEAD~1") }, false, 0)
	r.step("back to main", func() { g.Git("checkout", "-q", "main") }, true, 1)
	r.step("branch switch", func() {
		g.Git("checkout", "-q", "-b", "other", "HEAD~2")
		commit("other: g", "tools/g.json", toolJSON("g", "G."))()
	}, false, 0)
	r.step("amended commit", func() {
		g.Write("tools/g.json", toolJSON("g", "G, amended."))
		g.Git("add", "-A")
		g.Git("commit", "-q", "--amend", "--no-gpg-sign", "-m", "other: g amended")
	}, false, 0)
	r.step("a tag", func() { g.Git("tag", "v1.0.0") }, false, 0)
	r.step("resumes again", commit("h", "tools/h.json", toolJSON("h", "H.")), true, 1)
	r.step("tool file broken", commit("h: broken", "tools/h.json", "{"), true, 1)
	// Commits with one committer time are one landing ("rebase and
	// merge"): one step when they arrive together; a whole replay when
	// they arrive apart, since the step replayed would change.
	landed := func(message string, files ...string) func() {
		return func() {
			g.When = g.When.Add(-time.Hour) // Commit moves it on again
			commit(message, files...)()
		}
	}
	r.step("a landing", func() {
		commit("i", "tools/i.json", toolJSON("i", "I."))()
		landed("i: x", "tools/i.json", toolJSON("i", "I.", "x"))()
		landed("i: y", "tools/i.json", toolJSON("i", "I.", "y"))()
	}, true, 1)
	r.step("a landing arrives apart", landed("i: z", "tools/i.json", toolJSON("i", "I.", "z")), false, 0)
	// git compares files line by line: a renamed tool file is seen as
	// renamed when it is pretty-printed.
	pretty := func(name string) string {
		return "{\n  \"name\": \"" + name + "\",\n  \"description\": \"I.\",\n  \"inputSchema\": {\n    \"type\": \"object\"\n  }\n}\n"
	}
	r.step("a tool renamed with its file", func() {
		commit("i pretty-printed", "tools/i.json", pretty("i"))()
		g.Git("mv", "tools/i.json", "tools/j.json")
		g.Write("tools/j.json", pretty("j"))
		g.Commit("i is now j")
	}, true, 2)
	last := r.prev.Timeline.Event(r.prev.Timeline.EventCount() - 1)
	if d, ok := last.Payload().(agentfeed.Deprecation); !ok || d.Replacement == nil || *d.Replacement != "com.example/s#j" {
		t.Errorf("the last event is %s, want i's deprecation replaced by com.example/s#j", last.Title())
	}
}

// With a server's tools in another repository (repo =), a replay resumes
// when the new commits come after the others in time, and gives up when
// one is dated before a commit already replayed: a whole replay would play
// it earlier.
func TestResumeAcrossRepositories(t *testing.T) {
	dir := t.TempDir()
	lib := gittest.New(t, filepath.Join(dir, "lib"))
	lib.Write("tools/a.json", toolJSON("a", "A."))
	lib.Commit("a")
	g := gittest.New(t, filepath.Join(dir, "site"))
	g.When = lib.When
	g.Write("site.toml", strings.Replace(resumeSite, "tools = ", "repo = \"../lib\"\ntools = ", 1))
	g.Commit("site")
	r := newResumer(t, g)
	if len(r.prev.sources) != 2 {
		t.Fatalf("sources %v, want the site's and the library's", r.prev.sources)
	}
	r.step("a library commit dated before the site's", func() {
		lib.When = g.When.Add(-90 * time.Minute) // its commit is half an hour before the site's
		lib.Write("tools/b.json", toolJSON("b", "B."))
		lib.Commit("b, back-dated")
	}, false, 0)
	r.step("a later commit of the library", func() {
		lib.When = g.When
		lib.Write("tools/a.json", toolJSON("a", "A.", "x"))
		lib.Commit("a: x")
	}, true, 1)
	r.step("a later commit of each", func() {
		lib.Write("tools/c.json", toolJSON("c", "C."))
		lib.Commit("c")
		g.When = lib.When
		g.Write("README.md", "# Site\n")
		g.Commit("readme")
	}, true, 1)
}

// A server that takes its versions from tags, or a history_from, makes a
// replay give up: a new commit may be tagged, or move where history starts.
// So does a shallow clone, which a fetch may deepen; a build that merely
// allows one resumes a whole clone.
func TestResumeGivesUpOnReleaseTagsAndHistoryFrom(t *testing.T) {
	for name, config := range map[string]string{
		"version_tags":  strings.Replace(resumeSite, `version = "1.0.0"`, `version_tags = "v*"`, 1),
		"history_from":  strings.Replace(resumeSite, `title = "T"`, "title = \"T\"\nhistory_from = \"2026-01-01\"", 1),
		"shallow_clone": resumeSite,
		"allow_shallow": resumeSite,
	} {
		t.Run(name, func(t *testing.T) {
			g := gittest.New(t, t.TempDir())
			g.Write("site.toml", config)
			g.Write("tools/a.json", toolJSON("a", "A."))
			g.Commit("first")
			g.Git("tag", "v1.0.0")
			if name == "shallow_clone" {
				g.Write("tools/b.json", toolJSON("b", "B."))
				g.Commit("second")
				clone := filepath.Join(t.TempDir(), "clone")
				g.Git("clone", "-q", "--depth=1", "file://"+g.Dir, clone)
				when := g.When
				g = gittest.New(t, clone) // git init leaves a repository as it is
				g.When = when
			}
			r := &resumer{t: t, g: g, allowShallow: name == "allow_shallow" || name == "shallow_clone"}
			r.prev, r.was = r.read()
			r.step("a tool commit", func() {
				g.Write("tools/a.json", toolJSON("a", "A.", "x"))
				g.Commit("a: x")
			}, name == "allow_shallow", 1)
		})
	}
}

// A server whose history before site.toml takes its versions from release
// tags makes a replay give up: a new tag would be a release. Without tags
// its pinned version starts at site.toml's commit, and a replay resumes.
func TestResumeWithBackfilledVersions(t *testing.T) {
	for _, tagged := range []bool{true, false} {
		g := gittest.New(t, t.TempDir())
		g.Write("tools/a.json", toolJSON("a", "A."))
		g.Commit("a")
		if tagged {
			g.Git("tag", "v0.1.0")
		}
		g.Write("site.toml", resumeSite)
		g.Commit("the site")
		r := newResumer(t, g)
		if n := len(r.prev.Notices); n != 1 {
			t.Errorf("tagged %v: %d notices, want one saying where the versions come from", tagged, n)
		}
		r.step("a tool commit", func() {
			g.Write("tools/a.json", toolJSON("a", "A.", "x"))
			g.Commit("a: x")
		}, !tagged, 1)
	}
}

// A replacement ref (git replace) or a graft is local to one clone and
// leaves the repository's state as it was: the replay reads the commits
// themselves, so that a reused replay is what a replay now reads, and a
// build here is the one CI makes of the same commit.
func TestReplayIgnoresReplacedCommits(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", resumeSite)
	g.Write("tools/a.json", toolJSON("a", "A.", "x"))
	g.Commit("first")
	g.Write("tools/a.json", toolJSON("a", "A.", "x", "y"))
	g.Commit("a: y")
	r := newResumer(t, g)
	head := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	g.Git("checkout", "-q", "-b", "other", "HEAD~1")
	g.Write("tools/a.json", toolJSON("a", "A, replaced.", "z"))
	g.Commit("a: replaced")
	other := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	g.Git("checkout", "-q", "main")
	g.Git("replace", head, other)
	out, now := r.read()
	if !reflect.DeepEqual(now, r.was) {
		t.Fatal("the repository's state changed with a replacement ref; the test no longer tests what it says")
	}
	if !reflect.DeepEqual(out.Timeline, r.prev.Timeline) {
		t.Errorf("a replacement ref changed the replay:\n%s", eventDiff(out, r.prev))
	}
	g.Git("replace", "-d", head)
	g.Write(".git/info/grafts", head+" "+other+"\n") // head's parent is other's
	if out, _ := r.read(); !reflect.DeepEqual(out.Timeline, r.prev.Timeline) {
		t.Errorf("a graft changed the replay:\n%s", eventDiff(out, r.prev))
	}
}
