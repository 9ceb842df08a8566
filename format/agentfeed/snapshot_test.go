package agentfeed

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestSnapshot(t *testing.T) {
	st, err := replay(replayScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Snapshot(testSigner(), st, "did:web:example.com", "2026-05-02T09:30:00Z", StatusActive)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifySnapshot(doc, testVerifier()); err != nil {
		t.Fatalf("VerifySnapshot: %v\n%s", err, doc)
	}
	again, err := Snapshot(testSigner(), st, "did:web:example.com", "2026-05-02T09:30:00Z", StatusActive)
	if err != nil || !bytes.Equal(again, doc) {
		t.Errorf("a second Snapshot of the same state differs (err %v)", err)
	}

	var got struct {
		ID          string            `json:"id"`
		SpecVersion *int              `json:"spec-version"`
		GeneratedAt string            `json:"generated-at"`
		Endpoints   []json.RawMessage `json:"endpoints"`
		ByProtocol  map[string]string `json:"by-protocol"`
		FeedStatus  string            `json:"feed-status"`
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	if got.ID != "did:web:example.com" || got.SpecVersion == nil || *got.SpecVersion != 0 || got.GeneratedAt != "2026-05-02T09:30:00Z" || got.FeedStatus != "active" {
		t.Errorf("snapshot header = %+v", got)
	}
	if want := map[string]string{"rest": "a", "mcp": "b", "a2a": "https://x/d"}; !reflect.DeepEqual(got.ByProtocol, want) {
		t.Errorf("by-protocol = %v, want %v", got.ByProtocol, want)
	}
	wantEndpoints := []string{
		`{"deprecated":{"replacement":"c","sunset":"2027-01-01T00:00:00Z"},"endpoint":"https://x/a2","endpoint-id":"a","protocol":"rest","version":"1.2"}`,
		`{"deprecated":{"sunset":"2026-12-01T00:00:00Z"},"endpoint":"https://x/b","endpoint-id":"b","protocol":"mcp","version":"1.0"}`,
		`{"deprecated":null,"endpoint":"https://x/c","endpoint-id":"c","protocol":"rest","version":"2.0"}`,
		`{"deprecated":null,"endpoint":"","endpoint-id":"z","protocol":"","version":"4"}`,
		`{"deprecated":null,"endpoint":"https://x/d","endpoint-id":"https://x/d","protocol":"a2a","version":"1"}`,
	}
	if len(got.Endpoints) != len(wantEndpoints) {
		t.Fatalf("%d endpoints, want %d", len(got.Endpoints), len(wantEndpoints))
	}
	for i, raw := range got.Endpoints {
		c, err := CanonicalizeJSON(raw)
		if err != nil || string(c) != wantEndpoints[i] {
			t.Errorf("endpoint %d = %s, want %s (%v)", i, c, wantEndpoints[i], err)
		}
	}
}

func TestSnapshotOfEmptyState(t *testing.T) {
	st, err := replay(nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Snapshot(testSigner(), st, "did:web:example.com", "2026-01-01T00:00:00Z", StatusTerminated)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"endpoints": []`, `"by-protocol": {}`, `"feed-status": "terminated"`} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("snapshot lacks %s:\n%s", want, doc)
		}
	}
	if err := VerifySnapshot(doc, testVerifier()); err != nil {
		t.Error(err)
	}
}

func TestSnapshotRejectsUnknownStatus(t *testing.T) {
	st, _ := replay(nil)
	if _, err := Snapshot(testSigner(), st, "did:web:example.com", "t", "paused"); err == nil || !strings.Contains(err.Error(), `unknown feed status "paused"`) {
		t.Errorf("Snapshot with status paused: %v", err)
	}
}

func TestVerifySnapshotRejectsTampering(t *testing.T) {
	st, err := replay(replayScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Snapshot(testSigner(), st, "did:web:example.com", "2026-05-02T09:30:00Z", StatusActive)
	if err != nil {
		t.Fatal(err)
	}
	otherKey := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, ed25519.SeedSize))
	replace := func(old, new string) string {
		if !bytes.Contains(doc, []byte(old)) {
			t.Fatalf("snapshot lacks %s", old)
		}
		return strings.Replace(string(doc), old, new, 1)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(doc, &members); err != nil {
		t.Fatal(err)
	}
	var sig snapshotSig
	if err := json.Unmarshal(members["signature"], &sig); err != nil {
		t.Fatal(err)
	}
	flipped, err := sigEncoding.DecodeString(sig.Value)
	if err != nil {
		t.Fatal(err)
	}
	flipped[0] ^= 1
	delete(members, "signature")
	unsigned, err := json.Marshal(members)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, doc string
		v         Verifier
		want      string
	}{
		{"status flipped", replace(`"feed-status": "active"`, `"feed-status": "terminated"`), testVerifier(), "does not verify"},
		{"endpoint moved", replace(`"https://x/c"`, `"https://evil.example/c"`), testVerifier(), "does not verify"},
		{"member added", replace(`"id":`, `"x-extra": 1, "id":`), testVerifier(), "does not verify"},
		{"other key", string(doc), NewVerifier(testKeyID, otherKey.Public().(ed25519.PublicKey)), "does not verify"},
		{"signature changed", replace(sig.Value, sigEncoding.EncodeToString(flipped)), testVerifier(), "does not verify"},
		{"signature removed", string(unsigned), testVerifier(), "no signature"},
		{"other algorithm", replace(`"algorithm": "ed25519"`, `"algorithm": "rsa"`), testVerifier(), `algorithm "rsa"`},
		{"duplicate member", replace(`"id":`, `"feed-status": "terminated", "id":`), testVerifier(), `duplicate key "feed-status"`},
		{"not JSON", "{", testVerifier(), "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := VerifySnapshot([]byte(tc.doc), tc.v)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("VerifySnapshot = %v, want error containing %q\n%s", err, tc.want, tc.doc)
			}
		})
	}
}

func TestVerifySnapshotIgnoresFormatting(t *testing.T) {
	st, err := replay(replayScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Snapshot(testSigner(), st, "did:web:example.com", "2026-05-02T09:30:00Z", StatusActive)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, doc); err != nil {
		t.Fatal(err)
	}
	if err := VerifySnapshot(compact.Bytes(), testVerifier()); err != nil {
		t.Errorf("compacted snapshot: %v", err)
	}
}
