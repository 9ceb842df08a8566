package agentfeed

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wellknown-dev/wellknown/format/didweb"
)

// vectorManifest holds the expectations of an upstream agent-feed vector
// that this package can check; mismatch detection on live responses is the
// reader's business.
type vectorManifest struct {
	Kind   string `json:"kind"`
	Expect *struct {
		FeedStatus         Status `json:"feedStatus"`
		VerifiedEntryCount int    `json:"verifiedEntryCount"`
		CanonicalEndpoint  *struct {
			Protocol string  `json:"protocol"`
			Expected *string `json:"expected"`
		} `json:"canonicalEndpoint"`
		SchemaVersion *struct {
			EndpointID string `json:"endpointId"`
			Expected   string `json:"expected"`
		} `json:"schemaVersion"`
	} `json:"expect"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// vectorVerifier reads the first verification method of a vector's did.json.
func vectorVerifier(t *testing.T, dir string) Verifier {
	t.Helper()
	var did struct {
		VerificationMethod []struct {
			ID                 string `json:"id"`
			PublicKeyMultibase string `json:"publicKeyMultibase"`
		} `json:"verificationMethod"`
	}
	readJSON(t, filepath.Join(dir, "did.json"), &did)
	if len(did.VerificationMethod) == 0 {
		t.Fatalf("%s/did.json has no verification method", dir)
	}
	vm := did.VerificationMethod[0]
	key, err := didweb.ParseMultibaseKey(vm.PublicKeyMultibase)
	if err != nil {
		t.Fatal(err)
	}
	return NewVerifier(vm.ID, key)
}

func readVectorFeed(t *testing.T, dir string) *Feed {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "agent-feed.xml"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestAgentFeedVectors(t *testing.T) {
	root := vectorDir(t, "agent-feed")
	manifests, err := filepath.Glob(filepath.Join(root, "*", "manifest.json"))
	if err != nil || len(manifests) == 0 {
		t.Fatalf("no vectors in %s (%v)", root, err)
	}
	for _, path := range manifests {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var m vectorManifest
			readJSON(t, path, &m)
			v := vectorVerifier(t, dir)
			switch m.Kind {
			case "feed":
				checkFeedVector(t, dir, m, v)
			case "snapshot":
				checkSnapshotVector(t, dir, v)
			default:
				t.Fatalf("unknown vector kind %q", m.Kind)
			}
		})
	}
}

func checkFeedVector(t *testing.T, dir string, m vectorManifest, v Verifier) {
	f := readVectorFeed(t, dir)
	if f.Status != m.Expect.FeedStatus {
		t.Errorf("feed status %q, want %q", f.Status, m.Expect.FeedStatus)
	}
	var verified []Entry
	for _, e := range f.Entries {
		if e.Verify(v) == nil {
			verified = append(verified, e)
		}
	}
	if len(verified) != m.Expect.VerifiedEntryCount {
		t.Errorf("%d entries verify, want %d", len(verified), m.Expect.VerifiedEntryCount)
	}
	st, err := replay(verified)
	if err != nil {
		t.Fatal(err)
	}
	if sv := m.Expect.SchemaVersion; sv != nil {
		ep, ok := st.Endpoint(sv.EndpointID)
		if !ok || ep.Version != sv.Expected {
			t.Errorf("endpoint %s: version %q (known %v), want %q", sv.EndpointID, ep.Version, ok, sv.Expected)
		}
	}
	ce := m.Expect.CanonicalEndpoint
	switch {
	case ce == nil:
	case ce.Expected == nil && f.Status == StatusActive:
		t.Errorf("the vector expects no endpoint for %s, but the feed is active", ce.Protocol)
	case ce.Expected != nil:
		ep, _ := st.Endpoint(st.ByProtocol[ce.Protocol])
		if ep.Endpoint != *ce.Expected {
			t.Errorf("endpoint for protocol %s = %q, want %q", ce.Protocol, ep.Endpoint, *ce.Expected)
		}
	}
}

func checkSnapshotVector(t *testing.T, dir string, v Verifier) {
	doc, err := os.ReadFile(filepath.Join(dir, "agent-card.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifySnapshot(doc, v); err != nil {
		t.Errorf("VerifySnapshot: %v", err)
	}
	tampered := bytes.Replace(doc, []byte(`"1.0"`), []byte(`"1.1"`), 1)
	if err := VerifySnapshot(tampered, v); err == nil {
		t.Error("VerifySnapshot accepts the snapshot with another version")
	}
}

// TestSnapshotLayoutMatchesReference replays the reference's one-endpoint
// feed and checks that our snapshot of it is the reference's snapshot byte
// for byte, but for the signature (the vectors come without private keys).
func TestSnapshotLayoutMatchesReference(t *testing.T) {
	root := vectorDir(t, "agent-feed")
	feedDir := filepath.Join(root, "02-single-endpoint-announcement")
	f := readVectorFeed(t, feedDir)
	st, err := replay(f.Entries)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Snapshot(testSigner(), st, f.ID, f.Updated, f.Status)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(root, "05-snapshot-from-state", "agent-card.json"))
	if err != nil {
		t.Fatal(err)
	}
	var theirs, ours struct {
		Signature snapshotSig `json:"signature"`
	}
	readJSON(t, filepath.Join(root, "05-snapshot-from-state", "agent-card.json"), &theirs)
	if err := json.Unmarshal(got, &ours); err != nil {
		t.Fatal(err)
	}
	want = bytes.Replace(want, []byte(theirs.Signature.Value), []byte(ours.Signature.Value), 1)
	// The reference writes no final newline; we do.
	if !bytes.Equal(bytes.TrimSuffix(got, []byte("\n")), want) {
		t.Errorf("snapshot differs from the reference's\n got %s\nwant %s", got, want)
	}
}
