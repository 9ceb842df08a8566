package timeline

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/wellknown-dev/wellknown/internal/varbytes"
)

// Store keeps bytes outside memory: a long history's superseded versions
// (see Builder.KeepPastIn).
type Store interface {
	// Keep keeps b, which it may not hold on to, and returns a number
	// other than 0 that names it.
	Keep(b []byte) (uint64, error)
	// Recall gives back the bytes a number from Keep names.
	Recall(at uint64) ([]byte, error)
	// Lost is told of bytes that could not be given back: a Recall that
	// failed, or bytes that do not decode as what was kept. The versions
	// made of them say nothing, so the store reports the failure where
	// its caller looks before using them, as a change store does (see
	// Builder.StoreChanges).
	Lost(err error)
}

// pastChunkSize is how many superseded versions a history with a store
// keeps in one chunk: a tool's versions are read one after another,
// forwards or backwards, and a history holds one chunk read back, about
// 13 KB.
var pastChunkSize = 128

// pastList holds a tool's superseded versions. Without a store it holds
// them all; with one, it keeps each full chunk of them in the store, and
// holds the versions after the last and the chunk read back last. A
// long history has as many versions as commits, and they were, at a
// hundred bytes each, the largest part of what a build held while it
// signed the feed.
type pastList struct {
	store  Store
	size   int         // how many versions a chunk holds
	chunks []pastChunk // full chunks, oldest first
	tail   []pastVersion
	// tailFrom is the version before the tail's first, last the newest.
	tailFrom, last string
	// read is the chunk read back last. Versions are read on every
	// core (a feed's entries sign in parallel), and two readers that
	// miss it at once both read theirs.
	read atomic.Pointer[decodedChunk]
}

type pastChunk struct {
	at   uint64        // where the store keeps it; 0 for one it could not keep
	held *decodedChunk // one the store could not keep
}

// decodedChunk is a chunk as it was kept.
type decodedChunk struct {
	chunk int
	from  string // the version before its first
	list  []pastVersion
}

func (l *pastList) len() int { return len(l.chunks)*l.size + len(l.tail) }

// add appends p, the newest superseded version.
func (l *pastList) add(p pastVersion) {
	if len(l.tail) == 0 {
		l.tailFrom = l.last
	}
	l.tail = append(l.tail, p)
	l.last = p.version
	if l.store == nil || len(l.tail) < l.size {
		return
	}
	c := &decodedChunk{chunk: len(l.chunks), from: l.tailFrom, list: l.tail}
	at, err := l.store.Keep(c.encode())
	if err != nil {
		// Held instead: it costs memory, not a version.
		l.chunks = append(l.chunks, pastChunk{held: c})
	} else {
		l.chunks = append(l.chunks, pastChunk{at: at})
	}
	l.tail = nil
}

// get returns the i-th superseded version and the version before it.
func (l *pastList) get(i int) (pastVersion, string) {
	c := i / max(l.size, 1)
	if l.store == nil || c >= len(l.chunks) {
		j := i - len(l.chunks)*l.size
		if j == 0 {
			return l.tail[0], l.tailFrom
		}
		return l.tail[j], l.tail[j-1].version
	}
	d := l.chunk(c)
	j := i - c*l.size
	if j == 0 {
		return d.list[0], d.from
	}
	return d.list[j], d.list[j-1].version
}

// chunk returns the c-th full chunk, read back unless it was the last
// one read. A chunk that cannot be read back, or decoded, is one of lost
// versions (see lostVersion), and the store is told.
func (l *pastList) chunk(c int) *decodedChunk {
	if held := l.chunks[c].held; held != nil {
		return held
	}
	if d := l.read.Load(); d != nil && d.chunk == c {
		return d
	}
	b, err := l.store.Recall(l.chunks[c].at)
	d := &decodedChunk{chunk: c}
	if err == nil {
		err = d.decode(b, l.size)
	}
	if err != nil {
		l.store.Lost(fmt.Errorf("reading back the versions of a tool: %v", err))
		d = &decodedChunk{chunk: c, list: make([]pastVersion, l.size)}
		for i := range d.list {
			d.list[i].slug, d.list[i].file, d.list[i].release = lostVersion, lostVersion, lostVersion
		}
	}
	l.read.Store(d)
	return d
}

// encode is c as its store keeps it: the version before its first, then
// each version's fields one after another, its numbers as varints.
func (c *decodedChunk) encode() []byte {
	b := binary.AppendUvarint(nil, uint64(len(c.from)))
	b = append(b, c.from...)
	for i := range c.list {
		p := &c.list[i]
		b = binary.AppendUvarint(b, uint64(len(p.version)))
		b = append(b, p.version...)
		b = binary.AppendVarint(b, p.unix)
		b = append(b, p.commit[:]...)
		b = append(b, p.sha[:]...)
		for _, n := range [...]uint64{p.stored, p.change, uint64(p.slug), uint64(p.file), uint64(p.release)} {
			b = binary.AppendUvarint(b, n)
		}
	}
	return b
}

var errBadChunk = errors.New("not the versions kept")

// lostVersion, as a pastVersion's slug, file and release, says it is of
// a chunk that could not be read back: it names no name (see nameAt), and
// has no change, so that it reads as one that could not be read back
// (see lostChange).
const lostVersion = oddVersion - 1

// lostChange is the change of a version that could not be read back: it
// reads as a change that could not be (see Version.Change), empty, rather
// than as none, which only a tool's first version has.
type lostChange struct{}

func (lostChange) Read() ([]byte, error) { return nil, errBadChunk }

// decode sets c from b, a chunk of n versions that encode made. Bytes
// that are not one are an error, never a panic.
func (c *decodedChunk) decode(b []byte, n int) error {
	r := varbytes.NewReader(b)
	c.from = r.String()
	c.list = make([]pastVersion, n)
	for i := range c.list {
		p := &c.list[i]
		p.version, p.unix = r.String(), r.Varint()
		copy(p.commit[:], r.Bytes(len(p.commit)))
		copy(p.sha[:], r.Bytes(len(p.sha)))
		p.stored, p.change = r.Uvarint(), r.Uvarint()
		p.slug, p.file, p.release = r.Uint32(), r.Uint32(), r.Uint32()
	}
	if r.Failed() || r.Len() != 0 {
		return errBadChunk
	}
	return nil
}
