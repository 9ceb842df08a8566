package agentfeed

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"strings"
	"testing"
)

func TestNewEntrySignsCanonicalPayload(t *testing.T) {
	payload := Announcement{EndpointID: "e", Endpoint: "https://x", Protocol: "mcp", Version: "1", AssertedAt: "2026-01-01T00:00:00Z"}
	e, err := NewEntry(testSigner(), "urn:af:x:1", TypeAnnouncement, "2026-01-01T00:00:00Z", "s", payload)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Canonical(payload)
	if !bytes.Equal(e.Content, want) {
		t.Errorf("Content = %s, want the canonical payload %s", e.Content, want)
	}
	if e.Signer != testKeyID {
		t.Errorf("Signer = %q, want %q", e.Signer, testKeyID)
	}
	if err := e.Verify(testVerifier()); err != nil {
		t.Errorf("Verify: %v", err)
	}
}

func TestNewEntryRejectsNonObjectPayload(t *testing.T) {
	for _, payload := range []any{"text", []string{"a"}, 42, nil} {
		if _, err := NewEntry(testSigner(), "urn:af:x:1", TypeAnnouncement, "t", "", payload); err == nil {
			t.Errorf("NewEntry(%#v) succeeded, want an error", payload)
		}
	}
}

func TestVerifyRejects(t *testing.T) {
	good, err := NewEntry(testSigner(), "urn:af:x:1", TypeAnnouncement, "t", "", Announcement{EndpointID: "e"})
	if err != nil {
		t.Fatal(err)
	}
	otherKey := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, ed25519.SeedSize))
	otherVerifier := NewVerifier(testKeyID, otherKey.Public().(ed25519.PublicKey))
	for _, tc := range []struct {
		name   string
		mutate func(*Entry)
		v      Verifier
		want   string
	}{
		{"other key", func(*Entry) {}, otherVerifier, "does not verify"},
		{"other signer named", func(e *Entry) { e.Signer = "did:web:example.com#key-2" }, testVerifier(), "signed by did:web:example.com#key-2"},
		{"padded signature", func(e *Entry) { e.Sig += "==" }, testVerifier(), "not unpadded base64url"},
		{"standard base64 alphabet", func(e *Entry) { e.Sig = "+" + e.Sig[1:] }, testVerifier(), "not unpadded base64url"},
		{"short signature", func(e *Entry) { e.Sig = e.Sig[:80] }, testVerifier(), "60 bytes"},
		{"empty signature", func(e *Entry) { e.Sig = "" }, testVerifier(), "0 bytes"},
		{"re-canonicalisable content", func(e *Entry) { e.Content = append([]byte(" "), e.Content...) }, testVerifier(), "does not verify"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := good
			e.Content = bytes.Clone(good.Content)
			tc.mutate(&e)
			err := e.Verify(tc.v)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Verify = %v, want error containing %q", err, tc.want)
			}
		})
	}
}

// TestMutationsBreakOnlyTheirEntry flips every byte of every entry's content
// and signature in turn: exactly the mutated entry must stop verifying.
func TestMutationsBreakOnlyTheirEntry(t *testing.T) {
	entries := exampleFeed(t).Entries
	deprecation, err := NewEntry(testSigner(), "urn:af:x:3", TypeDeprecation, "2026-06-01T00:00:00Z", "", Deprecation{EndpointID: "e", AnnouncedAt: "a", Sunset: "s"})
	if err != nil {
		t.Fatal(err)
	}
	entries = append(entries, deprecation)
	v := testVerifier()

	check := func(t *testing.T, mutated []Entry, bad int, what string) {
		t.Helper()
		for i, e := range mutated {
			err := e.Verify(v)
			if i == bad && err == nil {
				t.Fatalf("entry %d still verifies after %s", i, what)
			}
			if i != bad && err != nil {
				t.Fatalf("entry %d fails after %s of entry %d: %v", i, what, bad, err)
			}
		}
	}
	for i := range entries {
		for j := range entries[i].Content {
			mutated := cloneEntries(entries)
			mutated[i].Content[j] ^= 0xff
			check(t, mutated, i, fmt.Sprintf("flipping content byte %d", j))
		}
		sig, err := sigEncoding.DecodeString(entries[i].Sig)
		if err != nil {
			t.Fatal(err)
		}
		for j := range sig {
			flipped := bytes.Clone(sig)
			flipped[j] ^= 0xff
			mutated := cloneEntries(entries)
			mutated[i].Sig = sigEncoding.EncodeToString(flipped)
			check(t, mutated, i, fmt.Sprintf("flipping signature byte %d", j))
		}
	}
}

func cloneEntries(entries []Entry) []Entry {
	out := make([]Entry, len(entries))
	for i, e := range entries {
		e.Content = bytes.Clone(e.Content)
		out[i] = e
	}
	return out
}
