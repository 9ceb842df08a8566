package bundle

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"
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
	if n := int(spooled.records.n); n != len(recordPaths) {
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

// find finds every record, whether added since the last merge (recent)
// or before it (sorted), across merges made as recent fills and as the
// order is asked for, and no path that no record holds: a path that
// starts another's, or another's that starts it, a directory of records.
// order holds every record, by path, whenever it is asked for.
func TestRecordsFindAcrossMerges(t *testing.T) {
	dirs := []string{"a/t", "a/t-2", "a/t.x", "a/t/v", "a/t0", "b"}
	var all []string
	for k := range 2*mergeEvery + mergeEvery/2 {
		v := k / len(dirs)
		ext := []string{".json", ""}[v%2] // 1.3 and 1.3.json, 1.3 and 1.30
		all = append(all, fmt.Sprintf("/.well-known/mcp/schemas/%s/1.%d%s", dirs[k%len(dirs)], v/2, ext))
	}
	rand.New(rand.NewPCG(5, 6)).Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	held := map[string]uint32{}
	r := newRecords()
	check := func(when string, andOrder bool) {
		t.Helper()
		for _, p := range all[:len(held)] {
			for _, q := range []string{p, p + "x", p + "0", p[:len(p)-1], p + "/x", path.Dir(p), strings.Replace(p, "/1.", "/0.", 1)} {
				want, wantOK := held[q]
				if got, ok := r.find(q); ok != wantOK || got != want {
					t.Fatalf("%s: find(%s) = %d, %v; want %d, %v", when, q, got, ok, want, wantOK)
				}
			}
		}
		if !andOrder {
			return
		}
		order := r.order()
		got := make([]string, len(order))
		for i, rec := range order {
			got[i] = r.path(rec)
		}
		if want := slices.Sorted(maps.Keys(held)); !slices.Equal(got, want) {
			t.Fatalf("%s: order holds %d records, want %d, by path", when, len(got), len(want))
		}
	}
	s, _ := newSpool(t)
	at, err := s.Put([]byte("{}"))
	must(t, err)
	sawBoth := false
	for i, p := range all {
		if !r.add(p, at, "application/json") {
			t.Fatalf("add refused %s", p)
		}
		held[p] = uint32(i)
		if got, ok := r.find(p); !ok || got != uint32(i) {
			t.Fatalf("find(%s) just after its add = %d, %v; want %d", p, got, ok, i)
		}
		n := len(held)
		if len(r.recent) >= mergeEvery || len(r.sorted)+len(r.recent) != n {
			t.Fatalf("after %d adds, %d recent and %d sorted", n, len(r.recent), len(r.sorted))
		}
		sawBoth = sawBoth || len(r.recent) > 0 && len(r.sorted) > 0
		switch n {
		case 1, mergeEvery - 1: // all in recent
			check(fmt.Sprintf("after %d adds", n), false)
		case mergeEvery: // all in sorted
			if len(r.recent) != 0 {
				t.Fatalf("after %d adds, %d recent: no merge", n, len(r.recent))
			}
			check(fmt.Sprintf("after %d adds", n), false)
		case mergeEvery + 1, 2*mergeEvery + 7: // some in each
			check(fmt.Sprintf("after %d adds", n), false)
		case mergeEvery + mergeEvery/3:
			check("with the order asked for between merges", true) // which merges the recent ones
		}
	}
	if !sawBoth {
		t.Error("no record was found in recent while others were in sorted")
	}
	check("at the end", true)
}

// compareJoined orders joined strings as strings.Compare orders them
// joined, whichever parts they are cut into.
func TestCompareJoined(t *testing.T) {
	word := randomWords(rand.New(rand.NewPCG(3, 4)), 3)
	for range 20000 {
		a, b := [3]string{word(), word(), word()}, [3]string{word(), word(), word()}
		want := strings.Compare(strings.Join(a[:], ""), strings.Join(b[:], ""))
		if got := compareJoined(a, b); got != want {
			t.Fatalf("compareJoined(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

// A record's name lies in its chunk's names from where the one before
// it ends: of the longest a record holds, a whole chunk of them or one
// among shorter names; empty, first or last in a chunk or among others.
// A longer name is refused, and records are added after it all the same.
func TestRecordNamesInChunks(t *testing.T) {
	s, _ := newSpool(t)
	at, err := s.Put([]byte("{}"))
	must(t, err)
	r := newRecords()
	var ps []string
	add := func(p string) {
		t.Helper()
		if !r.add(p, at, "application/json") {
			t.Fatalf("add refused %.60s...", p)
		}
		ps = append(ps, p)
	}
	for i := range 2*chunkRecords + chunkRecords/2 {
		n := 5 + i%11
		switch k := i % chunkRecords; {
		case i < chunkRecords, i == chunkRecords+1:
			n = longestName
		case k == 0, k == chunkRecords-1, i == 2*chunkRecords+7:
			add(fmt.Sprintf("/.well-known/mcp/schemas/empty/%d/", i)) // an empty name, in a directory of its own
			continue
		}
		add(fmt.Sprintf("/.well-known/mcp/schemas/a/t%d/%d-%s", i%3, i, strings.Repeat("x", n-len(strconv.Itoa(i))-1)))
	}
	if r.add("/.well-known/mcp/schemas/a/t/"+strings.Repeat("x", longestName+1), at, "application/json") {
		t.Error("add took a name longer than a record holds")
	}
	add("/.well-known/mcp/schemas/a/t/after")
	if int(r.n) != len(ps) {
		t.Fatalf("%d records, want %d", r.n, len(ps))
	}
	for i, p := range ps {
		if got := r.path(uint32(i)); got != p {
			t.Fatalf("record %d is at %.60s..., want %.60s...", i, got, p)
		}
	}
	order := r.order() // which merges them all: find searches their names
	for i, p := range ps {
		if got, ok := r.find(p); !ok || got != uint32(i) {
			t.Fatalf("find(record %d) = %d, %v", i, got, ok)
		}
	}
	got := make([]string, len(order))
	for k, i := range order {
		got[k] = r.path(i)
	}
	if !slices.Equal(got, slices.Sorted(slices.Values(ps))) {
		t.Error("the order is not the records' by path")
	}
}

// A record is 16 bytes: a long history has a few hundred thousand.
func TestRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(record{}); n != 16 {
		t.Errorf("a record is %d bytes, want 16", n)
	}
}

// A file a record cannot hold (its bytes too many, its name too long, its
// bytes in two runs) is held whole, its bytes left in the spool, and is
// found, listed and read back as a record's file is; a file at a record's
// limits is a record.
func TestFilesRecordsCannotHold(t *testing.T) {
	s, _ := newSpool(t)
	b := NewSpooled(s)
	const dir = "/.well-known/mcp/schemas/a/t/"
	longest := strings.Repeat("n", longestName-len(".json")) + ".json"
	files := []heldFile{
		{dir + "largest.json", strings.Repeat("l", 1<<handleSizeBits-1), true},
		{dir + "too-large.json", strings.Repeat("L", 1<<handleSizeBits), false},
		{dir + longest, "the longest name", true},
		{dir + "x" + longest, "a name too long", false},
	}
	for _, f := range files {
		must(t, b.Add(f.path, []byte(f.body), "application/json"))
	}
	w := s.NewWriter()
	for _, piece := range []string{"two ", "runs"} {
		_, err := w.Write([]byte(piece))
		must(t, err)
		_, err = s.Put([]byte("between"))
		must(t, err)
	}
	must(t, b.AddSpooled(dir+"two-runs.json", w.Spooled(), "application/json"))
	files = append(files, heldFile{dir + "two-runs.json", "two runs", false})
	checkHeld(t, b, files)
}

// A record holds bytes as far into the spool as a handle names, and the
// file of bytes past them is held whole, its bytes left there: both read
// back right. The spool's file starts with a hole that far, which takes
// no room where the file system keeps holes.
func TestFarBytesAreHeldWhole(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a file of 512 GiB takes that room where holes are not kept")
	}
	s, _ := newSpool(t)
	farthest := int64(1<<handleOffsetBits - 1)
	if err := s.f.Truncate(farthest); err != nil {
		t.Skipf("the file system keeps no hole so far: %v", err)
	}
	s.written = farthest
	b := NewSpooled(s)
	files := []heldFile{
		{"/.well-known/mcp/schemas/a/t/farthest.json", "f", true},
		{"/.well-known/mcp/schemas/a/t/past.json", "past the farthest", false},
	}
	for _, f := range files {
		at, err := s.Put([]byte(f.body))
		must(t, err)
		must(t, b.AddSpooled(f.path, at, "application/json"))
	}
	if got, _ := b.Get(files[1].path); got.spooled.off != 1<<handleOffsetBits {
		t.Fatalf("the bytes past the farthest are at %d, want %d", got.spooled.off, int64(1<<handleOffsetBits))
	}
	checkHeld(t, b, files)
}

// heldFile is a file of a spooled bundle, and whether a record holds it.
type heldFile struct {
	path, body string
	record     bool
}

// checkHeld checks that b holds files as a record or whole, as each
// says, their bytes in the spool: found by Get, listed by path, read back
// right, and given their header.
func checkHeld(t *testing.T, b *Bundle, files []heldFile) {
	t.Helper()
	records := 0
	for _, f := range files {
		if _, whole := b.files[f.path]; whole == f.record {
			t.Errorf("%.60s: held whole %v, want %v", f.path, whole, !f.record)
		}
		if f.record {
			records++
		}
	}
	if int(b.records.n) != records {
		t.Errorf("%d records, want %d", b.records.n, records)
	}
	b.SetHeaders(func(f *File) http.Header { return http.Header{"X-Path": {f.Path}} })
	want := slices.SortedFunc(slices.Values(files), func(a, b heldFile) int { return strings.Compare(a.path, b.path) })
	listed := b.Files()
	if len(listed) != len(want) {
		t.Fatalf("%d files listed, want %d", len(listed), len(want))
	}
	for i, f := range want {
		got, ok := b.Get(f.path)
		if !ok {
			t.Fatalf("Get(%.60s) found nothing", f.path)
		}
		for _, got := range []*File{got, listed[i]} {
			body, err := got.Bytes()
			if got.Path != f.path || got.Body != nil || err != nil || string(body) != f.body || got.Header.Get("X-Path") != f.path {
				t.Errorf("%.60s: %.60s, %d bytes in memory and %d read back (%v), header %v; want %d read back",
					f.path, got.Path, len(got.Body), len(body), err, got.Header, len(f.body))
			}
		}
	}
}

// A record names one of 256 content types, and one of the 254 headers
// its bundle's records share, or one of its own: a file of a type past
// those is held whole, and a header past those kept for its record.
func TestRecordTypesAndHeadersAtTheirLimits(t *testing.T) {
	s, _ := newSpool(t)
	b := NewSpooled(s)
	const types = math.MaxUint8 + 1
	path := func(i int) string { return fmt.Sprintf("/.well-known/mcp/schemas/a/t/%d.json", i) }
	for i := range types + 1 {
		must(t, b.Add(path(i), fmt.Appendf(nil, "%d", i), fmt.Sprintf("application/x-%d+json", i)))
	}
	if b.records.n != types {
		t.Fatalf("%d records, want one a type, %d", b.records.n, types)
	}
	if _, whole := b.files[path(types)]; !whole {
		t.Fatalf("the file of a type past the %d is not held whole", types)
	}
	b.SetHeaders(func(f *File) http.Header { return http.Header{"X-Type": {f.ContentType}} })
	if len(b.records.headers) != manyHeaders-1 || len(b.records.otherHeaders) != types-(manyHeaders-1) {
		t.Errorf("%d headers shared and %d of their own, want %d and %d",
			len(b.records.headers), len(b.records.otherHeaders), manyHeaders-1, types-(manyHeaders-1))
	}
	for i := range types + 1 {
		f, _ := b.Get(path(i))
		typ := fmt.Sprintf("application/x-%d+json", i)
		if body, err := f.Bytes(); err != nil || string(body) != strconv.Itoa(i) || f.ContentType != typ || f.Header.Get("X-Type") != typ {
			t.Errorf("%s: %q, %v, type %s, header %v; want type %s", f.Path, body, err, f.ContentType, f.Header, typ)
		}
	}
}

// A bundle's readers may run at once, the first to ask for the order
// merging the records added since the last merge: Get finds each record
// on whichever side of the merge it is, and Files holds them all.
func TestRecordsReadAtOnce(t *testing.T) {
	s, _ := newSpool(t)
	b := NewSpooled(s)
	var ps []string
	for i := range mergeEvery + mergeEvery/2 {
		p := fmt.Sprintf("/.well-known/mcp/schemas/a/t%d/1.%d.json", i%7, i)
		ps = append(ps, p)
		must(t, b.Add(p, []byte("{}"), "application/json"))
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if n := len(b.Files()); n != len(ps) {
				t.Errorf("Files holds %d files, want %d", n, len(ps))
			}
		})
		wg.Go(func() {
			for _, p := range ps {
				if _, ok := b.Get(p); !ok {
					t.Errorf("Get(%s) found nothing", p)
				}
			}
		})
	}
	wg.Wait()
}

// comparePath orders a directory and name joined as strings.Compare
// orders the path they make.
func TestComparePath(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	word := randomWords(rng, 4)
	for range 20000 {
		dir, name, p := word(), word(), word()
		if rng.IntN(2) == 0 {
			p = dir + p // p starts with dir, as the paths a search compares mostly do
		}
		want := strings.Compare(dir+"/"+name, p)
		if got := comparePath(dir, name, p); got != want {
			t.Fatalf("comparePath(%q, %q, %q) = %d, want %d", dir, name, p, got, want)
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

// randomWords returns a maker of words of up to most letters, of the
// few that order paths: slashes, and letters before and after them.
func randomWords(rng *rand.Rand, most int) func() string {
	const letters = "ab/-.~"
	return func() string {
		b := make([]byte, rng.IntN(most+1))
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		return string(b)
	}
}
