package replay

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// smallChunks makes lists of n commits a chunk, a spooled one keeping
// every chunk in the spool, until the test ends.
func smallChunks(t *testing.T, n int) {
	chunk, held := commitChunk, heldChunks
	commitChunk, heldChunks = n, 0
	t.Cleanup(func() { commitChunk, heldChunks = chunk, held })
}

// A history read in chunks of two commits is the one read in a single
// chunk: a landing whose commits span chunks, both as git log prints them
// and once joined, is one commit as before, and two repositories' commits
// interleaved across chunks replay the same timeline, spooled or not.
func TestChunksChangeNoCommitNorEvent(t *testing.T) {
	smallChunks(t, commitChunk)
	dir := t.TempDir()
	lib := gittest.New(t, filepath.Join(dir, "lib"))
	g := gittest.New(t, filepath.Join(dir, "site"))
	g.Write("site.toml", letGoSite+letGoServer("s", "tools")+
		strings.Replace(letGoServer("l", "tools"), "tools = ", "repo = \"../lib\"\ntools = ", 1))
	g.Write("tools/a.json", toolJSON("a", "A."))
	g.Commit("site")
	for i := range 3 {
		lib.When = g.When.Add(-30 * time.Minute) // between the site's commits
		lib.Write("tools/l.json", toolJSON("l", "L.", fmt.Sprint("p", i)))
		lib.Commit(fmt.Sprint("l ", i))
		g.Write("tools/a.json", toolJSON("a", "A.", fmt.Sprint("p", i)))
		g.Commit(fmt.Sprint("a ", i))
	}
	// Three commits rebased at once, one committer time: the site's
	// commits 4 to 6 (from 0), which chunks of two read newest first
	// (7 6|5 4|3 2|1 0) split between 6 and 5.
	var run []string
	for i, f := range []string{"tools/b.json", "tools/a.json", "tools/b.json"} {
		if i > 0 {
			g.When = g.When.Add(-time.Hour) // Commit moves it on again
		}
		g.Write(f, toolJSON(f[6:7], "Rebased.", fmt.Sprint("r", i)))
		g.Commit(fmt.Sprint("rebased ", i))
		run = append(run, strings.TrimSpace(g.Git("rev-parse", "HEAD")))
	}
	g.Write("tools/b.json", toolJSON("b", "B."))
	g.Commit("b")

	replay := func(chunk int, spooled bool) ([]gitlog.Commit, string) {
		commitChunk = chunk
		in := Input{Config: load(t, g.Dir), Endpoint: cardEndpoint}
		if spooled {
			in.Spool = tempSpool(t)
		}
		h := &historyReader{cfg: in.Config, in: in, out: &Output{}, forms: newForms(in.Spool)}
		var read []gitlog.Commit
		h.in.Progress = func(string) {
			for c := range h.repos[0].commits.All() {
				read = append(read, *c)
			}
		}
		tl, err := h.read()
		if err != nil {
			t.Fatal(err)
		}
		return read, timelineText(h, tl)
	}
	whole, events := replay(1024, false)
	if len(whole) != 6 || whole[4].Hash != run[2] || whole[4].First != run[0] {
		t.Fatalf("in one chunk: %d commits, the fifth %s (first %s); want 6, the fifth the landing %s (first %s)",
			len(whole), whole[4].Hash, whole[4].First, run[2], run[0])
	}
	for _, spooled := range []bool{false, true} {
		chunked, got := replay(2, spooled)
		if !reflect.DeepEqual(chunked, whole) {
			t.Errorf("spool %v: in chunks of two, the commits read are\n%+v\nwant, as in one chunk,\n%+v", spooled, chunked, whole)
		}
		if got != events {
			t.Errorf("spool %v: in chunks of two, the replay is\n%s\nwant, as in one chunk,\n%s", spooled, got, events)
		}
	}
}

// A chunk of commits decodes as the commits encoded: hashes of either
// length, a landing's First, times to the nanosecond, a deletion, a
// commit with no changes; its committers and paths are shared. Cut
// short or with a byte changed, it decodes as other commits or fails,
// and never panics; a list whose chunk cannot be read back says so.
func TestCommitChunksDecodeAsEncoded(t *testing.T) {
	sha1, sha256 := strings.Repeat("ab", 20), strings.Repeat("cd", 32)
	blob := func(b byte) gitlog.ObjectID { return gitlog.ObjectID(strings.Repeat(string(b), 20)) }
	commits := []gitlog.Commit{
		{Hash: sha1, Time: time.Unix(1700000000, 0).UTC(), Committer: "a@example.com",
			Changes: []gitlog.Change{{Path: "site.toml", Blob: blob(1)}, {Path: "tools/a.json", Blob: blob(2)}}},
		{Hash: sha256, Time: time.Unix(-5, 999999999).UTC(), Committer: "b@example.com", First: sha1,
			Changes: []gitlog.Change{{Path: "tools/a.json"}}},
		{Hash: sha1, Time: time.Unix(0, 0).UTC(), Committer: "a@example.com"},
	}
	names := newChunkNames()
	data := names.encodeChunk(commits)
	got, err := names.decodeChunk(data)
	if err != nil || !reflect.DeepEqual(got, commits) {
		t.Fatalf("decoded as %+v, %v; want %+v", got, err, commits)
	}
	if len(names.names) != 4 {
		t.Errorf("%d names kept, want each committer and path once: %q", len(names.names), names.names)
	}
	for n := range data {
		if got, err := names.decodeChunk(data[:n]); err == nil && len(got) >= len(commits) {
			t.Errorf("cut to %d bytes: %d commits, no error", n, len(got))
		}
		for _, b := range []byte{0, 0x7f, 0x80, 0xff} {
			mangled := slices.Clone(data)
			mangled[n] = b
			names.decodeChunk(mangled) // must not panic
		}
	}

	// A list whose spool is gone reads commits with nothing in them, of
	// the number it holds, and says why.
	smallChunks(t, 2)
	spool := tempSpool(t)
	list := spooledCommits(spool, nil)
	for _, c := range commits {
		list.Append(c)
	}
	if list.chunks[0] != nil || list.failed() != nil {
		t.Fatalf("the full chunk is held (%v) or failed: %v", list.chunks[0] != nil, list.failed())
	}
	heldChunks = 1
	first := spooledCommits(spool, nil)
	for range 3 {
		first.Append(commits[0])
		first.Append(commits[1])
	}
	if first.chunks[0] == nil || first.chunks[1] != nil || first.chunks[2] != nil {
		t.Errorf("with one chunk held: chunks held %v %v %v, want the first only", first.chunks[0] != nil, first.chunks[1] != nil, first.chunks[2] != nil)
	}
	heldChunks = 0
	if got := *list.At(1); !reflect.DeepEqual(got, commits[1]) {
		t.Fatalf("read back as %+v, want %+v", got, commits[1])
	}
	list.cache = [decodedChunks]decodedChunk{}
	spool.Close()
	if n := len(slices.Collect(list.All())); n != 3 || list.failed() == nil {
		t.Errorf("with the spool closed: %d commits, failed %v; want 3 and an error", n, list.failed())
	}
}
