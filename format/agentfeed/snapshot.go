package agentfeed

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wellknown-dev/wellknown/internal/prettyjson"
)

// snapshotDoc is the snapshot document; its field order is the reference
// implementation's.
type snapshotDoc struct {
	ID string `json:"id"`
	// SpecVersion is a JSON number here, unlike the feed's text element.
	SpecVersion int               `json:"spec-version"`
	GeneratedAt string            `json:"generated-at"`
	Endpoints   []Endpoint        `json:"endpoints"`
	ByProtocol  map[string]string `json:"by-protocol"`
	FeedStatus  Status            `json:"feed-status"`
	Signature   *snapshotSig      `json:"signature,omitempty"`
}

type snapshotSig struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"value"`
}

// Snapshot returns the signed snapshot document of st, indented JSON. id is
// the site's DID; generatedAt should be the newest entry's time, never the
// clock, so that rebuilding gives the same bytes. The signature covers the
// canonical JSON of the document without its "signature" member.
func Snapshot(s Signer, st *State, id, generatedAt string, status Status) ([]byte, error) {
	if !status.known() {
		return nil, fmt.Errorf("snapshot: unknown feed status %q", status)
	}
	doc := snapshotDoc{
		ID:          id,
		GeneratedAt: generatedAt,
		Endpoints:   st.Endpoints,
		ByProtocol:  st.ByProtocol,
		FeedStatus:  status,
	}
	if doc.Endpoints == nil {
		doc.Endpoints = []Endpoint{}
	}
	if doc.ByProtocol == nil {
		doc.ByProtocol = map[string]string{}
	}
	unsigned, err := Canonical(doc)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	sig, err := s.Sign(unsigned)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	doc.Signature = &snapshotSig{Algorithm: "ed25519", Value: sigEncoding.EncodeToString(sig)}
	out, err := prettyjson.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	return out, nil
}

// VerifySnapshot checks the embedded signature of a snapshot document over
// the canonical JSON of the document without its "signature" member.
func VerifySnapshot(data []byte, v Verifier) error {
	// Canonicalising first rejects duplicate members, which readers could
	// resolve differently from the map below.
	if _, err := CanonicalizeJSON(data); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return fmt.Errorf("snapshot is not a JSON object: %w", err)
	}
	rawSig, ok := members["signature"]
	if !ok {
		return errors.New("snapshot has no signature")
	}
	var sig snapshotSig
	if err := json.Unmarshal(rawSig, &sig); err != nil {
		return fmt.Errorf("snapshot signature: %w", err)
	}
	if sig.Algorithm != "ed25519" {
		return fmt.Errorf("snapshot signature algorithm %q, want ed25519", sig.Algorithm)
	}
	sigBytes, err := decodeSig(sig.Value)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	delete(members, "signature")
	unsigned, err := Canonical(members)
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if !v.Verify(unsigned, sigBytes) {
		return fmt.Errorf("snapshot signature does not verify under %s", v.KeyID())
	}
	return nil
}
