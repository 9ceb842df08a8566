package bundle

import "fmt"

// Heads reads back the heads PutAfter put before bodies that handles
// name, a window of the spool at a time: a read of the spool is a system
// call, and a reader that reads the heads of many bodies in the order
// opposite to the one they were put in (a replay, oldest first, of forms
// put as a log named them, newest first) finds the next few in the window
// the last read took. It keeps two windows, for two such readers taking
// turns (a plan running ahead of what it plans for): a read past a
// window takes the place of the window it walked out of, not the
// other reader's. It is not safe for use by several goroutines at once.
type Heads struct {
	spool   *Spool
	size    int       // of a window
	windows [2]window // the one read last first
}

// window is bytes of a spool, those just before offset end.
type window struct {
	end   int64
	bytes []byte
}

// start returns the offset of the window's first byte.
func (w window) start() int64 { return w.end - int64(len(w.bytes)) }

// NewHeads returns a reader of heads in s, in windows of size bytes.
func (s *Spool) NewHeads(size int) *Heads {
	return &Heads{spool: s, size: size}
}

// Read reads into dst the len(dst) bytes that lie just before those the
// handle names: the head PutAfter put before them. The spool keeps the
// first error (see ReadFailed).
func (h *Heads) Read(handle uint64, dst []byte) error {
	at := h.spool.named(handle)
	for i := range h.windows {
		w := &h.windows[i]
		if at.off-int64(len(dst)) >= w.start() && at.off <= w.end {
			copy(dst, w.bytes[at.off-int64(len(dst))-w.start():])
			h.windows[0], h.windows[i] = h.windows[i], h.windows[0]
			return nil
		}
	}
	n := max(len(dst), h.size)
	if int64(n) > at.off {
		n = int(at.off)
	}
	if n < len(dst) {
		return h.spool.readFailed(fmt.Errorf("no %d bytes lie before offset %d", len(dst), at.off))
	}
	i := h.walkedOutOf(at.off-int64(len(dst)), at.off)
	w := h.windows[i]
	w.end, w.bytes = at.off, w.bytes[:0]
	if cap(w.bytes) < n {
		w.bytes = make([]byte, 0, n)
	}
	w.bytes = w.bytes[:n]
	err := h.spool.writtenTo(at.off)
	if err == nil {
		_, err = h.spool.f.ReadAt(w.bytes, at.off-int64(n))
	}
	if err != nil {
		w.end, w.bytes = 0, w.bytes[:0]
		h.windows[i] = w
		return h.spool.readFailed(err)
	}
	// The window read last goes first.
	copy(h.windows[1:i+1], h.windows[:i])
	h.windows[0] = w
	copy(dst, w.bytes[n-len(dst):])
	return nil
}

// walkedOutOf returns the window to read the head at [from, to) into:
// the one a reader going down the spool has just walked out of, which
// starts at or above from and less than a window above to; or, when
// none does, the one read longest ago.
func (h *Heads) walkedOutOf(from, to int64) int {
	out, nearest := len(h.windows)-1, int64(-1)
	for i, w := range h.windows {
		start := w.start()
		if len(w.bytes) > 0 && start >= from && start-to < int64(h.size) && (nearest < 0 || start < nearest) {
			out, nearest = i, start
		}
	}
	return out
}
