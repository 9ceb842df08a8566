package replay

import (
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// Servers of one repository, configured at different commits, are each
// backfilled from the history before their own: one whose tools came
// before it takes its versions from release tags (here, none), one whose
// tools came with it does not, and the commits read for them all at once
// decide each at its own commit, spooled or not.
func TestBackfillDecidesEachServerAtItsCommit(t *testing.T) {
	smallChunks(t, 1)
	g := gittest.New(t, t.TempDir())
	g.Write("a/a.json", toolJSON("a", "A."))
	g.Commit("a")
	g.Write("b/b.json", toolJSON("b", "B."))
	g.Write("site.toml", letGoSite+letGoServer("a", "a")+letGoServer("b", "b"))
	g.Commit("the site, with b")
	g.Write("c/c.json", toolJSON("c", "C."))
	g.Commit("c")
	g.Write("b/b.json", toolJSON("b", "B, again."))
	g.Commit("b again")
	g.Write("site.toml", letGoSite+letGoServer("a", "a")+letGoServer("b", "b")+letGoServer("c", "c"))
	g.Commit("c joins")
	for _, spool := range []*bundle.Spool{nil, tempSpool(t)} {
		h, _ := replayAt(t, g.Dir, spool)
		var backfilled []string
		for _, n := range h.out.Notices {
			if name, _, ok := strings.Cut(strings.TrimPrefix(n, "server com.example/"), ": the site's repository has no release tags"); ok {
				backfilled = append(backfilled, name)
			}
		}
		if !slices.Equal(backfilled, []string{"a", "c"}) {
			t.Errorf("spool %v: backfilled from release tags: %q, want a and c\nnotices: %q", spool != nil, backfilled, h.out.Notices)
		}
	}
}
