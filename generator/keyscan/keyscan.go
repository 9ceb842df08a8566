// Package keyscan finds a private key in output bytes, in every encoding a
// key file or secret holds it in: the raw seed (which the raw 64-byte
// private key starts with), hex, and base64 and base64url at each of the
// three alignments the seed can have inside a longer encoded text (so with
// or without padding, alone, as a 64-byte key or as the body of a PEM
// PKCS#8 block).
//
// It is the last defence against publishing the signing key: a build scans
// every file of its Bundle before anything is written or served.
//
// # One pass
//
// Every pattern is at least minLen bytes long, so each occurrence covers a
// whole window of 8 bytes starting at a multiple of step (step = minLen-7).
// The scan looks up only those windows in a table of every 8-byte window
// of every pattern (behind a bitmap of their hashes, which rules out almost
// every window without a map lookup), and compares a whole pattern only
// where a window matches: one probe per step bytes of output, whatever the
// number of patterns.
package keyscan

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"strings"
)

const window = 8

// Scanner finds one key.
type Scanner struct {
	patterns []pattern
	windows  map[uint64][]hit
	maybe    [1 << 16 / 64]uint64 // bit hash(w) is set for every window w in windows
	step     int
}

type pattern struct {
	encoding string // for messages: "hex", "base64url", …
	bytes    []byte
}

// hit is a pattern with a window at offset.
type hit struct {
	pattern, offset int
}

// New returns a Scanner for key.
func New(key ed25519.PrivateKey) *Scanner {
	seed := key.Seed()
	s := &Scanner{windows: map[uint64][]hit{}}
	s.add("raw", seed)
	s.add("hex", []byte(hex.EncodeToString(seed)))
	s.add("hex", []byte(strings.ToUpper(hex.EncodeToString(seed))))
	for _, enc := range []struct {
		name string
		enc  *base64.Encoding
	}{{"base64", base64.RawStdEncoding}, {"base64url", base64.RawURLEncoding}} {
		// Whole groups of three seed bytes encode the same whatever comes
		// before them, so each alignment is one pattern.
		for skip := range 3 {
			n := (len(seed) - skip) / 3 * 3
			s.add(enc.name, []byte(enc.enc.EncodeToString(seed[skip:skip+n])))
		}
	}
	minLen := len(seed)
	for _, p := range s.patterns {
		minLen = min(minLen, len(p.bytes))
	}
	s.step = minLen - window + 1
	return s
}

func (s *Scanner) add(encoding string, b []byte) {
	i := len(s.patterns)
	s.patterns = append(s.patterns, pattern{encoding, b})
	for off := 0; off+window <= len(b); off++ {
		w := binary.LittleEndian.Uint64(b[off:])
		s.windows[w] = append(s.windows[w], hit{i, off})
		h := hash(w)
		s.maybe[h/64] |= 1 << (h % 64)
	}
}

// Find returns the encoding of the first occurrence of the key in data, and
// whether there is one.
func (s *Scanner) Find(data []byte) (encoding string, found bool) {
	for i := 0; i+window <= len(data); i += s.step {
		w := binary.LittleEndian.Uint64(data[i:])
		if h := hash(w); s.maybe[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, h := range s.windows[w] {
			p := s.patterns[h.pattern].bytes
			start := i - h.offset
			if start >= 0 && start+len(p) <= len(data) && bytes.Equal(data[start:start+len(p)], p) {
				return s.patterns[h.pattern].encoding, true
			}
		}
	}
	return "", false
}

// hash maps a window to 16 bits (Fibonacci hashing).
func hash(w uint64) uint64 { return w * 0x9e3779b97f4a7c15 >> 48 }
