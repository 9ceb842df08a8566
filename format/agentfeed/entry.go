package agentfeed

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
)

// A Signer signs entry payloads and snapshots with an Ed25519 key.
type Signer interface {
	// KeyID is the DID URL of the key, e.g. did:web:example.com#key-1.
	KeyID() string
	Sign(msg []byte) ([]byte, error)
}

// A Verifier checks signatures made by one Ed25519 key.
type Verifier interface {
	// KeyID is the DID URL of the key, e.g. did:web:example.com#key-1.
	KeyID() string
	Verify(msg, sig []byte) bool
}

// NewSigner returns a Signer for an Ed25519 private key.
func NewSigner(keyID string, key ed25519.PrivateKey) Signer {
	return ed25519Signer{keyID, key}
}

// NewVerifier returns a Verifier for an Ed25519 public key.
func NewVerifier(keyID string, key ed25519.PublicKey) Verifier {
	return ed25519Verifier{keyID, key}
}

type ed25519Signer struct {
	keyID string
	key   ed25519.PrivateKey
}

func (s ed25519Signer) KeyID() string { return s.keyID }

func (s ed25519Signer) Sign(msg []byte) ([]byte, error) {
	if len(s.key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("signing key %s: %d bytes, want %d", s.keyID, len(s.key), ed25519.PrivateKeySize)
	}
	return ed25519.Sign(s.key, msg), nil
}

type ed25519Verifier struct {
	keyID string
	key   ed25519.PublicKey
}

func (v ed25519Verifier) KeyID() string { return v.keyID }

func (v ed25519Verifier) Verify(msg, sig []byte) bool {
	return len(v.key) == ed25519.PublicKeySize && ed25519.Verify(v.key, msg, sig)
}

// sigEncoding is base64url without padding; Strict rejects non-zero trailing
// bits so that each signature has exactly one text form.
var sigEncoding = base64.RawURLEncoding.Strict()

// Entry is one signed entry of a feed.
type Entry struct {
	ID   string
	Type string // af:type
	// Title is one human line a feed reader shows; Type stands in when it
	// is empty. Link is the URL of the endpoint's page for people (the
	// alternate link); it is left out when empty. Neither is signed.
	Title   string
	Link    string
	Updated string // RFC 3339; not signed and never used for ordering
	Summary string // one human line; may be empty
	// Content is the exact signed bytes, the text of <content>. Entries this
	// package makes hold the canonical JSON of the payload.
	Content []byte
	// Sig is the base64url (unpadded) Ed25519 signature over Content.
	Sig string
	// Signer is the DID URL of the signing key (af:signer); foreign feeds
	// may leave it empty.
	Signer string
}

// NewEntry signs the canonical JSON of payload, which must encode as a JSON
// object, and returns the entry.
func NewEntry(s Signer, id, typ, updated, summary string, payload any) (Entry, error) {
	content, err := Canonical(payload)
	if err != nil {
		return Entry{}, fmt.Errorf("entry %s: %w", id, err)
	}
	if !bytes.HasPrefix(content, []byte("{")) {
		return Entry{}, fmt.Errorf("entry %s: payload is %s, want a JSON object", id, content)
	}
	sig, err := s.Sign(content)
	if err != nil {
		return Entry{}, fmt.Errorf("entry %s: %w", id, err)
	}
	return Entry{
		ID:      id,
		Type:    typ,
		Updated: updated,
		Summary: summary,
		Content: content,
		Sig:     sigEncoding.EncodeToString(sig),
		Signer:  s.KeyID(),
	}, nil
}

// Verify checks the signature over the literal Content bytes. The content is
// never re-canonicalised: what was signed is what is checked. An entry that
// names its signer must name the verifier's key.
func (e Entry) Verify(v Verifier) error {
	if e.Signer != "" && e.Signer != v.KeyID() {
		return fmt.Errorf("entry %s: signed by %s, not by %s", e.ID, e.Signer, v.KeyID())
	}
	sig, err := decodeSig(e.Sig)
	if err != nil {
		return fmt.Errorf("entry %s: %w", e.ID, err)
	}
	if !v.Verify(e.Content, sig) {
		return fmt.Errorf("entry %s: signature does not verify under %s", e.ID, v.KeyID())
	}
	return nil
}

// entryRef names the entry at index i in error messages.
func entryRef(i int, id string) string {
	if id == "" {
		id = "no id"
	}
	return fmt.Sprintf("entry %d (%s)", i+1, id)
}

func decodeSig(s string) ([]byte, error) {
	sig, err := sigEncoding.DecodeString(s)
	if err != nil {
		return nil, errors.New("signature is not unpadded base64url")
	}
	if len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("signature is %d bytes, want %d", len(sig), ed25519.SignatureSize)
	}
	return sig, nil
}
