package keyscan

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"math/rand/v2"
	"strings"
	"testing"
)

func testKey() ed25519.PrivateKey {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i*37 + 11)
	}
	return ed25519.NewKeyFromSeed(seed)
}

// The key is found in every encoding, at every offset inside other text.
func TestFindEveryEncoding(t *testing.T) {
	key := testKey()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	seed := key.Seed()
	encodings := map[string]string{
		"raw seed":                   string(seed),
		"raw private key":            string(key),
		"hex seed":                   hex.EncodeToString(seed),
		"HEX seed":                   strings.ToUpper(hex.EncodeToString(seed)),
		"hex private key":            hex.EncodeToString(key),
		"base64 seed":                base64.StdEncoding.EncodeToString(seed),
		"base64 seed, no padding":    base64.RawStdEncoding.EncodeToString(seed),
		"base64url seed":             base64.URLEncoding.EncodeToString(seed),
		"base64url seed, no pad":     base64.RawURLEncoding.EncodeToString(seed),
		"base64 private key":         base64.StdEncoding.EncodeToString(key),
		"base64url private key":      base64.RawURLEncoding.EncodeToString(key),
		"PEM":                        string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"base64 of the seed after 1": base64.StdEncoding.EncodeToString(append([]byte{1}, seed...)),
		"base64 of the seed after 2": base64.StdEncoding.EncodeToString(append([]byte{1, 2}, seed...)),
		"mixed-case hex seed":        mixCase(hex.EncodeToString(seed)),
		"PEM wrapped at 16":          wrap(pemBody(der), 16, "\n"),
		"PEM wrapped at 5, CRLF":     wrap(pemBody(der), 5, "\r\n"),
		"base64 seed with \\n":       wrap(base64.StdEncoding.EncodeToString(seed), 10, "\n"),
		"base64url seed with \\r\\n": wrap(base64.RawURLEncoding.EncodeToString(seed), 7, "\r\n"),
		"hex seed with spaces":       wrap(hex.EncodeToString(seed), 2, " "),
		"PEM in a JSON string":       wrap(pemBody(der), 16, `\n`),
	}
	s := New(key)
	filler := strings.Repeat("lorem ipsum ", 10)
	for name, enc := range encodings {
		for pad := range 30 {
			data := []byte(filler[:pad] + enc + filler)
			if _, found := s.Find(data); !found {
				t.Errorf("%s after %d bytes: not found", name, pad)
			}
			if _, found := s.Find([]byte(enc)); !found {
				t.Errorf("%s alone: not found", name)
			}
			// Across the seam of two chunks of normalised output.
			if _, found := s.Find([]byte(strings.Repeat("x", chunk-len(enc)/2-pad) + enc)); !found {
				t.Errorf("%s across a chunk's end: not found", name)
			}
		}
	}
}

func TestFindNothingElse(t *testing.T) {
	s := New(testKey())
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

// mixCase upper-cases every other letter of s.
func mixCase(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i += 2 {
		b[i] = strings.ToUpper(string(b[i]))[0]
	}
	return string(b)
}

// wrap breaks s into lines of width bytes, ended by eol.
func wrap(s string, width int, eol string) string {
	var b strings.Builder
	for len(s) > width {
		b.WriteString(s[:width] + eol)
		s = s[width:]
	}
	b.WriteString(s)
	return b.String()
}

// pemBody is the base64 body of a PEM block of der, on one line.
func pemBody(der []byte) string { return base64.StdEncoding.EncodeToString(der) }
