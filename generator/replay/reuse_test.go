package replay

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// A Cache reuses the last replay while its inputs are what they were,
// resumes it after a commit, and replays the whole history again after an
// option of the Input changes or a checkout; what it returns is always
// what Read returns.
func TestCacheReusesResumesOrReplays(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", resumeSite)
	g.Write("tools/a.json", toolJSON("a", "A.", "x"))
	g.Commit("first")
	var c Cache
	input := func() Input { return Input{Config: load(t, g.Dir), Endpoint: cardEndpoint} }
	nothing := func() {}
	for _, step := range []struct {
		name    string
		change  func()
		strict  bool // Input.Strict
		reused  bool
		resumed bool // Output.Resumed: of a reused output, as it was made
	}{
		{"first build", nothing, false, false, false},
		{"nothing changed", nothing, false, true, false},
		{"a commit", func() { g.Write("tools/b.json", toolJSON("b", "B.")); g.Commit("add b") }, false, false, true},
		{"nothing changed again", nothing, false, true, true},
		{"strict", nothing, true, false, false},
		{"a checkout backwards", func() { g.Git("checkout", "-q", "HEAD~1") }, true, false, false},
		{"nothing changed after it", nothing, true, true, false},
	} {
		step.change()
		in := input()
		in.Strict = step.strict
		out, reused, err := c.Read(in)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if reused != step.reused || out.Resumed != step.resumed {
			t.Errorf("%s: reused %v, resumed %v; want %v, %v", step.name, reused, out.Resumed, step.reused, step.resumed)
		}
		in.Config = load(t, g.Dir)
		whole, err := readAndPlay(in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(out.Timeline, whole.Timeline) || !reflect.DeepEqual(out.Warnings, whole.Warnings) {
			t.Errorf("%s: the cache's replay differs from Read's", step.name)
		}
	}
}

// A Cache reading with a spool, for a build that writes once, takes no
// repository's state, before or after (git for-each-ref lists the tags
// of one), and keeps nothing; without a spool it takes both.
func TestCacheTakesNoStateForASpooledReplay(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", resumeSite)
	g.Write("tools/a.json", toolJSON("a", "A.", "x"))
	g.Commit("first")
	spool := tempSpool(t)
	for _, s := range []*bundle.Spool{spool, nil} {
		trace := filepath.Join(t.TempDir(), "trace")
		t.Setenv("GIT_TRACE", trace)
		var c Cache
		if _, _, err := c.Read(Input{Config: load(t, g.Dir), Endpoint: cardEndpoint, Spool: s}); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(trace)
		states := strings.Count(string(data), "git for-each-ref")
		if want := map[bool]int{true: 0, false: 2}[s != nil]; states != want || (c.out != nil) != (s == nil) {
			t.Errorf("spool %v: %d states taken, output kept %v; want %d", s != nil, states, c.out != nil, want)
		}
	}
}
