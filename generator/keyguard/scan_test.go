package keyguard

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wellknown-dev/wellknown/internal/leaktest"
)

// The key is found in every encoding the loader accepts, and in a few it
// does not but a reader decodes at a glance, at every offset inside other
// text, and across the seam of two chunks of normalised output.
func TestFindEveryEncoding(t *testing.T) {
	s := newScanner(leaktest.Key)
	encodings := everyEncoding(t)
	if _, _, decided := s.findSampled([]byte(encodings[sparse])); decided {
		t.Error("the sampled search decided on text too sparse for it")
	}
	filler := strings.Repeat("lorem ipsum ", 10)
	for name, enc := range encodings {
		s.mustFind(t, name+" alone", enc)
		for pad := range 30 {
			s.mustFind(t, fmt.Sprintf("%s after %d bytes", name, pad), filler[:pad]+enc+filler)
			s.mustFind(t, fmt.Sprintf("%s across a chunk's end, %d", name, pad), strings.Repeat("x", chunk-len(enc)/2-pad)+enc)
		}
	}
}

// sparse names the encoding of everyEncoding too sparse for the sampled
// search.
const sparse = "base64 with 300 spaces between its characters"

// everyEncoding returns leaktest.Key in every encoding the scanner finds,
// by name.
func everyEncoding(t *testing.T) map[string]string {
	t.Helper()
	key := leaktest.Key
	seed := key.Seed()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	encodings := leaktest.Encodings(key)
	for name, enc := range map[string]string{
		"raw private key":                         string(key),
		"base64 of the seed after 1":              base64.StdEncoding.EncodeToString(append([]byte{1}, seed...)),
		"base64 of the seed after 2":              base64.StdEncoding.EncodeToString(append([]byte{1, 2}, seed...)),
		"hex with spaces":                         leaktest.Wrap(hex.EncodeToString(seed), 2, " "),
		"PEM in a JSON string":                    leaktest.Wrap(base64.StdEncoding.EncodeToString(der), 16, `\n`),
		"base64 through html/template":            template.HTMLEscapeString(base64.StdEncoding.EncodeToString(seed)),
		"base64 in hex references":                hexRefs(base64.StdEncoding.EncodeToString(seed)),
		"base64 in named references":              strings.NewReplacer("+", "&plus;", "/", "&sol;", "=", "&equals;").Replace(base64.StdEncoding.EncodeToString(seed)),
		"PEM with &#10; line breaks":              leaktest.Wrap(base64.StdEncoding.EncodeToString(der), 16, "&#10;"),
		"base64 in a JavaScript string":           template.JSEscapeString(base64.StdEncoding.EncodeToString(seed)),
		"base64url in \\u escapes":                strings.NewReplacer("-", `\u002d`, "_", `\u005F`).Replace(base64.RawURLEncoding.EncodeToString(seed)),
		"base64 in a URL's query":                 template.URLQueryEscaper(base64.StdEncoding.EncodeToString(seed)),
		"base64 with \\r\\n through encoding/xml": xmlEscape(leaktest.Wrap(base64.StdEncoding.EncodeToString(seed), 10, "\r\n")),
		"base64 with \\/":                         strings.ReplaceAll(base64.StdEncoding.EncodeToString(seed), "/", `\/`),
		sparse:                                    leaktest.Wrap(base64.StdEncoding.EncodeToString(seed), 1, strings.Repeat(" ", 300)),
	} {
		encodings[name] = enc
	}
	return encodings
}

// hexRefs writes every '+', '/' and '=' of s as a hexadecimal character
// reference, in both cases.
func hexRefs(s string) string {
	return strings.NewReplacer("+", "&#x2b;", "/", "&#x2F;", "=", "&#X3D;").Replace(s)
}

// xmlEscape is s as encoding/xml writes text, line breaks as &#xD;&#xA;.
func xmlEscape(s string) string {
	var b strings.Builder
	if err := xml.EscapeText(&b, []byte(s)); err != nil {
		panic(err)
	}
	return b.String()
}

// mustFind fails unless Find finds the key in data, and so do both ways
// of searching the text encodings, unless the sampled one cannot decide.
func (s *scanner) mustFind(t *testing.T, name, data string) {
	t.Helper()
	if _, found := s.Find([]byte(data)); !found {
		t.Errorf("%s: not found", name)
	}
	if _, found := s.raw.find([]byte(data)); found {
		return
	}
	if _, found, decided := s.findSampled([]byte(data)); decided && !found {
		t.Errorf("%s: not found by the sampled search", name)
	}
	if _, found := s.findNormalised([]byte(data)); !found {
		t.Errorf("%s: not found in the normalised output", name)
	}
}

func TestFindNothingElse(t *testing.T) {
	s := newScanner(leaktest.Key)
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	der, _ := x509.MarshalPKCS8PrivateKey(other)
	data := append(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), hex.EncodeToString(other.Seed())...)
	r := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 1<<20)
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	data = append(data, noise...)
	if enc, found := s.Find(data); found {
		t.Errorf("found the key (%s) in another key and noise", enc)
	}
	if _, found := s.Find(nil); found {
		t.Error("found the key in nothing")
	}
}

// FindReader finds the key in every encoding across the seam of two chunks
// of a file, at every offset, after text, after none and after whitespace
// the carry keeps as one space; and nothing in text without it.
func TestFindReaderAcrossSeams(t *testing.T) {
	defer func(size int) { readSize = size }(readSize)
	readSize = 64
	s := newScanner(leaktest.Key)
	seam := readSize + s.maxCarry // where the first chunk ends
	for _, before := range []string{"lorem ipsum ", "x", " \n\t", `\n`, "&#10;"} {
		for name, enc := range everyEncoding(t) {
			for in := 1; in < min(len(enc), seam); in++ {
				data := strings.Repeat(before, seam)[:seam-in] + enc + " lorem ipsum"
				if _, found, err := s.FindReader(strings.NewReader(data), int64(len(data))); !found || err != nil {
					t.Errorf("%s, %d bytes of it before the seam after %q: found %v, %v", name, in, before, found, err)
				}
			}
		}
		data := strings.Repeat(before, 4*seam)
		if enc, found, err := s.FindReader(strings.NewReader(data), int64(len(data))); found || err != nil {
			t.Errorf("found the key (%s) in %q repeated: %v", enc, before, err)
		}
	}
}

// A chunk carries at most maxCarry bytes to the next, whatever it ends
// with: the longest escapes, each after whitespace.
func TestCarryIsBounded(t *testing.T) {
	s := newScanner(leaktest.Key)
	for _, unit := range []string{"&#x00002B; ", "&#x00002B;&NewLine;", `\u002b\n`, "%2B%0a", "a ", "a", " "} {
		for skip := range len(unit) {
			data := []byte(strings.Repeat(unit, 4*s.maxCarry)[skip:])
			if n := s.carry(data); n > s.maxCarry {
				t.Errorf("%q repeated from %d: %d bytes carried, more than %d", unit, skip, n, s.maxCarry)
			}
		}
	}
}

// FindReader fails when the reader does, or ends early.
func TestFindReaderFails(t *testing.T) {
	s := newScanner(leaktest.Key)
	if _, _, err := s.FindReader(strings.NewReader("lorem"), 6); err != io.ErrUnexpectedEOF {
		t.Errorf("a reader ending early: %v", err)
	}
	broken := errors.New("broken")
	if _, _, err := s.FindReader(iotest.ErrReader(broken), 6); err != broken {
		t.Errorf("a failing reader: %v", err)
	}
}
