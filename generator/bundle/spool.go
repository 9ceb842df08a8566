package bundle

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/tools"
)

// Spool keeps the bytes of a bundle's immutable files (archived tool
// versions, full feed archives: see immutable) and of its large ones (a
// long history's changelog and tool pages) in a temporary file instead of
// in memory, from the moment they are added until they are written. They
// are most of a long history's output, and a build that writes to disk
// needs each of them only once more, when it is written: with a spool, a
// build's memory follows the site's current state, not its history. A
// replay puts there too what it keeps of each tool version (its
// canonical form, its change), read back when asked for.
type Spool struct {
	f    *os.File
	name string // the file's name while it still has one (see NewSpool)
	// The bytes put are written a buffer at a time: a write of each
	// small file would cost most of what the spool saves.
	mu      sync.Mutex
	written int64  // bytes in the file
	pending []byte // bytes put since, to be written after them
	readErr error  // the first read back that failed (see ReadFailed)
}

// SpoolFrom is the size from which a file that is not immutable is
// spooled too: such a file costs more memory than reading it back costs
// time, while the many small ones would cost a read each for little.
const SpoolFrom = 16 << 10

// spoolBuffer is how many bytes the spool gathers before writing them.
const spoolBuffer = 1 << 20

// Spooled is where bytes put lie in their spool: one run of the file, or
// a run and those after it, for bytes written a piece at a time while
// other bytes were put between the pieces (see SpoolWriter).
type Spooled struct {
	spool *Spool
	off   int64
	size  int      // of this run
	next  *Spooled // the run of the bytes that follow; nil when none do
}

// A handle (see Spool.Handle) packs a run's offset and size in one
// number, with its top bit, HandleBit, set: none is 0, and a holder of
// numbers of its own beside handles tells them apart by that bit.
const (
	handleSizeBits   = 24 // up to 16 MiB
	handleOffsetBits = 63 - handleSizeBits
	HandleBit        = 1 << 63
)

// Handle returns the handle of the bytes at, a number that names them
// in s (see Stored), and whether they have one: bytes in one run of s,
// of a size and at an offset a handle holds. A long history's timeline
// names each version's bytes and change so (see timeline.Handles), and
// a bundle its records' bytes (see records): as Spooled, they cost an
// allocation each.
func (s *Spool) Handle(at tools.Stored) (uint64, bool) {
	run, ok := at.(*Spooled)
	if !ok || run.spool != s || run.next != nil || run.off >= 1<<handleOffsetBits || run.size >= 1<<handleSizeBits {
		return 0, false
	}
	return HandleBit | uint64(run.off)<<handleSizeBits | uint64(run.size), true
}

// Stored returns the Spooled a handle from Handle names, made anew.
func (s *Spool) Stored(handle uint64) tools.Stored {
	at := s.named(handle)
	return &at
}

// named returns where the bytes a handle names lie.
func (s *Spool) named(handle uint64) Spooled {
	return Spooled{spool: s, off: int64(handle &^ HandleBit >> handleSizeBits), size: int(handle & (1<<handleSizeBits - 1))}
}

// Keep puts b in s and returns its handle: for a holder that names what
// it keeps by a number (see timeline.Store).
func (s *Spool) Keep(b []byte) (uint64, error) {
	at, err := s.Put(b)
	if err != nil {
		return 0, err
	}
	handle, ok := s.Handle(at)
	if !ok {
		return 0, errors.New("the build's temporary file is too large")
	}
	return handle, nil
}

// Recall reads back the bytes a handle from Keep names.
func (s *Spool) Recall(handle uint64) ([]byte, error) { return s.Stored(handle).Read() }

// Lost records err, of bytes a holder could not get back as it kept
// them (see Recall), as a read back that failed (see ReadFailed): a
// holder that cannot return an error tells the spool, and its caller
// fails once done.
func (s *Spool) Lost(err error) { s.readFailed(err) }

// NewSpool creates an empty spool in the directory for temporary files.
// The file loses its name at once where the system allows it (it is then
// freed when the process ends, however it ends); Close removes it anyway.
func NewSpool() (*Spool, error) {
	f, err := os.CreateTemp("", ".wellknown-spool-*")
	if err != nil {
		return nil, err
	}
	s := &Spool{f: f, name: f.Name()}
	if os.Remove(s.name) == nil {
		s.name = ""
	}
	return s, nil
}

// Close releases the spool. The bundle's spooled files cannot be read
// after.
func (s *Spool) Close() error {
	err := s.f.Close()
	if s.name != "" {
		if rerr := os.Remove(s.name); !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}

// Put appends body to the spool and returns where it lies: for bytes put
// before the file that holds them is added (see Bundle.AddSpooled).
func (s *Spool) Put(body []byte) (*Spooled, error) { return s.PutAfter(nil, body) }

// PutAfter appends head and then body to the spool, in one run, and
// returns where body lies: for a holder that names body by its handle
// (see Handle) and needs a few bytes beside it, for each of many, which
// it reads back (see Heads) rather than hold.
func (s *Spool) PutAfter(head, body []byte) (*Spooled, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending = append(s.pending, head...)
	at := &Spooled{spool: s, off: s.written + int64(len(s.pending)), size: len(body)}
	if len(body) >= spoolBuffer {
		// Written at once, after the pending bytes: in the buffer, a long
		// history's changelog would grow it to its size for the rest of
		// the build.
		if err := s.flush(); err != nil {
			return nil, err
		}
		return at, s.write(body)
	}
	s.pending = append(s.pending, body...)
	if len(s.pending) < spoolBuffer {
		return at, nil
	}
	return at, s.flush()
}

// SpoolWriter puts bytes in a spool as they are made, a piece at each
// Write, for a file too large to gather whole first: a long history's
// changelog page as it renders. Other bytes may be put between two pieces
// (another page rendering at the same time); the pieces are read back as
// one file all the same.
type SpoolWriter struct {
	spool      *Spool
	head, tail *Spooled
}

// NewWriter returns a writer of new bytes to s.
func (s *Spool) NewWriter() *SpoolWriter {
	return &SpoolWriter{spool: s}
}

// Write puts p in the spool after the bytes written before. It keeps no
// reference to p.
func (w *SpoolWriter) Write(p []byte) (int, error) {
	at, err := w.spool.Put(p)
	if err != nil {
		return 0, err
	}
	switch {
	case w.head == nil:
		w.head, w.tail = at, at
	case w.tail.off+int64(w.tail.size) == at.off:
		w.tail.size += at.size // nothing was put between: one run
	default:
		w.tail.next, w.tail = at, at
	}
	return len(p), nil
}

// Spooled returns where the bytes written lie. Nothing is to be written
// after.
func (w *SpoolWriter) Spooled() *Spooled {
	if w.head == nil {
		return &Spooled{spool: w.spool}
	}
	return w.head
}

// flush writes the pending bytes. The caller holds mu.
func (s *Spool) flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	if err := s.write(s.pending); err != nil {
		return err
	}
	s.pending = s.pending[:0]
	return nil
}

// write writes body at the end of the file. The caller holds mu.
func (s *Spool) write(body []byte) error {
	// A file cut short under the spool would be extended past a hole,
	// whose bytes read back as zeros, not as an error.
	if fi, err := s.f.Stat(); err != nil {
		return err
	} else if fi.Size() != s.written {
		return fmt.Errorf("the file holds %d bytes of the %d written to it", fi.Size(), s.written)
	}
	if _, err := s.f.WriteAt(body, s.written); err != nil {
		return err
	}
	s.written += int64(len(body))
	return nil
}

// Read returns the bytes at at, in a new slice. The spool keeps the
// first error (see ReadFailed).
func (at *Spooled) Read() ([]byte, error) {
	r, err := at.reader()
	if err != nil {
		return nil, at.spool.readFailed(err)
	}
	body := make([]byte, at.len())
	if _, err = io.ReadFull(r, body); err != nil {
		return nil, at.spool.readFailed(err)
	}
	return body, nil
}

// ReadAppend appends the bytes at at to dst and returns the result, for a
// caller that reads many in turn into one buffer, where Read makes a new
// slice each time. The spool keeps the first error (see ReadFailed).
func (at *Spooled) ReadAppend(dst []byte) ([]byte, error) {
	r, err := at.reader()
	if err != nil {
		return dst, at.spool.readFailed(err)
	}
	n := len(dst)
	dst = slices.Grow(dst, at.len())[:n+at.len()]
	if _, err = io.ReadFull(r, dst[n:]); err != nil {
		return dst[:n], at.spool.readFailed(err)
	}
	return dst, nil
}

// readFailed keeps err if it is the first read back that failed, and
// returns it.
func (s *Spool) readFailed(err error) error {
	s.mu.Lock()
	s.readErr = cmp.Or(s.readErr, err)
	s.mu.Unlock()
	return err
}

// ReadFailed returns the error of the first read back (Spooled.Read)
// that failed, if any: a reader that cannot return an error itself (see
// timeline.Builder.StoreChanges) goes on with nothing, and its caller
// fails once done.
func (s *Spool) ReadFailed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.readErr == nil {
		return nil
	}
	return fmt.Errorf("reading the build's temporary file back: %v", s.readErr)
}

// readingBack is the error of a file at site path p whose bytes could not
// be read back from a spool.
func readingBack(p string, err error) error {
	return fmt.Errorf("reading %s back: %v", p, err)
}

// len returns the number of bytes at at, in all its runs.
func (at *Spooled) len() int {
	n := 0
	for ; at != nil; at = at.next {
		n += at.size
	}
	return n
}

// reader returns a reader of the bytes at at, for those too large to
// read back whole (see File.Reader).
func (at *Spooled) reader() (io.Reader, error) {
	s := at.spool
	last := at
	for last.next != nil {
		last = last.next
	}
	if err := s.writtenTo(last.off + int64(last.size)); err != nil {
		return nil, err
	}
	if at.next == nil {
		return io.NewSectionReader(s.f, at.off, int64(at.size)), nil
	}
	var runs []io.Reader
	for ; at != nil; at = at.next {
		runs = append(runs, io.NewSectionReader(s.f, at.off, int64(at.size)))
	}
	return io.MultiReader(runs...), nil
}

// writtenTo writes the pending bytes if the file does not hold every
// byte before offset end yet. Pending bytes are not written out for
// each read: reads between puts would break the writes up.
func (s *Spool) writtenTo(end int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if end > s.written {
		return s.flush()
	}
	return nil
}

// immutable reports whether the file at site path p is one a site never
// rewrites once published: an archived tool version or a feed archive.
func immutable(p string) bool {
	return strings.HasPrefix(p, paths.SchemaArchive) || strings.HasPrefix(p, paths.FeedArchives)
}
