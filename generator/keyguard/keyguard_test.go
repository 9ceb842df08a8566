package keyguard

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/spooltest"
)

// siteWithKey is a site directory with content/ and templates/ and a key
// file at keyPath (relative to it).
func siteWithKey(t *testing.T, keyPath string) (*site.Config, didweb.SigningKey) {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"content", "templates"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := didweb.SigningKey{Private: ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)), File: filepath.Join(dir, keyPath)}
	if err := os.WriteFile(key.File, didweb.MarshalPEM(key.Private), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := site.Parse(filepath.Join(dir, "site.toml"), "base_url = \"https://weather.example.com/\"\ntitle = \"Weather\"\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, key
}

// A key beside site.toml passes; one in content/ or templates/ is refused,
// naming the key.
func TestCheckSite(t *testing.T) {
	cfg, key := siteWithKey(t, "signing.key")
	if err := CheckSite(key, cfg); err != nil {
		t.Fatalf("a key outside content and templates: %v", err)
	}
	cfg, key = siteWithKey(t, filepath.Join("templates", "signing.key"))
	if err := CheckSite(key, cfg); err == nil || !strings.Contains(err.Error(), "the signing key is inside templates") {
		t.Errorf("a key in templates/: error %v, want it refused", err)
	}
}

// LoadKey loads a key file git does not track, and refuses one it does.
func TestTrackedKeyRefused(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "site.key")
	if err := didweb.WriteNewKey(key); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKey(didweb.KeySources{FlagFile: key}); err != nil {
		t.Fatalf("untracked key refused: %v", err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "site.key"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := LoadKey(didweb.KeySources{FlagFile: key}); err == nil || !strings.Contains(err.Error(), "tracked by git") {
		t.Errorf("tracked key: %v", err)
	}
}

// The output directory may not hold the key, which a build replaces.
func TestCheckOutput(t *testing.T) {
	cfg, key := siteWithKey(t, "signing.key")
	if err := CheckOutput(key, filepath.Join(cfg.Dir, "public")); err != nil {
		t.Errorf("a key outside the output: %v", err)
	}
	if err := CheckOutput(key, cfg.Dir); err == nil || !strings.Contains(err.Error(), "inside the output directory") {
		t.Errorf("a key inside the output: error %v, want it refused", err)
	}
}

// Scan names the file of the bundle that holds the key, and its encoding.
func TestScan(t *testing.T) {
	s := NewScanned()
	_, key := siteWithKey(t, "signing.key")
	b := bundle.New()
	if err := b.Add("/index.html", []byte("<p>weather</p>"), "text/html"); err != nil {
		t.Fatal(err)
	}
	if err := s.Scan(b, key); err != nil {
		t.Fatalf("a bundle without the key: %v", err)
	}
	if err := b.Add("/notes.txt", []byte("seed "+hex.EncodeToString(key.Private.Seed())), "text/plain"); err != nil {
		t.Fatal(err)
	}
	if err := s.Scan(b, key); err == nil || !strings.Contains(err.Error(), "the signing key (hex) would be published in /notes.txt") {
		t.Errorf("a bundle with the key in hex: error %v, want /notes.txt named", err)
	}
}

// Scan reads back the files a bundle keeps in its spool, the immutable
// ones among them held as records, and finds the key past the first batch
// of files it takes.
func TestScanSpooled(t *testing.T) {
	_, key := siteWithKey(t, "signing.key")
	b := spooledBundle(t)
	for i := range 2 * scanBatch {
		if err := b.Add(fmt.Sprintf("/.well-known/mcp/schemas/a/t/%d.json", i), []byte(`{}`), "application/json"); err != nil {
			t.Fatal(err)
		}
	}
	if err := NewScanned().Scan(b, key); err != nil {
		t.Fatalf("clean spooled files: %v", err)
	}
	p := "/.well-known/mcp/schemas/z/t/1.0.0.json"
	if err := b.Add(p, []byte(`{"seed":"`+hex.EncodeToString(key.Private.Seed())+`"}`), "application/json"); err != nil {
		t.Fatal(err)
	}
	if f, _ := b.Get(p); f.Body != nil {
		t.Fatal("the archived file was not spooled")
	}
	if err := NewScanned().Scan(b, key); err == nil || !strings.Contains(err.Error(), "would be published in "+p) {
		t.Errorf("a spooled file with the key: error %v, want %s named", err, p)
	}
}

// spooledBundle is an empty bundle with a spool of its own.
func spooledBundle(t *testing.T) *bundle.Bundle {
	t.Helper()
	spool, err := bundle.NewSpool()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { spool.Close() })
	return bundle.NewSpooled(spool)
}

// Scan reads a large spooled file a chunk at a time: it allocates a small
// part of the file's size, passes it clean, and finds the key across the
// seam of two chunks.
func TestScanReadsASpooledFileInChunks(t *testing.T) {
	_, key := siteWithKey(t, "signing.key")
	line := "<li><a href=\"/changelog/#c1\">fix &amp; change</a> <code>deadbeef0123</code> 2024-01-01</li>\n"
	clean := []byte(strings.Repeat(line, 4<<20/len(line)))
	leak := slices.Clone(clean)
	copy(leak[readSize+newScanner(key.Private).maxCarry-20:], hex.EncodeToString(key.Private.Seed()))
	b := spooledBundle(t)
	if err := b.Add("/changelog/index.html", clean, "text/html"); err != nil {
		t.Fatal(err)
	}
	s := NewScanned()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := s.Scan(b, key)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Errorf("a clean spooled file: %v", err)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(len(clean)/4) {
		t.Errorf("scanning a spooled file of %d bytes allocated %d", len(clean), allocated)
	}
	if err := b.Add("/changelog/page/2/index.html", leak, "text/html"); err != nil {
		t.Fatal(err)
	}
	if err := s.Scan(b, key); err == nil || !strings.Contains(err.Error(), "the signing key (hex) would be published in /changelog/page/2/index.html") {
		t.Errorf("a spooled file with the key across a seam: error %v, want it named", err)
	}
}

// A Scanned skips the bodies the last Scan found clean, and scans a new
// body, and every body again for another key.
func TestScannedScansWhatIsNew(t *testing.T) {
	_, key := siteWithKey(t, "signing.key")
	other := didweb.SigningKey{Private: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, ed25519.SeedSize))}
	page := []byte("<p>weather " + hex.EncodeToString(other.Private.Seed()) + "</p>")
	bundleOf := func(files map[string][]byte) *bundle.Bundle {
		b := bundle.New()
		for p, body := range files {
			if err := b.Add(p, body, "text/plain"); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	s := NewScanned()
	if err := s.Scan(bundleOf(map[string][]byte{"/index.html": page}), key); err != nil {
		t.Fatalf("a bundle without the key: %v", err)
	}
	if s.clean[&page[0]] != len(page) {
		t.Fatalf("the clean body is not remembered: %v", s.clean)
	}
	leak := []byte("seed " + hex.EncodeToString(key.Private.Seed()))
	err := s.Scan(bundleOf(map[string][]byte{"/index.html": page, "/notes.txt": leak}), key)
	if err == nil || !strings.Contains(err.Error(), "would be published in /notes.txt") {
		t.Errorf("a new body with the key: error %v, want /notes.txt named", err)
	}
	if err := s.Scan(bundleOf(map[string][]byte{"/index.html": page}), key); err != nil {
		t.Fatalf("the clean body alone again: %v", err)
	}
	err = s.Scan(bundleOf(map[string][]byte{"/index.html": page}), other)
	if err == nil || !strings.Contains(err.Error(), "would be published in /index.html") {
		t.Errorf("the body remembered as clean of another key: error %v, want /index.html named", err)
	}
}

// A spool that cannot be read back fails the scan, naming the first file
// it could not read and counting the others.
func TestScanNamesASpooledFileItCannotRead(t *testing.T) {
	_, key := siteWithKey(t, "signing.key")
	b := spooledBundle(t)
	for _, v := range []string{"1.0.0", "1.1.0", "1.2.0"} {
		if err := b.Add("/.well-known/mcp/schemas/a/t/"+v+".json", []byte(`{"name":"t"}`), "application/json"); err != nil {
			t.Fatal(err)
		}
	}
	if f, _ := b.Get("/.well-known/mcp/schemas/a/t/1.0.0.json"); f.Body != nil {
		t.Fatal("the archived file was not spooled")
	}
	if _, _, err := b.Files()[0].Reader(); err != nil { // writes out what the spool gathered
		t.Fatal(err)
	}
	if !spooltest.CutShort(t, 0) {
		t.Fatal("found no spool to cut short")
	}
	err := NewScanned().Scan(b, key)
	if err == nil || !strings.Contains(err.Error(), "scanning /.well-known/mcp/schemas/a/t/") || !strings.HasSuffix(err.Error(), "(and 2 more files)") {
		t.Errorf("a scan of a spool cut short: %v, want the first file named and 2 more counted", err)
	}
}
