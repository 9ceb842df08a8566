package verify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// writeSite writes a did.json for did and a feed of one entry under dir's
// .well-known/.
func writeSite(t *testing.T, dir, did string) {
	t.Helper()
	s := signer(did, "key-1", testKey(1))
	write(t, filepath.Join(dir, ".well-known", "did.json"), didDoc(t, did, testKey(1)))
	write(t, filepath.Join(dir, ".well-known", "agent-feed.xml"),
		feedOf(t, did, agentfeed.StatusActive, "", announce(t, s, "urn:af:test:1", "orders-api", "1.0")))
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A directory whose feed has no self link needs --base to be verified.
func TestDirectoryBase(t *testing.T) {
	dir := t.TempDir()
	writeSite(t, dir, "did:web:example.com")
	if _, err := Verify(t.Context(), Options{Target: dir}); err == nil {
		t.Fatal("verified a directory without knowing its URL")
	}
	rep := run(t, Options{Target: dir, Base: "https://example.com"})
	if !rep.OK || rep.Origins[0].Verified != 1 || rep.Origins[0].URL != "https://example.com/" {
		t.Errorf("ok %v, origin %+v:%s", rep.OK, rep.Origins[0], dump(rep))
	}
	rep = run(t, Options{Target: dir, Base: "https://other.example"})
	if got := codes(rep, SeverityError); !slices.Equal(got, []string{codeDIDMismatch}) {
		t.Errorf("errors = %v, want did-mismatch", got)
	}
}

// A symbolic link out of the directory is not followed.
func TestDirectorySymlinkOut(t *testing.T) {
	outside, dir := t.TempDir(), t.TempDir()
	writeSite(t, outside, "did:web:example.com")
	writeSite(t, dir, "did:web:example.com")
	didPath := filepath.Join(dir, ".well-known", "did.json")
	if err := os.Remove(didPath); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, ".well-known", "did.json"), didPath); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	rep := run(t, Options{Target: dir, Base: "https://example.com"})
	if got := codes(rep, SeverityError); !slices.Equal(got, []string{codeUnreachable}) {
		t.Errorf("errors = %v, want unreachable:%s", got, dump(rep))
	}
}

// A DIR whose feed is above --max-bytes names the cap, not only --base.
func TestDirectoryFeedAboveCap(t *testing.T) {
	dir := t.TempDir()
	writeSite(t, dir, "did:web:example.com")
	_, err := Verify(t.Context(), Options{Target: dir, MaxBytes: 10})
	if err == nil || !strings.Contains(err.Error(), "larger than the 10-byte cap") || !strings.Contains(diag.Hint(err), "--max-bytes") {
		t.Errorf("error %v (hint %q), want the 10-byte cap and --max-bytes named", err, diag.Hint(err))
	}
}
