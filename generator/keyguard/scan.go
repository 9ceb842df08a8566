package keyguard

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"io"
	"strings"
	"sync"
)

const window = 8

// chunk is how much normalised output is searched at a time: small enough
// to stay in cache, large enough that the overlap between chunks is noise.
const chunk = 32 << 10

// A scanner finds a private key in output bytes, in every encoding
// the key loader accepts and a key file or secret holds it in: the raw seed
// (which the raw 64-byte private key starts with), hex, and base64 and
// base64url at each of the three alignments the seed can have inside a
// longer encoded text (so with or without padding, alone, as a 64-byte key
// or as the body of a PEM PKCS#8 block).
//
// The text encodings are matched on the output normalised as the loader
// reads it: with whitespace (and JSON's \n, \r and \t escapes) removed,
// so a PEM body wrapped at any width and base64 broken by \n or \r\n are
// found, and with ASCII letters lowered, so hex in any mix of cases is
// found. Base64 lowered is still the key: only its letters' cases are left
// to guess, which a public key tells apart, so it is refused as well.
// Escapes a browser or JSON reader decodes are decoded first: html/template
// writes '+' as &#43; in HTML, as \u002b in a JavaScript string and as %2b
// in a URL's query, JSON may write '/' as \/, so base64 shown through a
// template field is found too.
//
// # One pass
//
// Every pattern of a table is at least minLen bytes long, so each
// occurrence covers a whole window of 8 bytes starting at a multiple of
// step (step = minLen-7). The scan looks up only those windows in a table
// of every 8-byte window of every pattern (behind a bitmap of their hashes,
// which rules out almost every window without a map lookup), and compares
// a whole pattern only where a window matches: one probe per step bytes of
// output, whatever the number of patterns. The raw seed is searched in the
// output as it is. The text encodings are searched the same way without
// normalising the output first: at every step bytes, the window is the
// next 8 bytes of the normalised form, and a match is compared with the
// normalised text around it. An occurrence, at least minLen normalised
// bytes, spans at least as many bytes of output, so no occurrence falls
// between two probes. Output whose windows span long runs of whitespace is
// normalised whole instead (a chunk at a time), so that no byte is read
// more than a few times.
//
// # A chunk at a time
//
// A file too large to hold whole is searched a chunk at a time
// (FindReader), each chunk starting with the end of the one before that an
// occurrence cut by their seam may start in (see carry). No fixed number
// of bytes is enough for that: whitespace and escaped line breaks between
// the characters of an encoding are left out of the normalised output, so
// an occurrence may span any number of bytes. What is carried is counted
// in normalised bytes instead, with each run of whitespace in it kept as
// one space, so it is never longer than maxCarry.
type scanner struct {
	raw  table // searched in the output as it is
	text table // searched in the normalised output
	// seam is how many bytes at the end of a chunk are carried to the next
	// as they are (see carry), and maxCarry the most carried in all.
	seam, maxCarry int
}

// table finds any of its patterns.
type table struct {
	patterns []pattern
	windows  map[uint64][]hit
	maybe    [1 << 16 / 64]uint64 // bit hash(w) is set for every window w in windows
	step     int
	maxLen   int
}

type pattern struct {
	encoding string // for messages: "hex", "base64url", …
	bytes    []byte
}

// hit is a pattern with a window at offset.
type hit struct {
	pattern, offset int
}

// newScanner returns a scanner for key.
func newScanner(key ed25519.PrivateKey) *scanner {
	seed := key.Seed()
	s := &scanner{raw: table{windows: map[uint64][]hit{}}, text: table{windows: map[uint64][]hit{}}}
	s.raw.add("raw", seed)
	s.text.add("hex", []byte(hex.EncodeToString(seed)))
	for _, enc := range []struct {
		name string
		enc  *base64.Encoding
	}{{"base64", base64.RawStdEncoding}, {"base64url", base64.RawURLEncoding}} {
		// Whole groups of three seed bytes encode the same whatever comes
		// before them, so each alignment is one pattern.
		for skip := range 3 {
			n := (len(seed) - skip) / 3 * 3
			s.text.add(enc.name, bytes.ToLower([]byte(enc.enc.EncodeToString(seed[skip:skip+n]))))
		}
	}
	s.raw.finish()
	s.text.finish()
	s.seam = max(maxEscape, s.raw.maxLen)
	// text.maxLen-1 normalised bytes, each an escape, with a space before
	// each and one after; then the seam, which an escape cut at its start
	// makes at most maxEscape-1 bytes longer.
	s.maxCarry = (s.text.maxLen-1)*(maxEscape+1) + 1 + s.seam + maxEscape - 1
	return s
}

func (t *table) add(encoding string, b []byte) {
	i := len(t.patterns)
	t.patterns = append(t.patterns, pattern{encoding, b})
	for off := 0; off+window <= len(b); off++ {
		w := binary.LittleEndian.Uint64(b[off:])
		t.windows[w] = append(t.windows[w], hit{i, off})
		h := hash(w)
		t.maybe[h/64] |= 1 << (h % 64)
	}
}

// finish sets the step and the longest pattern's length.
func (t *table) finish() {
	minLen := len(t.patterns[0].bytes)
	for _, p := range t.patterns {
		minLen = min(minLen, len(p.bytes))
		t.maxLen = max(t.maxLen, len(p.bytes))
	}
	t.step = minLen - window + 1
}

// Find returns the encoding of the first occurrence of the key in data, and
// whether there is one.
func (s *scanner) Find(data []byte) (encoding string, found bool) {
	if encoding, found := s.raw.find(data); found {
		return encoding, true
	}
	if encoding, found, decided := s.findSampled(data); decided {
		return encoding, found
	}
	return s.findNormalised(data)
}

// readSize is the most bytes FindReader reads at a time: with the bytes
// carried from the chunk before, the most of a file it holds.
var readSize = 256 << 10

// reads hold the chunks FindReader reads.
var reads = sync.Pool{New: func() any { return new([]byte) }}

// FindReader is Find for the size bytes r yields, read a chunk at a time,
// so that a file of any size costs one chunk: a long history's changelog
// is not read back whole. r failing or ending early is an error.
func (s *scanner) FindReader(r io.Reader, size int64) (encoding string, found bool, err error) {
	bp := reads.Get().(*[]byte)
	defer reads.Put(bp)
	if len(*bp) != readSize+s.maxCarry {
		*bp = make([]byte, readSize+s.maxCarry)
	}
	buf := *bp
	for n := 0; ; n = s.carry(buf) {
		m := int(min(int64(len(buf)-n), size))
		if _, err := io.ReadFull(r, buf[n:n+m]); err != nil {
			return "", false, err
		}
		if size -= int64(m); size == 0 {
			encoding, found := s.Find(buf[:n+m])
			return encoding, found, nil
		}
		if encoding, found := s.Find(buf); found {
			return encoding, true, nil
		}
	}
}

// carry moves to the front of data, a chunk of a longer output, the bytes
// the next chunk starts with, and returns how many: those an occurrence
// that data's end cuts may start in. The raw seed starts in the last seam
// bytes, kept as they are. An occurrence of a text pattern ends in the
// last maxEscape bytes or after (an escape that starts before them is
// decoded whole in data), so it holds fewer than text.maxLen normalised
// bytes before the seam, and starts no earlier than the last
// text.maxLen-1 of them, which are kept too. The whitespace among those,
// escaped or not, is kept as one space a run, or a long run of it would
// be carried whole: the normalised output leaves it out, and no escape
// holds a space, so every escape around it decodes as it did.
func (s *scanner) carry(data []byte) int {
	seam := escapeStart(data, len(data)-s.seam)
	from := seam
	for n := 0; n < s.text.maxLen-1 && from > 0; {
		b, m := decodeBefore(data, from)
		from -= m
		n += int(1 - skipped[b])
	}
	n, space := 0, false
	for i := from; i < seam; {
		b, m := decode(data, i)
		if skipped[b] == 0 {
			n += copy(data[n:], data[i:i+m])
		} else if !space {
			data[n] = ' '
			n++
		}
		space = skipped[b] == 1
		i += m
	}
	return n + copy(data[n:], data[seam:])
}

// maxGap bounds the bytes a sampled window of normalised output may span
// beyond its own 8: text that sparse (long runs of whitespace) is
// normalised whole instead, so that no byte is read more than a few times.
const maxGap = 256

// findSampled is findNormalised without normalising the output: it
// normalises only a window of 8 bytes at every step bytes of data, which
// an occurrence, at least minLen normalised bytes long and so at least as
// many bytes of data, cannot fall between, and the text around a window
// that matches. decided is false for data whose windows are too sparse
// (see maxGap).
func (s *scanner) findSampled(data []byte) (encoding string, found, decided bool) {
	t := &s.text
	for p := 0; p < len(data); p += t.step {
		start, end, w := window8(data, p)
		if end-p > window+maxGap {
			return "", false, false
		}
		if end == 0 {
			break // fewer than 8 bytes left
		}
		if h := hash(w); t.maybe[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, h := range t.windows[w] {
			pat := t.patterns[h.pattern]
			if matchesAfter(data, start, pat.bytes[h.offset:]) && matchesBefore(data, start, pat.bytes[:h.offset]) {
				return pat.encoding, true, true
			}
		}
	}
	return "", false, true
}

// window8 returns the first 8 bytes of the normalised form of data from p
// on, as a window, where in data they start and end; end is 0 when data
// has fewer than 8 left.
func window8(data []byte, p int) (start, end int, w uint64) {
	p = escapeStart(data, p)
	start = -1
	n := 0
	for i := p; i < len(data); {
		b, m := data[i], 1
		if escapes[b] {
			b, m = decode(data, i)
		}
		if skipped[b] == 0 {
			if start < 0 {
				start = i
			}
			w |= uint64(folded[b]) << (8 * n)
			n++
		}
		i += m
		if n == window {
			return start, i, w
		}
		if i-p > window+maxGap {
			return p, i, 0
		}
	}
	return len(data), 0, 0
}

// matchesAfter reports whether the normalised form of data from start on
// begins with pat.
func matchesAfter(data []byte, start int, pat []byte) bool {
	for i, j := start, 0; j < len(pat); {
		if i >= len(data) {
			return false
		}
		b, n := decode(data, i)
		i += n
		if skipped[b] == 1 {
			continue
		}
		if folded[b] != pat[j] {
			return false
		}
		j++
	}
	return true
}

// matchesBefore reports whether the normalised form of data before start
// ends with pat.
func matchesBefore(data []byte, start int, pat []byte) bool {
	for end, j := start, len(pat)-1; j >= 0; {
		if end <= 0 {
			return false
		}
		b, n := decodeBefore(data, end)
		end -= n
		if skipped[b] == 1 {
			continue
		}
		if folded[b] != pat[j] {
			return false
		}
		j--
	}
	return true
}

// maxEscape bounds the length of an escape decode reads: "&NewLine;" and
// "&#x0002B;" fit, and so does any shorter spelling of an ASCII byte.
const maxEscape = 10

// decode returns the byte data holds at i and how many bytes of data it
// takes: an escape (see the package comment: JSON's, an HTML character
// reference, a URL's %XX) stands for one byte, any other byte for itself.
func decode(data []byte, i int) (b byte, n int) {
	switch data[i] {
	case '\\':
		if b, n := jsonEscape(data[i:]); n > 0 {
			return b, n
		}
	case '&':
		if b, n := charRef(data[i:]); n > 0 {
			return b, n
		}
	case '%':
		if i+2 < len(data) {
			if v, ok := number(data[i+1:i+3], 16); ok {
				return byte(v), 3
			}
		}
	}
	return data[i], 1
}

// escapes are the bytes an escape starts with.
var escapes = [256]bool{'\\': true, '&': true, '%': true}

// decodeBefore is decode for the byte that ends where data[end] starts.
func decodeBefore(data []byte, end int) (b byte, n int) {
	if s := escapeStart(data, end-1); s < end-1 {
		return decode(data, s)
	}
	return data[end-1], 1
}

// escapeStart returns where the escape holding data[p] starts, or p when
// data[p] is not inside one. An escape holds a byte that starts escapes
// only as its first byte, so the nearest one before p is the only start
// there can be.
func escapeStart(data []byte, p int) int {
	// Most windows have no escape before them: 8 bytes tested at once.
	if p >= maxEscape-1 && !escapes[data[p-9]] && !anyEscape(binary.LittleEndian.Uint64(data[p-8:])) {
		return p
	}
	for s := p - 1; s >= max(0, p-maxEscape+1); s-- {
		if escapes[data[s]] {
			if _, n := decode(data, s); s+n > p {
				return s
			}
			break
		}
	}
	return p
}

// anyEscape reports whether any of the 8 bytes of w starts an escape,
// testing them at once: (x-lo)&^x&hi is not 0 exactly when a byte of x is 0.
func anyEscape(w uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	zero := func(x uint64) uint64 { return (x - lo) &^ x & hi }
	return zero(w^('\\'*lo))|zero(w^('&'*lo))|zero(w^('%'*lo)) != 0
}

// jsonEscape returns the byte the JSON escape data starts with stands for,
// and its length; n is 0 for none. Only the escapes of ASCII bytes count:
// \n, \r, \t, \/ and \u00XX.
func jsonEscape(data []byte) (b byte, n int) {
	if len(data) < 2 {
		return 0, 0
	}
	switch data[1] {
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case '/':
		return '/', 2
	case 'u':
		if len(data) >= 6 {
			if v, ok := number(data[2:6], 16); ok && v < 0x80 {
				return byte(v), 6
			}
		}
	}
	return 0, 0
}

// charRef returns the byte the HTML character reference data starts with
// stands for, and its length; n is 0 for none. Numeric references count
// for every ASCII byte, named ones for those base64 and PEM use.
func charRef(data []byte) (b byte, n int) {
	end := bytes.IndexByte(data[:min(len(data), maxEscape)], ';')
	if end < 3 {
		return 0, 0
	}
	ref := data[1:end]
	if ref[0] != '#' {
		b, ok := namedRefs[string(ref)]
		if !ok {
			return 0, 0
		}
		return b, end + 1
	}
	digits, base := ref[1:], 10
	if digits[0] == 'x' || digits[0] == 'X' {
		digits, base = digits[1:], 16
	}
	if v, ok := number(digits, base); ok && v < 0x80 {
		return byte(v), end + 1
	}
	return 0, 0
}

// namedRefs are the named character references of the bytes base64,
// base64url and PEM are made of (letters and digits have none).
var namedRefs = map[string]byte{
	"plus": '+', "sol": '/', "equals": '=', "lowbar": '_', "hyphen": '-',
	"NewLine": '\n', "Tab": '\t',
}

// number parses digits, at least one, in base 10 or 16.
func number(digits []byte, base int) (v int, ok bool) {
	for _, c := range digits {
		d := strings.IndexByte("0123456789abcdef"[:base], folded[c])
		if d < 0 {
			return 0, false
		}
		v = v*base + d
	}
	return v, len(digits) > 0
}

// findNormalised is text.find on the normalised form of data, made a chunk
// at a time.
func (s *scanner) findNormalised(data []byte) (encoding string, found bool) {
	bp := buffers.Get().(*[]byte)
	defer buffers.Put(bp)
	escaped := bytes.IndexByte(data, '\\') >= 0 || bytes.IndexByte(data, '&') >= 0 || bytes.IndexByte(data, '%') >= 0
	// Each chunk starts with the last maxLen-1 bytes of the one before, so
	// that an occurrence across the seam is whole in one of them.
	keep := 0
	for i := 0; i < len(data); {
		buf := *bp
		var n int
		if escaped {
			n, i = normaliseEscapes(buf, keep, data, i)
		} else {
			n, i = normalise(buf, keep, data, i)
		}
		if encoding, found := s.text.find(buf[:n]); found {
			return encoding, true
		}
		keep = min(n, s.text.maxLen-1)
		copy(buf, buf[n-keep:n])
	}
	return "", false
}

// buffers hold normalised output: a chunk and the overlap before it.
var buffers = sync.Pool{New: func() any { b := make([]byte, chunk+maxPattern); return &b }}

// maxPattern bounds the length of a text pattern: the hex of a seed.
const maxPattern = 2 * ed25519.SeedSize

// folded maps a byte to its normalised form; skipped says which bytes the
// normalised output leaves out (see the package comment).
var folded, skipped = func() (f, s [256]byte) {
	for b := range 256 {
		f[b] = byte(b)
		if 'A' <= b && b <= 'Z' {
			f[b] = byte(b + 'a' - 'A')
		}
	}
	for _, b := range []byte(" \n\r\t\f\v") {
		s[b] = 1
	}
	return f, s
}()

// normalise writes into buf from n on the normalised form of data from i
// on, until buf holds a chunk or data ends, and returns buf's length and
// where in data it stopped. Without a branch per byte: a skipped byte is
// written and then overwritten.
func normalise(buf []byte, n int, data []byte, i int) (int, int) {
	end := min(len(data), i+chunk)
	for _, b := range data[i:end] {
		buf[n] = folded[b]
		n += int(1 - skipped[b])
	}
	return n, end
}

// normaliseEscapes is normalise for data holding bytes that start escapes,
// which also decodes the escapes.
func normaliseEscapes(buf []byte, n int, data []byte, i int) (int, int) {
	end := min(len(data), i+chunk)
	for i < end {
		b, m := decode(data, i)
		i += m
		buf[n] = folded[b]
		n += int(1 - skipped[b])
	}
	return n, i
}

// find returns the encoding of the first of t's patterns in data, and
// whether there is one.
func (t *table) find(data []byte) (encoding string, found bool) {
	for i := 0; i+window <= len(data); i += t.step {
		w := binary.LittleEndian.Uint64(data[i:])
		if h := hash(w); t.maybe[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, h := range t.windows[w] {
			p := t.patterns[h.pattern].bytes
			start := i - h.offset
			if start >= 0 && start+len(p) <= len(data) && bytes.Equal(data[start:start+len(p)], p) {
				return t.patterns[h.pattern].encoding, true
			}
		}
	}
	return "", false
}

// hash maps a window to 16 bits (Fibonacci hashing).
func hash(w uint64) uint64 { return w * 0x9e3779b97f4a7c15 >> 48 }
