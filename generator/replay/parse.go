package replay

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"sync"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator/bundle"
)

// earlyParse parses tool files as git cat-file hands them over, while git
// log is still walking the history: on one core (the other is git's) until
// the walk ends, then on every core. A blob is parsed at the path the log
// named it at first, its newest; in the rare case its oldest, the one it is
// read as, is another, keepRead reads it again to parse it there. The
// contents of a blob parsed here are not kept: a long history's tool files,
// all held until the log ends, would cost as much as their canonical forms.
// Nor are more than queuedBytes of them held waiting: git reads ahead into
// a large pipe (see gitlog), faster than one core parses.
type earlyParse struct {
	tools *pathTest // the paths some server's glob matches, asked holding mu
	forms *forms

	// free holds the buffers of blobs parsed, for blobs read after
	// (see buffer).
	free chan []byte

	mu    sync.Mutex
	ready *sync.Cond // signals a blob queued, or the end
	room  *sync.Cond // signals a blob taken from the queue
	// blobs are, by id, the blobs asked for (see ask): each at the path
	// the log named it at first until it is parsed, then parsed there.
	// One table serves the asking, the parse and, once the history is
	// read, the replay (see keepRead): a long history has an entry for
	// each version of each tool, and held twice or thrice they were most
	// of the read's memory.
	blobs *blobTable
	// moved are the blobs the log named at an older path than its first
	// one, by id: the oldest, the path the blob is read as (see oldest).
	moved   map[gitlog.ObjectID]string
	queue   []blobAt
	queued  int // the bytes of the blobs in queue
	closed  bool
	workers sync.WaitGroup
}

// queuedBytes is how many bytes of blobs may wait to be parsed before
// arrived waits for room: on a long history of large tool files the parse
// fell behind git by tens of megabytes, held beside git's own memory at
// the read's end.
const queuedBytes = 4 << 20

type blobAt struct {
	id   gitlog.ObjectID
	path string
	data []byte
}

func startEarlyParse(globs []*serverFiles, forms *forms) *earlyParse {
	isTool := func(p string) bool { return matchesAny(globs, p) }
	e := &earlyParse{tools: newPathTest(isTool), forms: forms, free: make(chan []byte, freeBuffers),
		blobs: newBlobTable(), moved: map[gitlog.ObjectID]string{}}
	e.ready, e.room = sync.NewCond(&e.mu), sync.NewCond(&e.mu)
	e.workers.Go(e.work)
	return e
}

// ask notes that the log, newest first, names blob id at path p, and
// reports whether the blob is new, to be read: it is parsed when it
// arrives if some server's glob matches the path it was first named at.
func (e *earlyParse) ask(id gitlog.ObjectID, p string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if known, ok := e.blobs.get(id); ok {
		if p == known.at.path {
			delete(e.moved, id)
		} else {
			e.moved[id] = p
		}
		return false
	}
	e.blobs.put(id, parsedTool{at: toolFile{"", p}})
	return true
}

// arrived queues a blob just read for parsing, if it was asked for at a
// tool file's path, and reports whether it was: the parse then holds the
// blob's contents until it has parsed them, and nothing after. While
// queuedBytes wait, it waits for a worker to take one.
func (e *earlyParse) arrived(id gitlog.ObjectID, data []byte) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	asked, ok := e.blobs.get(id)
	if !ok || !e.tools.matches(asked.at.path) {
		return false
	}
	p := asked.at.path
	for e.queued >= queuedBytes {
		e.room.Wait()
	}
	e.queue = append(e.queue, blobAt{id, p, data})
	e.queued += len(data)
	e.ready.Signal()
	return true
}

func (e *earlyParse) work() {
	for {
		e.mu.Lock()
		for len(e.queue) == 0 && !e.closed {
			e.ready.Wait()
		}
		if len(e.queue) == 0 {
			e.mu.Unlock()
			return
		}
		b := e.queue[0]
		e.queue[0] = blobAt{} // its contents go once parsed
		e.queue = e.queue[1:]
		e.queued -= len(b.data)
		e.room.Signal()
		e.mu.Unlock()
		t := e.forms.parse(b.path, b.data)
		e.release(b.data)
		e.mu.Lock()
		e.blobs.put(b.id, t)
		e.mu.Unlock()
	}
}

// freeBuffers is how many buffers of blobs parsed are kept for the blobs
// after, and reusedBuffer the largest kept: enough for a parse that runs
// behind git for a while, and no more memory than a few tool files.
const (
	freeBuffers  = 64
	reusedBuffer = 64 << 10
)

// buffer returns a slice of n bytes to read a blob into (gitlog.Blobs'
// Buffer): a buffer of a blob parsed, or a new one, of at least 4 KB so
// that it serves the blobs after it too. A long history's blobs, read one
// after another and dropped once parsed, would cost the garbage collector
// about their whole size.
func (e *earlyParse) buffer(n int) []byte {
	select {
	case b := <-e.free:
		if cap(b) >= n {
			return b[:n]
		}
	default:
	}
	return make([]byte, n, max(n, 4<<10))
}

// release gives back the buffer of a blob just parsed, which nothing
// parse returns refers to.
func (e *earlyParse) release(data []byte) {
	if cap(data) > reusedBuffer {
		return
	}
	select {
	case e.free <- data[:0]:
	default:
	}
}

// finish parses what is still queued on every core, and returns every blob
// asked for and the blobs moved (see earlyParse).
func (e *earlyParse) finish() (blobs *blobTable, moved map[gitlog.ObjectID]string) {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.ready.Broadcast()
	for range runtime.GOMAXPROCS(0) - 1 {
		e.workers.Go(e.work)
	}
	e.workers.Wait()
	return e.blobs, e.moved
}

// forms keeps the canonical forms of the tool versions a replay parses in
// a spool (Input.Spool), from the moment each is parsed: a long history's
// forms, held until the schema archive was written, were most of a
// build's memory. The archive's files are the same bytes where they lie.
// A nil *forms keeps them in memory.
//
// Each blob's form is kept, even one another blob has (a tool file
// reformatted): an index that kept each once held some 60 bytes for
// each blob of the history while it was read, where a form kept twice
// costs the spool a few kilobytes on disk, and its second copy is never
// archived, since the replay sees no new version in it.
type forms struct {
	spool *bundle.Spool
	mu    sync.Mutex
	err   error // the first form the spool failed to keep or give back
	// heads reads the SHA256s back (see digest), holding mu.
	heads *bundle.Heads
}

// headsWindow is how many bytes of the spool a read of a SHA256 takes
// with it, those before it: forms go to the spool in the order the log
// names their blobs, newest first, and the replay reads them oldest
// first, so that the next few it reads are in the window; the
// comparisons' plan, running ahead, reads them in the same order, in a
// window of its own.
const headsWindow = 32 << 10

// newForms returns the forms that spool keeps; nil when spool is.
func newForms(spool *bundle.Spool) *forms {
	if spool == nil {
		return nil
	}
	return &forms{spool: spool, heads: spool.NewHeads(headsWindow)}
}

// parse parses a blob of history as a tool file, keeping its canonical form
// (in the spool, if there is one) but not its decoded object, which it does
// not build: a long history's objects, all held until the replay reaches
// them, would cost several times the files' size, where the replay needs
// one at a time (decode makes it again from the canonical form).
func (f *forms) parse(p string, data []byte) parsedTool {
	if f == nil {
		t, err := tools.ParseCanonical(p, data)
		return f.compact(p, t, err)
	}
	t, err := tools.ParseStored(p, data, f.store)
	return f.compact(p, t, err)
}

// store keeps a canonical form in the spool, just after its SHA256, and
// returns where the form is; nil when the spool fails to keep it, which
// fails the replay (see failed).
func (f *forms) store(canonical []byte, sha256Hex string) tools.Stored {
	var sum [sha256.Size]byte
	// The parse wrote the hex digits of a sum it made: they decode.
	_, _ = hex.Decode(sum[:], []byte(sha256Hex))
	at, err := f.spool.PutAfter(sum[:], canonical)
	if err != nil {
		f.fail(err)
		return nil
	}
	return at
}

// digest returns the SHA256 of the form a handle names, in hex, read
// back from just before the form (see store). One the spool fails to
// give back fails the replay (see failed).
func (f *forms) digest(handle uint64) string {
	var sum [sha256.Size]byte
	f.mu.Lock()
	err := f.heads.Read(handle, sum[:])
	f.mu.Unlock()
	if err != nil {
		f.fail(err)
	}
	return hex.EncodeToString(sum[:])
}

// storeChange keeps a version's change in the spool (see
// timeline.Builder.StoreChanges), where a long history's changes cost no
// memory; nil when the spool fails to keep it, which fails the replay
// (see failed). A change that cannot be read back later fails the build
// (see bundle.Spool.ReadFailed).
func (f *forms) storeChange(change schemadiff.Packed) tools.Stored {
	at, err := f.spool.Put([]byte(change))
	if err != nil {
		f.fail(err)
		return nil
	}
	return at
}

// canonical returns t's canonical form, read back from the spool when it
// is kept there. A form the spool fails to give back fails the replay (see
// failed): the comparison made without it is never signed.
func (f *forms) canonical(t tools.Tool) []byte {
	canonical, err := t.ReadCanonical()
	if err != nil {
		f.fail(err)
	}
	return canonical
}

// canonicalInto returns t's canonical form in buf, in place of what buf
// held, for a caller that reads many forms in turn and keeps none once
// done: canonical makes a new slice for each form read back.
func (f *forms) canonicalInto(buf []byte, t tools.Tool) []byte {
	at, ok := t.Stored.(*bundle.Spooled)
	if !ok || t.Canonical != nil {
		return append(buf[:0], f.canonical(t)...)
	}
	buf, err := at.ReadAppend(buf[:0])
	if err != nil {
		f.fail(err)
	}
	return buf
}

// fail keeps err if it is the first the spool gave the forms (see
// failed).
func (f *forms) fail(err error) {
	f.mu.Lock()
	f.err = cmp.Or(f.err, err)
	f.mu.Unlock()
}

// failed returns the error of the first form the spool failed to keep or
// to give back.
func (f *forms) failed() error {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		return nil
	}
	return fmt.Errorf("keeping the tool versions in a temporary file: %v", f.err)
}
