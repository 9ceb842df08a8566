package keyguard

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// escapeByte writes b in one of the spellings the scanner decodes.
func escapeByte(r *rand.Rand, b byte) string {
	switch r.IntN(9) {
	case 0:
		return fmt.Sprintf("&#%d;", b)
	case 1:
		return fmt.Sprintf("&#x%X;", b)
	case 2:
		return fmt.Sprintf("&#x%05x;", b)
	case 3:
		return fmt.Sprintf("%%%02X", b)
	case 4:
		return fmt.Sprintf(`\u%04x`, b)
	case 5:
		switch b {
		case '+':
			return "&plus;"
		case '/':
			return `\/`
		case '=':
			return "&equals;"
		}
	}
	return string(b)
}

// gap is a run of whitespace, literal or escaped, or nothing.
func gap(r *rand.Rand) string {
	if r.IntN(3) > 0 {
		return ""
	}
	units := []string{" ", "\n", "\r\n", "\t", `\n`, `\r`, `\t`, "&#10;", "&NewLine;", "%0a", "%20", `\u000a`, "&Tab;", "&#x00020;"}
	var sb strings.Builder
	for range r.IntN([]int{3, 40, 400}[r.IntN(3)]) + 1 {
		sb.WriteString(units[r.IntN(len(units))])
	}
	return sb.String()
}

// filler is text made of escape starts, whitespace and letters.
func filler(r *rand.Rand, n int) string {
	const alphabet = "ab01&#;%\\u x\n\r\t+/=lorem"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// FindReader finds whatever Find finds in the whole file, whatever the
// chunk size, for the key's text encodings written with random escapes
// and random runs of whitespace between their characters, after random
// text made of escape starts and whitespace.
func TestFindReaderFindsWhatFindFinds(t *testing.T) {
	defer func(size int) { readSize = size }(readSize)
	r := rand.New(rand.NewPCG(1, 2))
	checked := 0
	defer func() { t.Logf("%d found by Find, checked", checked) }()
	for iter := range 1000 {
		seed := make([]byte, ed25519.SeedSize)
		for i := range seed {
			seed[i] = byte(r.IntN(256))
		}
		key := ed25519.NewKeyFromSeed(seed)
		s := newScanner(key)
		var enc string
		switch r.IntN(4) {
		case 0:
			enc = hex.EncodeToString(seed)
		case 1:
			enc = base64.StdEncoding.EncodeToString(seed)
		case 2:
			enc = base64.RawURLEncoding.EncodeToString(key)
		default:
			// The seed at each alignment inside a longer encoded text, as
			// in a PEM body.
			pre := make([]byte, r.IntN(3)+3*r.IntN(3))
			for i := range pre {
				pre[i] = byte(r.IntN(256))
			}
			enc = base64.StdEncoding.EncodeToString(append(append(pre, seed...), 1, 2, 3))
			if r.IntN(2) == 0 {
				enc = strings.NewReplacer("+", "-", "/", "_").Replace(enc)
			}
		}
		var sb strings.Builder
		for i := range len(enc) {
			sb.WriteString(escapeByte(r, enc[i]))
			sb.WriteString(gap(r))
		}
		data := filler(r, r.IntN(3000)) + sb.String() + filler(r, r.IntN(50))
		if r.IntN(5) == 0 {
			data = filler(r, r.IntN(3000)) + string(seed) + filler(r, r.IntN(50))
		}
		_, want := s.Find([]byte(data))
		if !want {
			continue
		}
		checked++
		for _, size := range []int{1, 2, 3, 5, 8, 13, 31, 64, 100, 257, 1000} {
			readSize = size
			_, got, err := s.FindReader(bytes.NewReader([]byte(data)), int64(len(data)))
			if err != nil || !got {
				t.Fatalf("iteration %d, readSize %d: Find finds the key in %q, FindReader does not (%v)", iter, size, data, err)
			}
		}
	}
}
