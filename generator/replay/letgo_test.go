package replay

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/gitlog"
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
			if rh.parsed.room > 2*want {
				t.Errorf("spool %v: the index of parsed blobs is made for %d, want at most %d", s != nil, rh.parsed.room, 2*want)
			}
		}
		if rh.parsed.len() != want {
			t.Errorf("spool %v: %d parsed blobs held at the end, want %d", s != nil, rh.parsed.len(), want)
		}
	}
}

// A spooled replay's timeline is the one a replay that keeps every blob
// makes, on a history whose blobs come back (see letGoHistory).
func TestLettingGoOfBlobsChangesNoEvent(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	letGoHistory(g)
	kept, tl := replayAt(t, g.Dir, nil)
	want := timelineText(kept, tl)
	h, tl := replayAt(t, g.Dir, tempSpool(t))
	if held, all := h.repos[0].parsed.len(), kept.repos[0].parsed.len(); held != 3 || all != 7 {
		t.Errorf("%d parsed blobs held at the spooled replay's end, %d at the other's; want the last tree's 3, and all 7", held, all)
	}
	got := timelineText(h, tl)
	if got != want {
		t.Errorf("spooled replay:\n%s\nwant, as one that keeps every blob:\n%s", got, want)
	}
}

// A SHA-256 repository's history replays as the same history in a SHA-1
// one does, spooled or not: its blob ids and commits' hashes are 32
// bytes, not 20. The history brings blobs back (see letGoHistory), and
// moves a tool file unchanged, one blob the log names at two paths.
func TestSHA256HistoryReplaysAsSHA1(t *testing.T) {
	smallChunks(t, 2) // the commits' ids of either length through the spool
	var want string
	for _, format := range []string{"sha1", "sha256"} {
		g := gittest.New(t, t.TempDir())
		if format == "sha256" {
			g = gittest.NewSHA256(t, t.TempDir())
		}
		letGoHistory(g)
		g.Git("mv", "more/b.json", "more/c.json")
		g.Commit("b moved")
		g.Write("more/b.json", toolJSON("b", "B.", "x"))
		g.Commit("b back beside its copy")
		hashes := strings.Fields(g.Git("log", "--format=%H"))
		for _, s := range []*bundle.Spool{nil, tempSpool(t)} {
			h, tl := replayAt(t, g.Dir, s)
			ids := map[string]int{"sha1": len(h.repos[0].parsed.sha1), "sha256": len(h.repos[0].parsed.sha256)}
			if ids[format] == 0 || h.repos[0].parsed.len() != ids[format] {
				t.Errorf("%s, spool %v: %v blobs held by ids of each length", format, s != nil, ids)
			}
			// The commits are named by their number, oldest first.
			got := timelineText(h, tl)
			for i, c := range hashes {
				n := fmt.Sprint("c", len(hashes)-i)
				got = strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(got, c, n), c[:12], n), c[:7], n)
			}
			if want == "" {
				want = got
			} else if got != want {
				t.Errorf("%s, spool %v:\n%s\nwant, as the SHA-1 repository's:\n%s", format, s != nil, got, want)
			}
		}
	}
	if !strings.Contains(want, "com.example/m b ") {
		t.Errorf("no version of b in more:\n%s", want)
	}
}

// letGoHistory writes a history whose blobs come back: a revert adds an
// old version back after it left the tree, one blob is at two paths and
// leaves one, and servers no longer followed are followed again later,
// their whole tree read afresh, blobs that no change named for a long
// time with it.
func letGoHistory(g *gittest.Repo) {
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

// The blob table frees a chunk of entries once every blob in it is let
// go of, and the form no handle names of each blob let go of, while the
// blobs left are held as they were.
func TestBlobTableFreesWhatItLetsGoOf(t *testing.T) {
	blobs := newBlobTable()
	id := func(i int) gitlog.ObjectID { return gitlog.ObjectID(fmt.Sprintf("%020d", i)) }
	for i := range 2*chunkEntries + 1 {
		p := parsedTool{at: toolFile{"a", "tools/a.json"}, handle: bundle.HandleBit | uint64(i)}
		if i%2 == 1 {
			p = parsedTool{at: toolFile{"", "tools/a.json"}, form: fmt.Errorf("blob %d is no tool file", i)}
		}
		blobs.put(id(i), p)
		blobs.use(id(i))
	}
	for i := range chunkEntries + 2 {
		blobs.release(id(i))
	}
	if blobs.len() != chunkEntries-1 || blobs.chunks[0] != nil || blobs.chunks[1] == nil || len(blobs.files) != 2 {
		t.Fatalf("%d blobs held, chunks freed %v %v, %d names and paths; want %d, the first chunk only, 2",
			blobs.len(), blobs.chunks[0] == nil, blobs.chunks[1] == nil, len(blobs.files), chunkEntries-1)
	}
	if held := slices.DeleteFunc(slices.Clone(blobs.other), func(h heldForm) bool { return h.form == nil }); len(held) != chunkEntries/2-1 {
		t.Errorf("%d forms no handle names held, want %d", len(held), chunkEntries/2-1)
	}
	for _, i := range []int{chunkEntries + 2, chunkEntries + 3, 2 * chunkEntries} {
		p, ok := blobs.get(id(i))
		if !ok || p.at.path != "tools/a.json" || (i%2 == 0) != (p.handle == bundle.HandleBit|uint64(i)) || (i%2 == 1) != (p.err() != nil) {
			t.Errorf("blob %d held as %+v, %v", i, p, ok)
		}
	}
	blobs.shrink()
	if blobs.room != chunkEntries-1 {
		t.Errorf("the index is made for %d, want %d", blobs.room, chunkEntries-1)
	}
}
