package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/internal/upstream"
)

// vectorDID is the DID every upstream vector is signed for.
const vectorDID = "did:web:vector.example"

// serveVector serves an upstream vector's files (did.json, agent-feed.xml
// or agent-card.json) at their /.well-known/ paths on a loopback origin.
func serveVector(t *testing.T, dir string) *origin {
	t.Helper()
	o := newOrigin(t, hostHeaders)
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Name() != "manifest.json" {
			o.put("/.well-known/"+f.Name(), readFile(t, filepath.Join(dir, f.Name())), nil)
		}
	}
	return o
}

// The five reference vectors, served as origins and verified as a mirror of
// vector.example (--did), get the verdicts their manifests imply: an
// active feed passes with its entries verified; a terminated one verifies
// but fails, without trust; the snapshot-only vector's snapshot verifies,
// and it fails for want of a feed.
func TestReferenceVectors(t *testing.T) {
	root := upstream.Path(t, "vectors", "agent-feed")
	tests := []struct {
		dir      string
		errors   []string
		status   string
		verified int
		trusted  bool
	}{
		{"01-empty-active-feed", nil, "active", 0, true},
		{"02-single-endpoint-announcement", nil, "active", 1, true},
		{"03-schema-change-mismatch", nil, "active", 2, true},
		{"04-terminated-feed", []string{codeTerminated}, "terminated", 1, false},
		{"05-snapshot-from-state", []string{codeNotFound}, "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			dir := filepath.Join(root, tt.dir)
			var manifest struct {
				Expect *struct {
					FeedStatus         string `json:"feedStatus"`
					VerifiedEntryCount int    `json:"verifiedEntryCount"`
				} `json:"expect"`
			}
			if err := json.Unmarshal(readFile(t, filepath.Join(dir, "manifest.json")), &manifest); err != nil {
				t.Fatal(err)
			}
			if e := manifest.Expect; e != nil && (e.FeedStatus != tt.status || e.VerifiedEntryCount != tt.verified) {
				t.Fatalf("the table disagrees with the manifest: %+v", *e)
			}
			o := serveVector(t, dir)
			rep := run(t, Options{Target: o.base.String(), DID: vectorDID})
			if got := codes(rep, SeverityError); !slices.Equal(got, tt.errors) {
				t.Errorf("errors = %v, want %v:%s", got, tt.errors, dump(rep))
			}
			got := rep.Origins[0]
			if got.FeedStatus != tt.status || got.Verified != tt.verified || got.Trusted != tt.trusted {
				t.Errorf("status %q, verified %d, trusted %v; want %q, %d, %v", got.FeedStatus, got.Verified, got.Trusted, tt.status, tt.verified, tt.trusted)
			}
			if snapshot := len(findings(rep, codeNoSnapshot)) == 0; snapshot != (tt.dir == "05-snapshot-from-state") {
				t.Errorf("snapshot found: %v", snapshot)
			}
			if f := findings(rep, codeNotFound); len(f) > 0 && f[0].Document != paths.Feed {
				t.Errorf("not-found %+v, want the feed", f)
			}
		})
	}
}

// Served from anywhere but vector.example, a vector fails the DID check the
// reference reader skips.
func TestReferenceVectorElsewhere(t *testing.T) {
	o := serveVector(t, upstream.Path(t, "vectors", "agent-feed", "02-single-endpoint-announcement"))
	rep := run(t, Options{Target: o.base.String()})
	if got := codes(rep, SeverityError); !slices.Equal(got, []string{codeDIDMismatch}) {
		t.Errorf("errors = %v, want did-mismatch:%s", got, dump(rep))
	}
	if rep.Origins[0].Verified != 0 {
		t.Error("entries verified under a key of another DID")
	}
}
