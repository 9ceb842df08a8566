package bundle

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recordPaths are immutable files whose paths sort in ways a comparison
// of their directories and names apart would get wrong: a directory that
// starts another ("t" and "t-2", "t.x"), one inside another ("t/v"), and
// names that start with or sort around "/".
var recordPaths = []string{
	"/.well-known/mcp/schemas/a/t/1.0.0.json",
	"/.well-known/mcp/schemas/a/t/1.10.0.json",
	"/.well-known/mcp/schemas/a/t/1.9.0.json",
	"/.well-known/mcp/schemas/a/t-2/1.0.0.json",
	"/.well-known/mcp/schemas/a/t.x/1.0.0.json",
	"/.well-known/mcp/schemas/a/t/v/1.0.0.json",
	"/.well-known/mcp/schemas/a/t0/1.0.0.json",
	"/.well-known/mcp/schemas/a/t/-.json",
	"/.well-known/mcp/schemas/a/t/0.json",
	"/.well-known/mcp/schemas/b/t/1.0.0.json",
	"/.well-known/agent-feed/archive-1.xml",
	"/.well-known/agent-feed/archive-10.xml",
	"/.well-known/agent-feed/archive-2.xml",
}

// heldPaths are files held whole, by path before, between and after the
// records.
var heldPaths = []string{
	"/.well-known/agent-feed.xml",
	"/.well-known/agent-feed0.html",
	"/.well-known/mcp/schemas.html",
	"/.well-known/mcp/schemas0/x.html",
	"/.well-known/mcp/server-card.json",
	"/index.html",
}

// A spooled bundle holds its immutable files as records, and is the same
// bundle for every reader as one that holds them whole: the same files in
// the same order (All, Files, Batches), the same bytes, types and headers,
// found by Get, and the same paths refused.
func TestRecordsAreTheFilesTheyHold(t *testing.T) {
	s, _ := newSpool(t)
	spooled, whole := NewSpooled(s), New()
	all := slices.Concat(recordPaths, heldPaths)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	for i, p := range all {
		body, typ := fmt.Appendf(nil, "file %d at %s", i, p), "application/json"
		if strings.HasSuffix(p, ".xml") {
			typ = "application/atom+xml"
		}
		must(t, spooled.Add(p, body, typ))
		must(t, whole.Add(p, body, typ))
		if i == len(all)/2 {
			spooled.Files() // the order asked for halfway, then merged with the rest
		}
	}
	if n := len(spooled.records.list); n != len(recordPaths) {
		t.Fatalf("%d records, want %d", n, len(recordPaths))
	}
	header := func(f *File) http.Header {
		return http.Header{"Content-Type": {f.ContentType}, "X-Dir": {filepath.Dir(f.Path)}}
	}
	spooled.SetHeaders(header)
	whole.SetHeaders(header)

	want, got := describe(t, whole.Files()), describe(t, spooled.Files())
	if !slices.Equal(got, want) {
		t.Errorf("spooled files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var batched []*File
	for batch := range spooled.Batches(4) {
		if len(batch) > 4 {
			t.Errorf("a batch of %d files, want at most 4", len(batch))
		}
		batched = append(batched, batch...)
	}
	if got := describe(t, batched); !slices.Equal(got, want) {
		t.Errorf("batched files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if spooled.Len() != whole.Len() {
		t.Errorf("Len %d, want %d", spooled.Len(), whole.Len())
	}
	for _, p := range all {
		f, ok := spooled.Get(p)
		w, _ := whole.Get(p)
		if !ok || !slices.Equal(describe(t, []*File{f}), describe(t, []*File{w})) {
			t.Errorf("Get(%s) = %v, %v", p, f, ok)
		}
	}
	for _, p := range []string{
		recordPaths[0],                      // a record's path again
		"/.well-known/mcp/schemas/a/t",      // a file where records need a directory
		recordPaths[0] + "/x",               // a directory where a record is
		"/.well-known/mcp/schemas/a/t/1.0.", // a prefix of a record's path: no clash
	} {
		errSpooled, errWhole := spooled.Add(p, []byte("x"), "text/plain"), whole.Add(p, []byte("x"), "text/plain")
		if (errSpooled == nil) != (errWhole == nil) || errSpooled != nil && errSpooled.Error() != errWhole.Error() {
			t.Errorf("Add(%s): spooled %v, whole %v", p, errSpooled, errWhole)
		}
	}
	if _, ok := spooled.Get("/.well-known/mcp/schemas/a/t/2.0.0.json"); ok {
		t.Error("Get found a file no record holds")
	}
}

// describe lists each file's path, type, headers and bytes.
func describe(t *testing.T, files []*File) []string {
	t.Helper()
	var out []string
	for _, f := range files {
		body, err := f.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %s %v %q", f.Path, f.ContentType, f.Header, body))
	}
	return out
}

// A path whose hash another record's path has is found all the same: the
// index holds the first, and the collided map the other.
func TestRecordsFindAPathWhoseHashIsTaken(t *testing.T) {
	s, _ := newSpool(t)
	r := newRecords()
	first, second := recordPaths[0], recordPaths[1]
	at, err := s.Put([]byte("first"))
	must(t, err)
	if !r.add(first, at, "application/json") {
		t.Fatal("add refused a record")
	}
	// The second path's hash, taken by the first: what a collision does.
	r.index[maphash.String(r.seed, second)] = 0
	at, err = s.Put([]byte("second"))
	must(t, err)
	if !r.add(second, at, "application/json") {
		t.Fatal("add refused a record")
	}
	if len(r.collided) != 1 {
		t.Fatalf("collided holds %d paths, want 1", len(r.collided))
	}
	for i, p := range []string{first, second} {
		if got, ok := r.find(p); !ok || got != uint32(i) {
			t.Errorf("find(%s) = %d, %v; want %d", p, got, ok, i)
		}
	}
	if _, ok := r.find(recordPaths[2]); ok {
		t.Error("find found a path no record holds")
	}
}

// compareJoined orders joined strings as strings.Compare orders them
// joined, whichever parts they are cut into.
func TestCompareJoined(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const letters = "ab/-.~"
	word := func() string {
		b := make([]byte, rng.IntN(4))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
	for range 20000 {
		a, b := [3]string{word(), word(), word()}, [3]string{word(), word(), word()}
		want := strings.Compare(strings.Join(a[:], ""), strings.Join(b[:], ""))
		if got := compareJoined(a, b); got != want {
			t.Fatalf("compareJoined(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

// A record holds one of the headers its bundle's records share, each
// held once, and any number past that: a header of its own for each of
// many files is kept, not lost.
func TestRecordHeadersPastTheShared(t *testing.T) {
	s, _ := newSpool(t)
	b := NewSpooled(s)
	const n = 300
	for i := range n {
		must(t, b.Add(fmt.Sprintf("/.well-known/mcp/schemas/a/t/%d.json", i), []byte("{}"), "application/json"))
	}
	b.SetHeaders(func(f *File) http.Header {
		if strings.HasSuffix(f.Path, "0.json") {
			return http.Header{"Cache-Control": {"immutable"}} // equal, not the same map
		}
		return http.Header{"X-Path": {f.Path}}
	})
	for i := range n {
		p := fmt.Sprintf("/.well-known/mcp/schemas/a/t/%d.json", i)
		f, _ := b.Get(p)
		want := p
		if strings.HasSuffix(p, "0.json") {
			if got := f.Header.Get("Cache-Control"); got != "immutable" {
				t.Errorf("%s: Cache-Control %q", p, got)
			}
			continue
		}
		if got := f.Header.Get("X-Path"); got != want {
			t.Errorf("%s: X-Path %q, want %q", p, got, want)
		}
	}
	if shared := slices.IndexFunc(b.records.headers, func(h http.Header) bool { return h.Get("Cache-Control") != "" }); shared < 0 ||
		slices.ContainsFunc(b.records.headers[shared+1:], func(h http.Header) bool { return h.Get("Cache-Control") != "" }) {
		t.Error("the equal headers are not held once")
	}
}

// A write's temporary names are its own: an output path that would take
// one is refused, and whatever an interrupted write left at one (a file,
// a directory) is replaced, then gone.
func TestWriteOwnsItsTemporaryNames(t *testing.T) {
	if err := New().Add("/d/"+tempPrefix+"0", []byte("x"), "text/plain"); err == nil {
		t.Error("Add took a temporary name as an output path")
	}
	if err := New().Add("/"+tempPrefix+"d/x", []byte("x"), "text/plain"); err == nil {
		t.Error("Add took a temporary name as a directory of an output path")
	}
	root := t.TempDir()
	out := filepath.Join(root, "public")
	s, _ := newSpool(t)
	b := NewSpooled(s)
	must(t, b.Add("/index.html", []byte("home"), "text/html"))
	must(t, b.Add("/.well-known/agent-feed/archive-1.xml", []byte("<feed/>"), "application/atom+xml"))
	write(t, New(), out, WriteOptions{Root: root})
	// Both temporary names the write makes, whatever its refs are.
	for ref := range uint32(4) {
		must(t, os.MkdirAll(filepath.Join(out, ".well-known", "agent-feed", fmt.Sprintf("%s%d", tempPrefix, ref+fromRecord), "x"), 0o755))
		must(t, os.WriteFile(filepath.Join(out, fmt.Sprintf("%s%d", tempPrefix, ref)), []byte("left"), 0o644))
	}
	if got := write(t, b, out, WriteOptions{Root: root}); got.Written != 2 {
		t.Errorf("write over what an interrupted one left: %+v, want 2 written", got)
	}
	if data, err := os.ReadFile(filepath.Join(out, "index.html")); err != nil || string(data) != "home" {
		t.Errorf("index.html: %q, %v", data, err)
	}
	assertNoTemporaries(t, root)
}
