package bundle

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/spooltest"
)

// newSpool returns a spool in a directory of its own, closed when the test
// ends, and that directory.
func newSpool(t *testing.T) (*Spool, string) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s, err := NewSpool()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, tmp
}

// A spooled bundle keeps no reference to an immutable file's bytes (a
// change to the slice given to Add reaches nothing), reads them back from
// the spool, and keeps every other file's bytes in memory; a write puts
// the same bytes on disk.
func TestSpooledBundleKeepsImmutableFilesOutOfMemory(t *testing.T) {
	s, _ := newSpool(t)
	b := NewSpooled(s)
	archived := []byte(`{"name":"get_forecast"}`)
	must(t, b.Add("/.well-known/mcp/schemas/a/get_forecast/1.0.0.json", archived, "application/json"))
	must(t, b.Add("/.well-known/agent-feed/archive-1.xml", []byte("<feed/>"), "application/atom+xml"))
	must(t, b.Add("/index.html", []byte("<p>weather</p>"), "text/html"))
	copy(archived, "XXXX")
	want := map[string]string{
		"/.well-known/mcp/schemas/a/get_forecast/1.0.0.json": `{"name":"get_forecast"}`,
		"/.well-known/agent-feed/archive-1.xml":              "<feed/>",
		"/index.html":                                        "<p>weather</p>",
	}
	for _, f := range b.Files() {
		if got, err := f.Bytes(); err != nil || string(got) != want[f.Path] {
			t.Errorf("%s: Bytes() = %q, %v; want %q", f.Path, got, err, want[f.Path])
		}
		if inMemory := f.Body != nil; inMemory == immutable(f.Path) {
			t.Errorf("%s: Body = %q; want it in memory only when the file is not immutable", f.Path, f.Body)
		}
	}
	root := t.TempDir()
	out := filepath.Join(root, "public")
	write(t, b, out, WriteOptions{Root: root})
	for p, body := range want {
		if data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p[1:]))); err != nil || string(data) != body {
			t.Errorf("%s on disk = %q, %v; want %q", p, data, err, body)
		}
	}
	// Written again, nothing changed: the spooled bytes are compared too.
	if stats := write(t, b, out, WriteOptions{Root: root}); stats.Written != 0 || stats.Unchanged != 3 {
		t.Errorf("second write: %+v, want 3 unchanged", stats)
	}
}

// A spooled bundle keeps a large file out of memory too, whatever its
// path (a long history's changelog page), and a small page in memory; both
// are written as they were added.
func TestSpooledBundleKeepsLargeFilesOutOfMemory(t *testing.T) {
	s, _ := newSpool(t)
	b := NewSpooled(s)
	large := []byte(strings.Repeat("<li>change</li>", SpoolFrom/10))
	want := map[string]string{"/changelog/index.html": string(large), "/index.html": "<p>weather</p>"}
	must(t, b.Add("/changelog/index.html", large, "text/html"))
	must(t, b.Add("/index.html", []byte(want["/index.html"]), "text/html"))
	copy(large, "XXXX")
	for _, f := range b.Files() {
		if got, err := f.Bytes(); err != nil || string(got) != want[f.Path] {
			t.Errorf("%s: Bytes() = %.20q, %v; want %.20q", f.Path, got, err, want[f.Path])
		}
		if inMemory, small := f.Body != nil, f.Path == "/index.html"; inMemory != small {
			t.Errorf("%s: in memory %v, want %v", f.Path, inMemory, small)
		}
	}
	root := t.TempDir()
	out := filepath.Join(root, "public")
	write(t, b, out, WriteOptions{Root: root})
	for p, body := range want {
		if data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p[1:]))); err != nil || string(data) != body {
			t.Errorf("%s on disk = %.20q, %v; want %.20q", p, data, err, body)
		}
	}
}

// A file larger than the spool's buffer goes to the file at once, between
// the smaller ones put before and after it, and leaves the buffer its size.
func TestSpoolWritesALargeFileAtOnce(t *testing.T) {
	s, _ := newSpool(t)
	b := NewSpooled(s)
	large := strings.Repeat("<li>change</li>", 3*spoolBuffer/10)
	want := map[string]string{
		"/.well-known/agent-feed/archive-1.xml": "<feed>1</feed>",
		"/changelog/index.html":                 large,
		"/.well-known/agent-feed/archive-2.xml": "<feed>2</feed>",
	}
	for _, p := range []string{"/.well-known/agent-feed/archive-1.xml", "/changelog/index.html", "/.well-known/agent-feed/archive-2.xml"} {
		must(t, b.Add(p, []byte(want[p]), "application/atom+xml"))
	}
	for _, f := range b.Files() {
		if got, err := f.Bytes(); err != nil || string(got) != want[f.Path] {
			t.Errorf("%s: Bytes() = %.20q, %v; want %.20q", f.Path, got, err, want[f.Path])
		}
	}
	if c := cap(s.pending); c >= len(large) {
		t.Errorf("the buffer grew to %d bytes for a file of %d", c, len(large))
	}
}

// A write compares and copies a spooled file a chunk at a time: a large
// one is written as added without being read back whole (the write
// allocates a small part of its size), left alone when the output holds
// it, and written again when its last chunk differs on disk.
func TestWriteCopiesASpooledFileInChunks(t *testing.T) {
	s, _ := newSpool(t)
	b := NewSpooled(s)
	large := []byte(strings.Repeat("<li>change</li>", 4<<20/15))
	must(t, b.Add("/changelog/index.html", large, "text/html"))
	root := t.TempDir()
	out := filepath.Join(root, "public")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := write(t, b, out, WriteOptions{Root: root})
	runtime.ReadMemStats(&after)
	if got != (WriteStats{Written: 1}) {
		t.Errorf("first write: %+v, want the file written", got)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(len(large)/4) {
		t.Errorf("writing a spooled file of %d bytes allocated %d", len(large), allocated)
	}
	onDisk := filepath.Join(out, "changelog", "index.html")
	if data, err := os.ReadFile(onDisk); err != nil || string(data) != string(large) {
		t.Fatalf("on disk: %d bytes, %v; want the %d added", len(data), err, len(large))
	}
	if got := write(t, b, out, WriteOptions{Root: root}); got != (WriteStats{Unchanged: 1}) {
		t.Errorf("second write: %+v, want the file unchanged", got)
	}
	changed := slices.Clone(large)
	changed[len(changed)-1] = 'X'
	must(t, os.WriteFile(onDisk, changed, 0o644))
	if got := write(t, b, out, WriteOptions{Root: root}); got != (WriteStats{Written: 1}) {
		t.Errorf("write over a copy whose last byte differs: %+v, want the file written", got)
	}
	if data, err := os.ReadFile(onDisk); err != nil || string(data) != string(large) {
		t.Errorf("on disk after the third write: %d bytes, %v; want the %d added", len(data), err, len(large))
	}
}

// A spooled write that fails leaves the output as it was, like any write.
func TestSpooledWriteFailureLeavesOutputUntouched(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "public")
	good := New()
	must(t, good.Add("/index.html", []byte("v1"), "text/html"))
	write(t, good, out, WriteOptions{Root: root})
	before := snapshot(t, out)
	s, _ := newSpool(t)
	bad := NewSpooled(s)
	must(t, bad.Add("/.well-known/mcp/schemas/a/t/1.0.0.json", []byte("{}"), "application/json"))
	must(t, bad.Add("/.well-known/mcp/schemas/a/"+strings.Repeat("x", 300)+"/1.0.0.json", []byte("{}"), "application/json"))
	must(t, bad.Add("/index.html", []byte("v2"), "text/html"))
	if _, err := bad.WriteDir(out, WriteOptions{Root: root}); err == nil {
		t.Fatal("WriteDir with an unwritable file succeeded")
	}
	if after := snapshot(t, out); after != before {
		t.Errorf("output changed by a failed write:\nbefore %s\nafter  %s", before, after)
	}
	assertNoTemporaries(t, root)
}

// A spool whose file was cut short under a spooled file fails the write,
// naming the file, instead of publishing the file cut short or taking it
// for the one the output holds, and leaves the output as it was.
func TestWriteRefusesASpoolCutShort(t *testing.T) {
	const archive = "/.well-known/agent-feed/archive-1.xml"
	body := []byte(strings.Repeat("x", 3*chunk))
	for _, published := range []bool{false, true} {
		t.Run(fmt.Sprintf("published=%v", published), func(t *testing.T) {
			root := t.TempDir()
			out := filepath.Join(root, "public")
			good := New()
			must(t, good.Add("/index.html", []byte("v1"), "text/html"))
			if published {
				must(t, good.Add(archive, body, "application/atom+xml"))
			}
			write(t, good, out, WriteOptions{Root: root})
			before := snapshot(t, out)
			s, _ := newSpool(t)
			b := NewSpooled(s)
			must(t, b.Add(archive, body, "application/atom+xml"))
			must(t, b.Add("/index.html", []byte("v2"), "text/html"))
			f, _ := b.Get(archive)
			if _, _, err := f.Reader(); err != nil { // writes out what the spool gathered
				t.Fatal(err)
			}
			if err := s.f.Truncate(chunk + 1); err != nil {
				t.Fatal(err)
			}
			_, err := b.WriteDir(out, WriteOptions{Root: root})
			if err == nil || !strings.Contains(err.Error(), "reading "+archive+" back: ") {
				t.Fatalf("WriteDir with its spool cut short = %v, want an error naming %s", err, archive)
			}
			if after := snapshot(t, out); after != before {
				t.Errorf("output changed by a failed write:\nbefore %s\nafter  %s", before, after)
			}
			assertNoTemporaries(t, root)
		})
	}
}

// The spool's file leaves no name behind once closed, and its files cannot
// be read after.
func TestSpoolClosed(t *testing.T) {
	s, tmp := newSpool(t)
	b := NewSpooled(s)
	must(t, b.Add("/.well-known/agent-feed/archive-1.xml", []byte("<feed/>"), "application/atom+xml"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(tmp); err != nil || len(entries) > 0 {
		t.Errorf("the directory for temporary files holds %v after Close (%v)", entries, err)
	}
	f, _ := b.Get("/.well-known/agent-feed/archive-1.xml")
	if _, err := f.Bytes(); err == nil {
		t.Error("a spooled file was read after its spool was closed")
	}
}

// Files read back whether their bytes are still gathered for a write or
// already written, across the spool's buffers, and reading one between
// two adds changes nothing of the files after.
func TestSpoolAcrossBuffers(t *testing.T) {
	s, _ := newSpool(t)
	b := NewSpooled(s)
	want := map[string]string{}
	add := func(i, size int) {
		p := fmt.Sprintf("/.well-known/mcp/schemas/a/t/%d.json", i)
		want[p] = strings.Repeat(fmt.Sprintf("%x", i%16), size)
		must(t, b.Add(p, []byte(want[p]), "application/json"))
	}
	check := func() {
		t.Helper()
		for p, body := range want {
			f, _ := b.Get(p)
			if got, err := f.Bytes(); err != nil || string(got) != body {
				t.Fatalf("%s: %d bytes read back, %v; want %d", p, len(got), err, len(body))
			}
		}
	}
	add(0, 100)
	check()
	for i := 1; i < 40; i++ {
		add(i, spoolBuffer/16+i)
	}
	add(40, 3*spoolBuffer)
	add(41, 10)
	check()
}

// Bytes put in the bundle's spool before their file is added are that
// file's bytes where they lie: files added at them (two versions of equal
// bytes) write nothing more to the spool. Bytes of another spool are read
// back and kept as Add keeps them.
func TestAddSpooledKeepsTheBytesWhereTheyLie(t *testing.T) {
	s, _ := newSpool(t)
	b := NewSpooled(s)
	at, err := s.Put([]byte(`{"name":"a"}`))
	must(t, err)
	must(t, b.AddSpooled("/.well-known/mcp/schemas/s/a/1.0.0.json", at, "application/json"))
	must(t, b.AddSpooled("/.well-known/mcp/schemas/s/a/1.0.2.json", at, "application/json"))
	if size := s.written + int64(len(s.pending)); size != int64(len(`{"name":"a"}`)) {
		t.Errorf("the spool holds %d bytes, want the form once (%d)", size, len(`{"name":"a"}`))
	}
	other, _ := newSpool(t)
	elsewhere, err := other.Put([]byte(`{"name":"b"}`))
	must(t, err)
	plain := New()
	must(t, plain.AddSpooled("/.well-known/mcp/schemas/s/b/1.0.0.json", elsewhere, "application/json"))
	for _, c := range []struct {
		b    *Bundle
		p    string
		want string
	}{
		{b, "/.well-known/mcp/schemas/s/a/1.0.0.json", `{"name":"a"}`},
		{b, "/.well-known/mcp/schemas/s/a/1.0.2.json", `{"name":"a"}`},
		{plain, "/.well-known/mcp/schemas/s/b/1.0.0.json", `{"name":"b"}`},
	} {
		f, _ := c.b.Get(c.p)
		body, err := f.Bytes()
		if err != nil || string(body) != c.want {
			t.Errorf("%s: %q, %v; want %s", c.p, body, err, c.want)
		}
	}
	if f, _ := plain.Get("/.well-known/mcp/schemas/s/b/1.0.0.json"); string(f.Body) != `{"name":"b"}` {
		t.Errorf("a file of another spool's bytes in a bundle without one: Body %q, want them in memory", f.Body)
	}
	if err := b.AddSpooled("/.well-known/mcp/schemas/s/a/1.0.0.json", at, "application/json"); err == nil {
		t.Error("a second file at one path was added")
	}
}

// Bytes written to a spool a piece at a time are one file: read back and
// written whole, whether other bytes were put between the pieces (by
// another writer, another page rendering at once, or Put) or not, when a
// piece is larger than the spool's buffer, and when there is none.
// Pieces with nothing put between them are one run of the spool.
func TestSpoolWriterPiecesAreOneFile(t *testing.T) {
	s, _ := newSpool(t)
	b := NewSpooled(s)
	a, c, alone, none := s.NewWriter(), s.NewWriter(), s.NewWriter(), s.NewWriter()
	want := map[string]string{}
	put := func(p string, w *SpoolWriter, text string) {
		t.Helper()
		if n, err := w.Write([]byte(text)); n != len(text) || err != nil {
			t.Fatalf("%s: Write of %d bytes = %d, %v", p, len(text), n, err)
		}
		want[p] += text
	}
	for i, size := range []int{100, spoolBuffer / 3, spoolBuffer + 7, 5, 2 * spoolBuffer} {
		put("/a.html", a, strings.Repeat(string(rune('a'+i)), size))
		put("/c.html", c, strings.Repeat(string(rune('A'+i)), size/2+1))
		if i == 2 {
			must(t, b.Add("/.well-known/agent-feed/archive-1.xml", []byte("<feed/>"), "application/atom+xml"))
			want["/.well-known/agent-feed/archive-1.xml"] = "<feed/>"
		}
	}
	for i := range 3 {
		put("/alone.html", alone, strings.Repeat(fmt.Sprint(i), spoolBuffer/2))
	}
	want["/none.html"] = ""
	for p, w := range map[string]*SpoolWriter{"/a.html": a, "/c.html": c, "/alone.html": alone, "/none.html": none} {
		must(t, b.AddSpooled(p, w.Spooled(), "text/html"))
	}
	if at := alone.Spooled(); at.next != nil {
		t.Errorf("pieces with nothing between them are more than one run: %+v", at)
	}
	for p, body := range want {
		f, _ := b.Get(p)
		if got, err := f.Bytes(); err != nil || string(got) != body {
			t.Errorf("%s: %d bytes read back, %v; want %d", p, len(got), err, len(body))
		}
	}
	root := t.TempDir()
	out := filepath.Join(root, "public")
	write(t, b, out, WriteOptions{Root: root})
	for p, body := range want {
		if data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p[1:]))); err != nil || string(data) != body {
			t.Errorf("%s on disk: %d bytes, %v; want %d", p, len(data), err, len(body))
		}
	}
	if stats := write(t, b, out, WriteOptions{Root: root}); stats.Written != 0 || stats.Unchanged != len(want) {
		t.Errorf("second write: %+v, want %d unchanged", stats, len(want))
	}
}

// A spool keeps the first read back that failed, for a reader that cannot
// return the error itself: what it read then is not used.
func TestSpoolKeepsTheFirstFailedRead(t *testing.T) {
	s, _ := newSpool(t)
	first, err := s.Put([]byte(strings.Repeat("a", 100)))
	must(t, err)
	last, err := s.Put([]byte(strings.Repeat("b", 100)))
	must(t, err)
	if _, err := first.Read(); err != nil || s.ReadFailed() != nil {
		t.Fatalf("a whole spool: Read = %v, ReadFailed = %v", err, s.ReadFailed())
	}
	must(t, s.f.Truncate(150))
	if body, err := last.Read(); err == nil || body != nil {
		t.Fatalf("Read of bytes cut short = %q, %v; want an error", body, err)
	}
	failed := s.ReadFailed()
	if failed == nil || !strings.Contains(failed.Error(), "reading the build's temporary file back: ") {
		t.Fatalf("ReadFailed = %v", failed)
	}
	must(t, s.f.Truncate(0))
	if _, err := first.Read(); err == nil || s.ReadFailed().Error() != failed.Error() {
		t.Errorf("a later failure: Read = %v, ReadFailed = %v, want the first %v", err, s.ReadFailed(), failed)
	}
	// Bytes still pending are not written after a hole, where the bytes
	// cut off would read back as zeros.
	pending, err := s.Put([]byte("pending"))
	must(t, err)
	if body, err := pending.Read(); err == nil || !strings.Contains(err.Error(), "the file holds 0 bytes of the 200 written to it") {
		t.Errorf("Read of bytes pending in a spool cut short = %q, %v; want an error", body, err)
	}
	if body, err := first.Read(); err == nil || bytes.Count(body, []byte{0}) > 0 {
		t.Errorf("Read of bytes cut off = %q, %v; want an error", body, err)
	}
}

// A read back writes out the bytes still pending only when it needs them:
// reads between puts would otherwise break the spool's writes up.
func TestSpoolWritesOutPendingBytesWhenReadBack(t *testing.T) {
	s, _ := newSpool(t)
	first, err := s.Put([]byte("first"))
	must(t, err)
	if body, err := first.Read(); err != nil || string(body) != "first" || len(s.pending) != 0 {
		t.Fatalf("Read of pending bytes = %q, %v; %d bytes still pending", body, err, len(s.pending))
	}
	second, err := s.Put([]byte("second"))
	must(t, err)
	if body, err := first.Read(); err != nil || string(body) != "first" || string(s.pending) != "second" {
		t.Errorf("Read of written bytes = %q, %v; pending %q, want the second put's", body, err, s.pending)
	}
	if body, err := second.Read(); err != nil || string(body) != "second" || len(s.pending) != 0 {
		t.Errorf("Read of the second put = %q, %v; %d bytes still pending", body, err, len(s.pending))
	}
}

// ReadAppend appends the bytes where they lie, still pending or written,
// in one run or several, to what the buffer held.
func TestReadAppendAppendsToTheBuffer(t *testing.T) {
	s, _ := newSpool(t)
	written, err := s.Put([]byte(strings.Repeat("w", spoolBuffer)))
	must(t, err)
	w := s.NewWriter()
	_, err = w.Write([]byte("first "))
	must(t, err)
	pending, err := s.Put([]byte("between"))
	must(t, err)
	_, err = w.Write([]byte("second"))
	must(t, err)
	buf := make([]byte, 0, 4)
	for _, c := range []struct {
		at   *Spooled
		want string
	}{
		{written, strings.Repeat("w", spoolBuffer)},
		{pending, "between"},
		{w.Spooled(), "first second"},
	} {
		got, err := c.at.ReadAppend(append(buf[:0], "> "...))
		if err != nil || string(got) != "> "+c.want {
			t.Errorf("ReadAppend = %.20q (%d bytes), %v; want %.20q", got, len(got), err, "> "+c.want)
		}
		buf = got
	}
}

// heldBytes is bytes a Stored other than the spool's keeps.
type heldBytes []byte

func (b heldBytes) Read() ([]byte, error) { return []byte(b), nil }

// A handle names one run of the spool, at any offset and of any size it
// holds, and Stored makes it again, reading the same bytes; none is 0.
// Bytes in more than one run, in another spool, past what a handle holds
// or kept elsewhere have none.
func TestSpoolHandlesNameOneRun(t *testing.T) {
	s, _ := newSpool(t)
	other, _ := newSpool(t)
	empty, err := s.Put(nil)
	must(t, err)
	abc, err := s.Put([]byte("abc"))
	must(t, err)
	large, err := s.Put([]byte(strings.Repeat("x", spoolBuffer+1)))
	must(t, err)
	for _, at := range []*Spooled{empty, abc, large, {spool: s, off: 1<<handleOffsetBits - 1, size: 1<<handleSizeBits - 1}} {
		h, ok := s.Handle(at)
		if !ok || h == 0 {
			t.Fatalf("%+v: handle %d, %v", *at, h, ok)
		}
		if again := s.Stored(h).(*Spooled); *again != *at {
			t.Errorf("handle %#x makes %+v again, want %+v", h, *again, *at)
		}
	}
	h, _ := s.Handle(abc)
	if got, err := s.Stored(h).Read(); err != nil || string(got) != "abc" {
		t.Errorf("abc by its handle reads back %q, %v", got, err)
	}
	w := s.NewWriter()
	_, err = w.Write([]byte("a"))
	must(t, err)
	_, err = s.Put([]byte("between"))
	must(t, err)
	_, err = w.Write([]byte("b"))
	must(t, err)
	inOther, err := other.Put([]byte("abc"))
	must(t, err)
	for name, at := range map[string]tools.Stored{
		"two runs":    w.Spooled(),
		"other spool": inOther,
		"far":         &Spooled{spool: s, off: 1 << handleOffsetBits},
		"large":       &Spooled{spool: s, size: 1 << handleSizeBits},
		"elsewhere":   heldBytes("abc"),
	} {
		if h, ok := s.Handle(at); ok {
			t.Errorf("%s: handle %#x", name, h)
		}
	}
}

// PutAfter puts its head just before its body, which alone it names,
// and Heads reads the head back by the body's handle: pending, written,
// and before a body written at once; there is nothing before the first
// byte.
func TestSpoolReadsBackTheHeadBeforeABody(t *testing.T) {
	s, _ := newSpool(t)
	first, err := s.PutAfter(nil, []byte("first"))
	must(t, err)
	heads := s.NewHeads(64)
	for i, body := range []string{"pending", strings.Repeat("x", spoolBuffer), "after"} {
		head := fmt.Sprintf("head %d", i)
		at, err := s.PutAfter([]byte(head), []byte(body))
		must(t, err)
		checkHead(t, heads, head, at, body)
	}
	h, _ := s.Handle(first)
	if err := heads.Read(h, make([]byte, 1)); err == nil || s.ReadFailed() == nil {
		t.Errorf("read before the first byte: %v, kept %v; want an error, kept", err, s.ReadFailed())
	}
}

// Heads reads a window of the spool at a time, and keeps two: heads read
// in the order opposite to the one they were put in come from the window
// until they are past it, from each of two readers taking turns.
func TestHeadsReadAWindowAtATime(t *testing.T) {
	s, _ := newSpool(t)
	var ats []*Spooled
	for i := range 40 {
		at, err := s.PutAfter([]byte(fmt.Sprintf("h%02d", i)), []byte("body"))
		must(t, err)
		ats = append(ats, at)
	}
	heads := s.NewHeads(3 * 7) // three heads of 3 bytes, and their bodies of 4
	read := func(i int) error {
		h, _ := s.Handle(ats[i])
		got := make([]byte, 3)
		err := heads.Read(h, got)
		if err == nil && string(got) != fmt.Sprintf("h%02d", i) {
			t.Errorf("head %d reads %q", i, got)
		}
		return err
	}
	// Two readers, at 39 and 19, each reads its window.
	for _, i := range []int{39, 19} {
		must(t, read(i))
	}
	if !spooltest.CutShort(t, 0) {
		t.Fatal("found no spool to cut short")
	}
	for _, i := range []int{38, 18, 37, 17} {
		if err := read(i); err != nil {
			t.Errorf("head %d, in a window read before the spool was cut short: %v", i, err)
		}
	}
	if err := read(36); err == nil {
		t.Error("head 36, past the window, read back from a spool cut short")
	}
}

// A reader that walks out of its window reads the next into that one,
// and leaves the other reader's be, however many it reads in a row.
func TestHeadsKeepTheOtherReadersWindow(t *testing.T) {
	s, _ := newSpool(t)
	var handles []uint64
	for i := range 40 {
		at, err := s.PutAfter([]byte(fmt.Sprintf("h%02d", i)), []byte("body"))
		must(t, err)
		h, _ := s.Handle(at)
		handles = append(handles, h)
	}
	heads := s.NewHeads(3 * 7) // three heads of 3 bytes, and their bodies of 4
	read := func(i int) error { return heads.Read(handles[i], make([]byte, 3)) }
	for _, i := range []int{39, 19, 18, 17, 16, 15} { // the second walks out of its window
		must(t, read(i))
	}
	if !spooltest.CutShort(t, 0) {
		t.Fatal("found no spool to cut short")
	}
	for _, i := range []int{38, 37, 14} {
		if err := read(i); err != nil {
			t.Errorf("head %d, in a window read before the spool was cut short: %v", i, err)
		}
	}
}

// Heads read in any order, in windows of any size, between bodies of
// any size and bytes put without a head, are the heads put.
func TestHeadsReadInAnyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 10 {
		s, _ := newSpool(t)
		type put struct {
			handle uint64
			head   string
		}
		var puts []put
		for i := range 200 {
			if rng.IntN(4) == 0 {
				_, err := s.Put(make([]byte, rng.IntN(100)))
				must(t, err)
			}
			body := make([]byte, rng.IntN(300))
			if rng.IntN(100) == 0 {
				body = make([]byte, spoolBuffer)
			}
			head := fmt.Sprintf("%d.%d.%s", round, i, strings.Repeat("x", rng.IntN(40)))
			at, err := s.PutAfter([]byte(head), body)
			must(t, err)
			h, ok := s.Handle(at)
			if !ok {
				t.Fatalf("%s has no handle", head)
			}
			puts = append(puts, put{h, head})
		}
		heads := s.NewHeads(1 + rng.IntN(2000))
		for range 2000 {
			p := puts[rng.IntN(len(puts))]
			got := make([]byte, len(p.head))
			if err := heads.Read(p.handle, got); err != nil || string(got) != p.head {
				t.Fatalf("round %d, window of %d: read %q, %v; want %q", round, heads.size, got, err, p.head)
			}
		}
	}
}

func checkHead(t *testing.T, heads *Heads, head string, at *Spooled, body string) {
	t.Helper()
	h, ok := at.spool.Handle(at)
	if !ok {
		t.Fatalf("%q has no handle", head)
	}
	got := make([]byte, len(head))
	if err := heads.Read(h, got); err != nil || string(got) != head {
		t.Errorf("before %.10q: %q, %v; want %q", body, got, err, head)
	}
	if b, err := at.Read(); err != nil || string(b) != body {
		t.Errorf("%q reads back %.10q, %v; want its body %.10q", head, b, err, body)
	}
}
