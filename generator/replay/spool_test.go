package replay

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/gittest"
	"github.com/wellknown-dev/wellknown/internal/spooltest"
)

// A replay with a spool keeps no version's canonical form in memory: each
// distinct form lies in the spool once (a version reformatted, or back to
// an earlier one, shares it), reads back as the bytes its SHA-256 names,
// and the schema changes are those of a replay that keeps them in memory.
// ReadStored then reads back only the newest versions and the last tools.
func TestSpooledReplayKeepsEachFormOnceInTheSpool(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\ntitle = \"T\"\n\n[[servers]]\nname = \"com.example/s\"\ndescription = \"S.\"\nversion = \"1.0.0\"\ntools = \"tools/*.json\"\n")
	for i, content := range []string{
		toolJSON("a", "A.", "x"),
		toolJSON("a", "A.", "x", "y"),
		"\n" + toolJSON("a", "A.", "x", "y"), // reformatted: the same form
		toolJSON("a", "A, again.", "x", "y"),
		toolJSON("a", "A.", "x", "y"), // back to an earlier form
		toolJSON("a", "A.", "y"),
	} {
		g.Write("tools/a.json", content)
		g.Commit(fmt.Sprintf("step %d", i))
	}
	cfg := load(t, g.Dir)
	spool := tempSpool(t)
	spooled, err := readAndPlay(Input{Config: cfg, Endpoint: cardEndpoint, Spool: spool})
	if err != nil {
		t.Fatal(err)
	}
	inMemory, err := readAndPlay(Input{Config: load(t, g.Dir), Endpoint: cardEndpoint})
	if err != nil {
		t.Fatal(err)
	}
	versions := spooled.Timeline.Servers[0].Tools[0].Versions()
	if len(versions) != 5 {
		t.Fatalf("%d versions, want 5", len(versions))
	}
	stored := map[string]bundle.Spooled{}
	for i, v := range versions {
		at, ok := v.Tool.Stored.(*bundle.Spooled)
		if v.Tool.Canonical != nil || !ok {
			t.Fatalf("version %s: %d canonical bytes in memory, stored %T; want them in the spool only", v.Version, len(v.Tool.Canonical), v.Tool.Stored)
		}
		if other, seen := stored[v.Tool.SHA256]; seen && other != *at {
			t.Errorf("version %s: its form is in the spool twice", v.Version)
		}
		stored[v.Tool.SHA256] = *at
		canonical, err := at.Read()
		if sum := sha256.Sum256(canonical); err != nil || hex.EncodeToString(sum[:]) != v.Tool.SHA256 {
			t.Errorf("version %s read back as %q, %v; want the form its SHA-256 names", v.Version, canonical, err)
		}
		if want := inMemory.Timeline.Servers[0].Tools[0].Versions()[i]; !reflect.DeepEqual(v.Change(), want.Change()) || v.Version != want.Version {
			t.Errorf("version %s, change %+v; kept in memory: %s, %+v", v.Version, v.Change(), want.Version, want.Change())
		}
	}
	if len(stored) != 4 {
		t.Errorf("%d distinct forms, want 4", len(stored))
	}
	// The timeline names a superseded version's bytes by their handle in
	// the spool, and makes their Spooled again at each call.
	history := spooled.Timeline.Servers[0].Tools[0]
	for i := range history.Len() - 1 {
		if a, b := history.At(i), history.At(i); a.Tool.Stored == b.Tool.Stored {
			t.Errorf("version %s: its bytes are held where they lie, not named by a handle", a.Version)
		}
	}
	checkReadStored(t, spooled.Timeline, 2)
}

// checkReadStored reads back the newest keep versions of tl's first tool
// and checks that those, and the tools of the server's last state, hold
// their bytes in memory, and no other version does.
func checkReadStored(t *testing.T, tl *timeline.Timeline, keep int) {
	t.Helper()
	if err := tl.ReadStored(keep); err != nil {
		t.Fatal(err)
	}
	versions := tl.Servers[0].Tools[0].Versions()
	for i, v := range versions {
		if held := v.Tool.Canonical != nil; held != (i >= len(versions)-keep) {
			t.Errorf("version %s of %d: bytes in memory %v after ReadStored(%d)", v.Version, len(versions), held, keep)
		}
	}
	for name, tool := range tl.Servers[0].Last.Tools {
		if canonical, _ := tool.Stored.Read(); string(tool.Canonical) != string(canonical) {
			t.Errorf("tool %s at the last commit: %q in memory, want %q", name, tool.Canonical, canonical)
		}
	}
}

// A replay with a spool, a build's that writes once, keeps its commits
// there and leaves nothing to resume from: at its last step, it holds no
// more of the commits the list gave after the read, nor of their
// changes, than its few chunks decoded (see commitList), each chunk
// decoded again since. One without keeps them all for the build after
// it.
func TestSpooledReplayKeepsItsCommitsInTheSpool(t *testing.T) {
	smallChunks(t, 1)
	g := gittest.New(t, t.TempDir())
	config := "base_url = \"https://example.com/\"\ntitle = \"T\"\n\n[[servers]]\nname = \"com.example/s\"\ndescription = \"S.\"\nversion = \"1.0.0\"\ntools = \"tools/*.json\"\n"
	g.Write("site.toml", config)
	g.Commit("site")
	const steps = 3 * decodedChunks
	for i := range steps {
		g.Write("tools/a.json", toolJSON("a", "A.", fmt.Sprint("p", i)))
		g.Commit(fmt.Sprintf("step %d", i))
	}
	// site.toml changed: the last step asks for the server's endpoint.
	g.Write("site.toml", strings.Replace(config, "S.", "S, again.", 1))
	g.Commit("described again")
	spool := tempSpool(t)
	for _, s := range []*bundle.Spool{spool, nil} {
		cfg := load(t, g.Dir)
		h := &historyReader{cfg: cfg, out: &Output{}, forms: newForms(s)}
		var listed []weak.Pointer[gitlog.Commit]
		var changes []weak.Pointer[gitlog.Change]
		listHeld, changesHeld := -1, -1 // when the endpoint was last asked for
		h.in = Input{Config: cfg, Spool: s,
			Progress: func(string) { // the history is read, and not replayed yet
				for c := range h.repos[0].commits.All() {
					listed = append(listed, weak.Make(c))
					changes = append(changes, weak.Make(&c.Changes[0]))
				}
			},
			Endpoint: func(srv site.Server) string {
				runtime.GC()
				listHeld, changesHeld = 0, 0
				for i := range listed {
					if listed[i].Value() != nil {
						listHeld++
					}
					if changes[i].Value() != nil {
						changesHeld++
					}
				}
				return cardEndpoint(srv)
			}}
		tl, err := h.read()
		if err != nil {
			t.Fatal(err)
		}
		if n := len(tl.Servers[0].Tools[0].Versions()); n != steps {
			t.Errorf("spool %v: %d versions, want %d", s != nil, n, steps)
		}
		if len(listed) != steps+2 {
			t.Fatalf("spool %v: %d commits read, want %d", s != nil, len(listed), steps+2)
		}
		most := len(listed)
		if s != nil {
			most = decodedChunks * commitChunk
		}
		if listHeld > most || changesHeld > most || s == nil && (listHeld != most || changesHeld != most) {
			t.Errorf("spool %v: at the last step, %d of the %d commits listed are held, and %d of their changes; want %d",
				s != nil, listHeld, len(listed), changesHeld, most)
		}
		if resumable := h.resume != nil; resumable != (s == nil) {
			t.Errorf("spool %v: resumable %v", s != nil, resumable)
		}
	}
}

// tempSpool returns a spool in a temporary directory of its own, closed
// when the test ends.
func tempSpool(t *testing.T) *bundle.Spool {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	spool, err := bundle.NewSpool()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { spool.Close() })
	return spool
}

// A form too large for a handle to name is kept all the same, and a
// blob holds it where it lies.
func TestFormsKeepAFormNoHandleNames(t *testing.T) {
	f := newForms(tempSpool(t))
	large := append(append([]byte(`{"name":"a","description":"`), strings.Repeat("x", 16<<20)...), `"}`...)
	at := f.store(large, fmt.Sprintf("%x", sha256.Sum256(large)))
	if _, ok := f.spool.Handle(at); ok || at == nil {
		t.Fatalf("a form of %d bytes kept at %v, which a handle names", len(large), at)
	}
	p := f.compact("tools/a.json", tools.Tool{Name: "a", Stored: at}, nil)
	if p.form != at || p.tool(f).Stored != at {
		t.Errorf("a blob holds %T for a form no handle names, gives back %v; want where it lies", p.form, p.tool(f).Stored)
	}
	if body, err := at.Read(); err != nil || !bytes.Equal(body, large) {
		t.Errorf("the form reads back %d bytes, %v; want those kept", len(body), err)
	}
}

// A form's SHA256 is kept in the spool with it, read back for the tool
// made of a blob that names the form by its handle, and kept a while
// once read; one that cannot be read back fails the replay.
func TestFormsKeepTheirSHA256InTheSpool(t *testing.T) {
	f := newForms(tempSpool(t))
	want := map[string]string{}
	var parsed []parsedTool
	for _, name := range []string{"a", "b", "c", "d"} {
		data := []byte(toolJSON(name, "A."))
		tool, err := tools.ParseCanonical("tools/"+name+".json", data)
		if err != nil {
			t.Fatal(err)
		}
		want[name] = tool.SHA256
		parsed = append(parsed, f.parse(tool.File, data))
	}
	for _, p := range parsed {
		if p.handle == 0 || p.sha256 != [sha256.Size]byte{} {
			t.Fatalf("%s: handle %x, SHA256 held %x; want a handle, and nothing held", p.at.name, p.handle, p.sha256)
		}
	}
	read, unread := parsed[:3], parsed[3]
	for _, p := range read {
		if got := p.tool(f).SHA256; got != want[p.at.name] {
			t.Errorf("%s: SHA256 %s, want %s", p.at.name, got, want[p.at.name])
		}
	}
	if f.failed() != nil {
		t.Fatal(f.failed())
	}
	if !spooltest.CutShort(t, 0) {
		t.Fatal("found no spool to cut short")
	}
	for _, p := range read {
		if got := p.tool(f).SHA256; got != want[p.at.name] {
			t.Errorf("%s, read back before the spool was cut short: SHA256 %s, want %s kept", p.at.name, got, want[p.at.name])
		}
	}
	if f.failed() != nil {
		t.Fatalf("SHA256s read back before the spool was cut short: %v", f.failed())
	}
	unread.tool(f)
	if err := f.failed(); err == nil || !strings.Contains(err.Error(), "keeping the tool versions") {
		t.Errorf("a SHA256 read back from a spool cut short: %v, want the replay to fail", err)
	}
}

// A spooled replay whose commits cannot be read back from the spool
// fails, and says so, whatever else then went wrong.
func TestSpooledReplayFailsWithoutItsCommits(t *testing.T) {
	smallChunks(t, 1)
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\ntitle = \"T\"\n\n[[servers]]\nname = \"com.example/s\"\ndescription = \"S.\"\nversion = \"1.0.0\"\ntools = \"tools/*.json\"\n")
	for i := range 3 * decodedChunks { // more than it keeps decoded
		g.Write("tools/a.json", toolJSON("a", "A.", fmt.Sprint("p", i)))
		g.Commit(fmt.Sprintf("step %d", i))
	}
	spool := tempSpool(t)
	in := Input{Config: load(t, g.Dir), Endpoint: cardEndpoint, Spool: spool,
		Progress: func(string) { spool.Close() }} // the history is read
	_, err := readAndPlay(in)
	if err == nil || !strings.Contains(err.Error(), "reading the history's commits back") {
		t.Errorf("replay = %v, want the commits that could not be read back", err)
	}
}

// A spooled replay keeps each full chunk of a tool's superseded versions
// in its spool (see timeline.Builder.KeepPastIn): with the spool cut
// short, a version of the first chunk, read back again, says nothing,
// and the spool keeps the error, where one held in memory would still be
// there.
func TestSpooledReplayKeepsPastVersionsInTheSpool(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	commits := make([]map[string]string, 2*128+3)
	for i := range commits {
		commits[i] = map[string]string{"tools/a.json": toolJSON("a", "A.", fmt.Sprint("p", i))}
	}
	commits[0]["site.toml"] = letGoSite + letGoServer("s", "tools")
	g.CommitEach("parameter", commits)
	spool := tempSpool(t)
	_, tl := replayAt(t, g.Dir, spool)
	th := tl.Servers[0].Tools[0]
	if th.Len() != len(commits) || th.At(0).Version != "1.0.0" {
		t.Fatalf("%d versions, the first %q; want %d, the first 1.0.0", th.Len(), th.At(0).Version, len(commits))
	}
	if !spooltest.CutShort(t, 0) {
		t.Fatal("found no spool to cut short")
	}
	th.At(200) // another chunk, so that the first is read back again
	if v := th.At(0); v.Version != "" || spool.ReadFailed() == nil {
		t.Errorf("with the spool cut short, the first version reads as %q, the spool's error %v; want nothing, and an error", v.Version, spool.ReadFailed())
	}
	if v := th.At(th.Len() - 2); v.Version == "" {
		t.Error("a version after the last full chunk, held, reads as nothing")
	}
}
