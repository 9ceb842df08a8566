package bundle

import "fmt"

// Heads reads back the heads PutAfter put before bodies that handles
// name, a window of the spool at a time: a read of the spool is a system
// call, and a reader that reads the heads of many bodies in the order
// opposite to the one they were put in (a replay, oldest first, of forms
// put as a log named them, newest first) finds the next few in the window
// the last read took. It keeps two windows, for two such readers taking
// turns (a plan running ahead of what it plans for), and is not safe for
// use by several goroutines at once.
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
		if start := w.end - int64(len(w.bytes)); at.off-int64(len(dst)) >= start && at.off <= w.end {
			copy(dst, w.bytes[at.off-int64(len(dst))-start:])
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
	// The window read longest ago takes the new bytes.
	w := h.windows[1]
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
		h.windows[1] = w
		return h.spool.readFailed(err)
	}
	h.windows[0], h.windows[1] = w, h.windows[0]
	copy(dst, w.bytes[n-len(dst):])
	return nil
}
