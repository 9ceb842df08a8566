// Package varbytes reads back bytes a build encoded for itself (a chunk of
// commits or of tool versions kept in its spool): numbers as
// binary.AppendUvarint and binary.AppendVarint write them, strings as
// their length, a uvarint, then their bytes. It never reads past the
// bytes it has, since the spool may give back fewer or other bytes than
// were put: a read that cannot be made fails the Reader, and every read
// after it gives zero.
package varbytes

import (
	"encoding/binary"
	"math"
)

// Reader reads b from its start.
type Reader struct {
	b      []byte
	failed bool
}

// NewReader returns a Reader of b, which it does not copy.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Len is how many bytes are left.
func (r *Reader) Len() int { return len(r.b) }

// Failed reports whether a read could not be made.
func (r *Reader) Failed() bool { return r.failed }

// fail fails the reader: nothing is left to read.
func (r *Reader) fail() { r.b, r.failed = nil, true }

// Uvarint reads a uvarint.
func (r *Reader) Uvarint() uint64 {
	n, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return n
}

// Uint32 reads a uvarint that fits 32 bits.
func (r *Reader) Uint32() uint32 {
	n := r.Uvarint()
	if n > math.MaxUint32 {
		r.fail()
		return 0
	}
	return uint32(n)
}

// Varint reads a varint.
func (r *Reader) Varint() int64 {
	n, k := binary.Varint(r.b)
	if k <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[k:]
	return n
}

// Bytes reads the next n bytes, which share the Reader's.
func (r *Reader) Bytes(n int) []byte {
	if n > len(r.b) {
		r.fail()
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

// String reads a string after its length, as a string of its own.
func (r *Reader) String() string {
	n := r.Uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	return string(r.Bytes(int(n)))
}
