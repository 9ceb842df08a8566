package varbytes

import (
	"encoding/binary"
	"math"
	"testing"
)

// Each kind of read gives back what encoding/binary appended; a read
// past the end, or of a varint that does not end, fails the reader, and
// every read after it gives zero.
func TestReaderReadsWhatWasAppended(t *testing.T) {
	b := binary.AppendUvarint(nil, 300)
	b = binary.AppendVarint(b, -5)
	b = binary.AppendUvarint(b, 3)
	b = append(b, "abc"...)
	b = append(b, 1, 2)
	b = binary.AppendUvarint(b, math.MaxUint32)
	r := NewReader(b)
	if n, v, s, raw, u := r.Uvarint(), r.Varint(), r.String(), r.Bytes(2), r.Uint32(); n != 300 || v != -5 || s != "abc" ||
		string(raw) != "\x01\x02" || u != math.MaxUint32 || r.Failed() || r.Len() != 0 {
		t.Fatalf("read %d %d %q %v %d, failed %v, %d left", n, v, s, raw, u, r.Failed(), r.Len())
	}
	for cut := range len(b) {
		r := NewReader(b[:cut])
		_, _, _, _, _ = r.Uvarint(), r.Varint(), r.String(), r.Bytes(2), r.Uint32()
		if !r.Failed() || r.Len() != 0 || r.Uvarint() != 0 || r.String() != "" {
			t.Errorf("cut to %d bytes: failed %v, %d left", cut, r.Failed(), r.Len())
		}
	}
	if r := NewReader(binary.AppendUvarint(nil, math.MaxUint32+1)); r.Uint32() != 0 || !r.Failed() {
		t.Error("a uvarint past 32 bits read as a Uint32 does not fail")
	}
	if r := NewReader([]byte{0x80, 0x80}); r.Varint() != 0 || !r.Failed() {
		t.Error("a varint that does not end does not fail")
	}
}
