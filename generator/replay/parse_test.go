package replay

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// A blob read while git log walks is parsed then if it was asked for at a
// path some server's glob matches, and not otherwise.
func TestEarlyParseParsesToolFilesAsTheyArrive(t *testing.T) {
	e := startEarlyParse([]*serverFiles{newServerFiles(0, "", "tools/*.json", []string{"tools/skip.json"})}, nil)
	e.ask("1", "tools/a.json")
	e.ask("2", "README.md")
	e.ask("3", "tools/skip.json")
	for _, id := range []gitlog.ObjectID{"1", "2", "3", "4"} {
		if took := e.arrived(id, []byte(toolJSON("t"+string(id), "T."))); took != (id == "1") {
			t.Errorf("blob %s taken to parse: %v", id, took)
		}
	}
	asked, _ := e.finish()
	if asked.len() != 3 || !asked.has("1") || !asked.has("2") || !asked.has("3") {
		t.Fatalf("%d blobs asked for, want 1, 2 and 3", asked.len())
	}
	if p := held(asked, "1"); p.err() != nil || p.at.name != "t1" || p.at.path != "tools/a.json" {
		t.Errorf("blob 1 parsed as %+v, want tool t1 read from tools/a.json", p)
	}
	for _, id := range []gitlog.ObjectID{"2", "3"} {
		if p := held(asked, id); p.at.name != "" || p.form != nil || p.handle != 0 {
			t.Errorf("blob %s, at no tool file's path, parsed as %+v", id, p)
		}
	}
}

// A blob is asked for once, however many commits name it; one the log
// (newest first) names at an older path than its first is moved, and read
// as the oldest.
func TestEarlyParseAsksForEachBlobOnce(t *testing.T) {
	e := startEarlyParse([]*serverFiles{newServerFiles(0, "", "tools/*.json", nil)}, nil)
	for _, ask := range []struct {
		id   gitlog.ObjectID
		path string
		new  bool
	}{
		{"1", "tools/later.json", true},
		{"1", "tools/later.json", false},
		{"1", "tools/middle.json", false},
		{"1", "tools/first.json", false},
		{"2", "tools/b.json", true},
		{"2", "tools/old.json", false},
		{"2", "tools/b.json", false}, // moved there and back
	} {
		if got := e.ask(ask.id, ask.path); got != ask.new {
			t.Errorf("blob %s at %s: asked for %v, want %v", ask.id, ask.path, got, ask.new)
		}
	}
	asked, moved := e.finish()
	if got := oldest(asked, moved, "1"); got != "tools/first.json" {
		t.Errorf("blob 1 read as %s, want tools/first.json", got)
	}
	if got := oldest(asked, moved, "2"); got != "tools/b.json" || len(moved) != 1 {
		t.Errorf("blob 2 read as %s, moved %v; want tools/b.json, and only blob 1 moved", got, moved)
	}
}

// The record of a parse gives back the tool as the parse returned it,
// whether its canonical form is held or kept in the spool.
func TestParsedToolGivesBackTheTool(t *testing.T) {
	data := []byte(toolJSON("a", "A."))
	want, err := tools.ParseCanonical("tools/x.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := (*forms)(nil).parse("tools/x.json", data).tool(nil); !reflect.DeepEqual(got, want) {
		t.Errorf("held: %+v, want %+v", got, want)
	}
	spool, err := bundle.NewSpool()
	if err != nil {
		t.Fatal(err)
	}
	defer spool.Close()
	f := newForms(spool)
	p := f.parse("tools/x.json", data)
	if p.handle == 0 || p.form != nil {
		t.Errorf("spooled: the blob holds its form as %T, not by its handle in the spool", p.form)
	}
	got := p.tool(f)
	canonical, err := got.ReadCanonical()
	if got.Stored == nil || got.Canonical != nil || err != nil || !bytes.Equal(canonical, want.Canonical) {
		t.Errorf("spooled: %+v reads %q, %v; want the canonical form %q, kept in the spool", got, canonical, err, want.Canonical)
	}
	got.Stored, got.Canonical = nil, canonical
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spooled: %+v, want %+v", got, want)
	}
	blobs := newBlobTable()
	blobs.put("1", p)
	blobs.put("2", f.parse("tools/x.json", []byte(" "+toolJSON("a", "A."))))
	again := held(blobs, "2")
	if len(blobs.files) != 1 || again.at != p.at {
		t.Error("two blobs of one tool at one path hold its name and path twice")
	}
	if tool := again.tool(f); tool.SHA256 != want.SHA256 {
		t.Errorf("a blob reformatted reads back the SHA256 %s, want %s", tool.SHA256, want.SHA256)
	} else if form, err := tool.ReadCanonical(); err != nil || !bytes.Equal(form, want.Canonical) {
		t.Errorf("a blob reformatted reads back %q, %v; want the same form", form, err)
	}
	if failed := f.parse("tools/z.json", []byte("{")); failed.err() == nil || failed.at.path != "tools/z.json" {
		t.Errorf("a blob that is no tool file parsed as %+v", failed)
	}
}

// While queuedBytes of blobs wait to be parsed, a blob that arrives waits
// for room; parsing a blob makes room.
func TestEarlyParseHoldsNoMoreThanItsQueue(t *testing.T) {
	e := startEarlyParse([]*serverFiles{newServerFiles(0, "", "tools/*.json", nil)}, nil)
	e.ask("1", "tools/a.json")
	e.ask("2", "tools/b.json")
	e.mu.Lock()
	e.queued = queuedBytes // as if a full queue waited
	e.mu.Unlock()
	took := make(chan bool)
	go func() { took <- e.arrived("1", []byte(toolJSON("a", "A."))) }()
	select {
	case <-took:
		t.Fatal("a blob was queued behind a full queue")
	case <-time.After(50 * time.Millisecond):
	}
	e.mu.Lock()
	e.queued = 0 // as if the worker had taken what waited
	e.room.Signal()
	e.mu.Unlock()
	select {
	case ok := <-took:
		if !ok {
			t.Fatal("the blob was not taken to parse")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the blob still waits with room in the queue")
	}
	if !e.arrived("2", []byte(toolJSON("b", "B."))) {
		t.Fatal("the second blob was not taken to parse")
	}
	if asked, _ := e.finish(); held(asked, "1").at.name != "a" || held(asked, "2").at.name != "b" || e.queued != 0 {
		t.Errorf("parsed %+v, %d bytes still queued; want tools a and b, and none", asked, e.queued)
	}
}

// A blob is read as the file it first was in history: one that is not a
// valid tool file is reported at that path, although the log (newest first)
// names it at its later path first.
func TestBlobIsReadAtItsFirstPath(t *testing.T) {
	out := readMovedFile(t, `{"name": "bad"}`)
	warnings := fmt.Sprintf("%q", out.Warnings)
	if strings.Count(warnings, "tools/first.json") != 2 || strings.Contains(warnings, "tools/later.json") {
		t.Errorf("warnings:\n%s\nwant the invalid file reported twice as tools/first.json, the path it was first read at", warnings)
	}
}

// A valid tool file moved unchanged is one blob, which the early parse
// read at its later path and kept no contents of: it is read again, and
// parsed at the path it first was at.
func TestMovedToolFileIsReadAgain(t *testing.T) {
	out := readMovedFile(t, toolJSON("a", "A."))
	tl := out.Timeline.Servers[0].Tools
	if len(out.Warnings) != 0 || len(tl) != 2 || tl[0].Name != "a" {
		t.Fatalf("warnings %q, tools %+v; want tools a and ok, and no warning", out.Warnings, tl)
	}
	for _, v := range tl[0].Versions() {
		if v.Tool.Name != "a" || v.Tool.File != "tools/first.json" {
			t.Errorf("version %s read from %s; want tool a from tools/first.json", v.Tool.Name, v.Tool.File)
		}
	}
}

// The versions read from history are kept in canonical form, without their
// decoded objects until the replay reaches each: held all at once, a long
// history's objects cost several times its files' size.
func TestVersionsAreKeptUndecoded(t *testing.T) {
	globs := []*serverFiles{newServerFiles(0, "", "tools/*.json", nil)}
	e := startEarlyParse(globs, nil)
	e.ask("1", "tools/a.json")
	e.ask("2", "tools/b.json")
	e.arrived("1", []byte(toolJSON("a", "A.")))
	rh := &repoHistory{blobs: map[gitlog.ObjectID][]byte{}}
	asked, moved := e.finish()
	if err := rh.keepRead(globs, asked, moved, map[gitlog.ObjectID][]byte{"2": []byte(toolJSON("b", "B."))}, nil); err != nil {
		t.Fatal(err)
	}
	for _, id := range []gitlog.ObjectID{"1", "2"} {
		p := held(rh.parsed, id).tool(rh.forms)
		if held(rh.parsed, id).err() != nil || p.Object != nil || len(p.Canonical) == 0 {
			t.Errorf("blob %s kept with object %v, %d canonical bytes, error %v; want its canonical form only", id, p.Object != nil, len(p.Canonical), held(rh.parsed, id).err())
		}
	}
	p, err := rh.tool("tools/b.json", "2")
	if got := rh.forms.decode(p.tool(rh.forms)); err != nil || got.Object["name"] != "b" || held(rh.parsed, "2").tool(rh.forms).Object != nil {
		t.Errorf("decoded %v, %v; want the object made again", got.Object, err)
	}
}

// The latest version of each tool in the timeline keeps its decoded
// object, which the pages compare the working tree with; the others don't.
func TestReadDecodesOnlyTheLatestVersions(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\ntitle = \"T\"\n\n[[servers]]\nname = \"com.example/s\"\ndescription = \"S.\"\nversion = \"1.0.0\"\ntools = \"tools/*.json\"\n")
	for _, desc := range []string{"One.", "Two.", "Three."} {
		g.Write("tools/a.json", toolJSON("a", desc))
		g.Commit("a: " + desc)
	}
	out, err := readAndPlay(Input{Config: load(t, g.Dir), Endpoint: cardEndpoint})
	if err != nil {
		t.Fatal(err)
	}
	earlier := 0
	for _, s := range out.Timeline.Servers {
		for _, th := range s.Tools {
			for i, v := range th.Versions() {
				latest := i == len(th.Versions())-1
				if latest && v.Tool.Object["name"] != th.Name {
					t.Errorf("%s %s, the latest version: object %v, want the tool decoded", th.Name, v.Version, v.Tool.Object)
				}
				if !latest && v.Tool.Object != nil {
					t.Errorf("%s %s, an earlier version, keeps its object", th.Name, v.Version)
				}
				if !latest {
					earlier++
				}
			}
		}
	}
	if earlier == 0 {
		t.Error("no earlier version in the timeline")
	}
}

// readMovedFile reads the history of a site whose tools/first.json, with
// the contents given, is moved to tools/later.json in the commit after the
// one that adds it beside a valid tools/ok.json.
func readMovedFile(t *testing.T, first string) *Output {
	t.Helper()
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\ntitle = \"T\"\n\n[[servers]]\nname = \"com.example/s\"\ndescription = \"S.\"\nversion = \"1.0.0\"\ntools = \"tools/*.json\"\n")
	g.Write("tools/ok.json", toolJSON("ok", "OK."))
	g.Write("tools/first.json", first)
	g.Commit("two tool files")
	g.Git("mv", "tools/first.json", "tools/later.json")
	g.Commit("moved")
	cfg, err := site.Load(filepath.Join(g.Dir, "site.toml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := readAndPlay(Input{Config: cfg, Endpoint: cardEndpoint})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Nothing a parse returns refers to the blob it parsed, whose buffer the
// early parse gives back (release) for the blobs read after.
func TestParseKeepsNothingOfTheBlob(t *testing.T) {
	for _, data := range []string{
		toolJSON("a", "A."),
		`{"inputSchema": {"type": "object", "properties": {"z": {}, "a": {"enum": ["x", 1.50]}}}, "name": "b"}`, // reordered, a number rewritten
		`{"name": "a b", "inputSchema": {"type": "object"}}`,                                                    // refused by the checks
		`{"name": "a", "inputSchema": {"type": "object"}, "x": [1,}`,                                            // not JSON
	} {
		blob := []byte(data)
		p := (*forms)(nil).parse("tools/t.json", blob)
		before := fmt.Sprintf("%+v %v", p.tool(nil), p.err())
		for i := range blob {
			blob[i] = '#'
		}
		if after := fmt.Sprintf("%+v %v", p.tool(nil), p.err()); after != before {
			t.Errorf("parse of %s changed with its blob:\n%s\n%s", data, before, after)
		}
	}
}

// A buffer given back is read into again by a blob it holds, and by no
// larger one.
func TestEarlyParseReusesBuffers(t *testing.T) {
	e := startEarlyParse(nil, nil)
	defer e.finish()
	b := e.buffer(100)
	if cap(b) < 4<<10 {
		t.Fatalf("a buffer of %d bytes for 100, want 4 KB at least", cap(b))
	}
	e.release(b)
	if again := e.buffer(cap(b)); &again[0] != &b[0] {
		t.Error("the buffer given back was not used again")
	}
	e.release(b)
	if larger := e.buffer(cap(b) + 1); &larger[0] == &b[0] || len(larger) != cap(b)+1 {
		t.Error("a blob larger than the buffer given back was read into it")
	}
}

// held returns what blobs holds of blob id.
func held(blobs *blobTable, id gitlog.ObjectID) parsedTool {
	p, _ := blobs.get(id)
	return p
}
