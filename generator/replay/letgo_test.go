package replay

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

const letGoSite = "base_url = \"https://example.com/\"\ntitle = \"T\"\n"

// letGoServer is a server of letGoSite whose tools are dir/*.json.
func letGoServer(name, dir string) string {
	return fmt.Sprintf("\n[[servers]]\nname = \"com.example/%s\"\ndescription = \"%s.\"\nversion = \"1.0.0\"\ntools = \"%s/*.json\"\n", name, name, dir)
}

// replayAt replays the history of the site in dir, spooled or not, and
// returns what it read and the timeline.
func replayAt(t *testing.T, dir string, spool *bundle.Spool) (*historyReader, *timeline.Timeline) {
	t.Helper()
	cfg := load(t, dir)
	h := &historyReader{cfg: cfg, in: Input{Config: cfg, Endpoint: cardEndpoint, Spool: spool}, out: &Output{}, forms: newForms(spool)}
	tl, err := h.read()
	if err != nil {
		t.Fatal(err)
	}
	return h, tl
}

// A spooled replay lets go of each tool blob it parsed once no step to
// come can ask for it: at its end it holds those of the last tree, in a
// map made for about as many. One that can be resumed keeps them all.
func TestSpooledReplayLetsGoOfTheBlobsItParsed(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", letGoSite+letGoServer("s", "tools"))
	for i := range 40 {
		g.Write("tools/a.json", toolJSON("a", "A.", fmt.Sprint("p", i)))
		if i%10 == 0 {
			g.Write("tools/b.json", toolJSON("b", "B.", fmt.Sprint("p", i)))
		}
		g.Commit(fmt.Sprintf("step %d", i))
	}
	for _, s := range []*bundle.Spool{tempSpool(t), nil} {
		h, tl := replayAt(t, g.Dir, s)
		if n := len(tl.Servers[0].Tool("a").Versions()); n != 40 {
			t.Errorf("spool %v: %d versions of a, want 40", s != nil, n)
		}
		rh := h.repos[0]
		want := 44 // every version of both files
		if s != nil {
			want = 2 // the last of each
			if rh.room > 2*want {
				t.Errorf("spool %v: the map of parsed blobs is made for %d, want at most %d", s != nil, rh.room, 2*want)
			}
		}
		if len(rh.parsed) != want {
			t.Errorf("spool %v: %d parsed blobs held at the end, want %d", s != nil, len(rh.parsed), want)
		}
	}
}

// A spooled replay's timeline is the one a replay that keeps every blob
// makes, on a history whose blobs come back: a revert adds an old version
// back after it left the tree, one blob is at two paths and leaves one,
// and servers no longer followed are followed again later, their whole
// tree read afresh, blobs that no change named for a long time with it.
func TestLettingGoOfBlobsChangesNoEvent(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	both := letGoSite + letGoServer("s", "tools") + letGoServer("m", "more")
	g.Write("site.toml", both)
	g.Write("tools/a.json", toolJSON("a", "A.", "x"))
	g.Write("more/m.json", toolJSON("m", "M.", "x"))
	g.Commit("start")
	g.Write("tools/a.json", toolJSON("a", "A.", "x", "y"))
	g.Commit("a changed")
	revert := func(rev string) {
		g.When = g.When.Add(time.Hour)
		g.Git("revert", "--no-edit", "--no-gpg-sign", rev)
	}
	revert("HEAD")
	g.Write("tools/b.json", toolJSON("b", "B.", "x"))
	g.Commit("b added")
	g.Write("more/b.json", toolJSON("b", "B.", "x")) // b's blob at two paths
	g.Commit("b in more too")
	g.Git("rm", "-q", "tools/b.json")
	g.Commit("b in more only")
	g.Write("site.toml", letGoSite+letGoServer("s", "tools"))
	g.Write("tools/a.json", toolJSON("a", "A, again.", "x"))
	g.Commit("m no longer followed")
	g.Write("tools/a.json", toolJSON("a", "A.", "x", "z"))
	g.Commit("a changed while m is not followed")
	g.Write("site.toml", both)
	g.Commit("m followed again")
	g.Write("more/m.json", toolJSON("m", "M.", "x", "y"))
	g.Commit("m changed")
	g.Write("site.toml", letGoSite+letGoServer("m", "more"))
	g.Commit("s no longer followed")
	g.Write("site.toml", letGoSite+letGoServer("m", "more")+strings.Replace(letGoServer("s", "tools"), "tools/*", "tools/a*", 1))
	g.Commit("s followed again, for a only")
	revert("HEAD~4") // a changed while m was not followed

	kept, tl := replayAt(t, g.Dir, nil)
	want := timelineText(kept, tl)
	h, tl := replayAt(t, g.Dir, tempSpool(t))
	if held, all := len(h.repos[0].parsed), len(kept.repos[0].parsed); held != 3 || all != 7 {
		t.Errorf("%d parsed blobs held at the spooled replay's end, %d at the other's; want the last tree's 3, and all 7", held, all)
	}
	got := timelineText(h, tl)
	if got != want {
		t.Errorf("spooled replay:\n%s\nwant, as one that keeps every blob:\n%s", got, want)
	}
}

// timelineText writes out a replay's versions, events and warnings.
func timelineText(h *historyReader, tl *timeline.Timeline) string {
	var b strings.Builder
	for _, srv := range tl.Servers {
		for _, th := range srv.Tools {
			for _, v := range th.Versions() {
				change, _ := json.Marshal(v.Change())
				fmt.Fprintf(&b, "%s %s %s %s %s from %s %s\n", srv.Name, th.Name, v.Version, v.Commit[:7], v.Tool.SHA256[:12], v.From, change)
			}
		}
	}
	for e := range tl.Events() {
		payload, _ := json.Marshal(e.Payload())
		fmt.Fprintf(&b, "%s %s %s %s | %s | %s | %s\n", e.Commit[:7], e.Type, e.EndpointID, e.Key, e.Title(), e.Summary(), payload)
	}
	for _, w := range h.out.Warnings {
		fmt.Fprintln(&b, "warning:", w)
	}
	return b.String()
}
