// Package leaktest gives tests a signing key written out in every form the
// key loader accepts, each as someone would paste it into a page: the
// loader ignores the case of hex and the line breaks in base64, so a scan
// for the key must too.
package leaktest

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"strings"
)

// Key is a signing key whose base64 holds '+' and '/', which HTML and JSON
// writers like to escape.
var Key = func() ed25519.PrivateKey {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i*37 + 11)
	}
	return ed25519.NewKeyFromSeed(seed)
}()

// Encodings returns key in each form the loader accepts, by name.
func Encodings(key ed25519.PrivateKey) map[string]string {
	seed := key.Seed()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		panic(err) // cannot fail for an Ed25519 key
	}
	body := base64.StdEncoding.EncodeToString(der)
	return map[string]string{
		"raw seed":                  string(seed),
		"hex":                       hex.EncodeToString(seed),
		"HEX":                       strings.ToUpper(hex.EncodeToString(seed)),
		"mixed-case hex":            mixedCase(hex.EncodeToString(seed)),
		"hex of the 64 bytes":       hex.EncodeToString(key),
		"PEM":                       string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"PEM wrapped at 16":         "-----BEGIN PRIVATE KEY-----\n" + Wrap(body, 16, "\n") + "\n-----END PRIVATE KEY-----\n",
		"PEM wrapped at 5, CRLF":    "-----BEGIN PRIVATE KEY-----\r\n" + Wrap(body, 5, "\r\n") + "\r\n-----END PRIVATE KEY-----\r\n",
		"base64":                    base64.StdEncoding.EncodeToString(seed),
		"base64, no padding":        base64.RawStdEncoding.EncodeToString(seed),
		"base64 with \\n":           Wrap(base64.StdEncoding.EncodeToString(seed), 10, "\n"),
		"base64 with \\r\\n":        Wrap(base64.StdEncoding.EncodeToString(seed), 10, "\r\n"),
		"base64url":                 base64.URLEncoding.EncodeToString(seed),
		"base64url, no padding":     base64.RawURLEncoding.EncodeToString(seed),
		"base64url with \\r\\n":     Wrap(base64.RawURLEncoding.EncodeToString(seed), 7, "\r\n"),
		"base64 of the 64 bytes":    base64.StdEncoding.EncodeToString(key),
		"base64url of the 64 bytes": base64.RawURLEncoding.EncodeToString(key),
	}
}

// Text is Encodings without the raw seed, which is not text: the encodings
// a page, template or tool file can hold.
func Text(key ed25519.PrivateKey) map[string]string {
	encs := Encodings(key)
	delete(encs, "raw seed")
	return encs
}

// mixedCase upper-cases every other byte of s.
func mixedCase(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i += 2 {
		if 'a' <= b[i] && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

// Wrap breaks s into lines of width bytes, ended by eol.
func Wrap(s string, width int, eol string) string {
	var b strings.Builder
	for len(s) > width {
		b.WriteString(s[:width] + eol)
		s = s[width:]
	}
	b.WriteString(s)
	return b.String()
}
