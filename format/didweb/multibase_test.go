package didweb

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"testing"
)

// The demo key of the upstream did:web examples (not a secret).
const (
	demoPubHex   = "533b686ce955d2b85bb082c103aa5a66b102f7e75fc842c3d9fe3ddd5c1aa671"
	demoMultikey = "z6Mkk4ARc8R9a8q7GfkUMLTanE3dwN5TfqdPd5PgG9hRvLRE"
)

func TestMultikeyMatchesUpstreamExample(t *testing.T) {
	pub, _ := hex.DecodeString(demoPubHex)
	if got := EncodeMultikey(pub); got != demoMultikey {
		t.Fatalf("EncodeMultikey = %s, want %s", got, demoMultikey)
	}
	back, err := ParseMultibaseKey(demoMultikey)
	if err != nil || !bytes.Equal(back, pub) {
		t.Fatalf("ParseMultibaseKey(%s) = %x, %v", demoMultikey, back, err)
	}
}

func TestBase64URLKeyRoundTrip(t *testing.T) {
	pub := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32)).Public().(ed25519.PublicKey)
	s := EncodeBase64URLKey(pub)
	if s[0] != 'u' {
		t.Fatalf("EncodeBase64URLKey = %s, want u prefix", s)
	}
	back, err := ParseMultibaseKey(s)
	if err != nil || !bytes.Equal(back, pub) {
		t.Fatalf("ParseMultibaseKey(%s) = %x, %v", s, back, err)
	}
}

func TestParseMultibaseKeyRejects(t *testing.T) {
	for _, s := range []string{"", "x123", "uAAAA", "z111", "u!!!", "z0OIl", demoMultikey[:len(demoMultikey)-1]} {
		if _, err := ParseMultibaseKey(s); err == nil {
			t.Errorf("ParseMultibaseKey(%q) succeeded, should have failed", s)
		}
	}
}
