package serve

import (
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/internal/leaktest"
)

// A symlink that would publish the signing key is never served: serve
// builds as build does, so the first build fails, and a rebuild that fails
// keeps serving the last good build, in which the link is not.
func TestSymlinkedKeyNotServed(t *testing.T) {
	config := exampleSite(t)
	dir := filepath.Dir(config)
	key := filepath.Join(dir, "signing.key")
	if err := os.WriteFile(key, []byte(base64.RawURLEncoding.EncodeToString(testSeed)), 0o600); err != nil {
		t.Fatal(err)
	}
	opt := Options{Build: generator.Options{ConfigPath: config, KeyFile: key}, Addr: "127.0.0.1:0"}
	assets := filepath.Join(dir, "templates", "assets")
	link := filepath.Join(assets, "k.txt")
	writeFile(t, filepath.Join(assets, "note.txt"), "an asset")
	if err := os.Symlink("../../signing.key", link); err != nil {
		t.Fatal(err)
	}

	if _, err := New(opt); err == nil || !strings.Contains(err.Error(), "k.txt: is the signing key") {
		t.Fatalf("New with the key linked into assets = %v, want the build's refusal", err)
	}

	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	h := serveSite(t, config, opt)
	n := len(h.rebuilds())
	if err := os.Symlink("../../signing.key", link); err != nil {
		t.Fatal(err)
	}
	b := h.awaitRebuild(n, assets)
	if b.Err == nil || !strings.Contains(b.Err.Error(), "k.txt: is the signing key") {
		t.Fatalf("the rebuild with the link = %v, want the build's refusal", b.Err)
	}
	if resp, body := h.get("/assets/k.txt"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /assets/k.txt: %s, %q", resp.Status, body)
	}
	if h.page("/assets/note.txt") != "an asset" {
		t.Error("the last good build is not served")
	}
}

// A directory of the templates symlinked to the key's directory does not
// publish the key: the key is refused by what it is, not by its path, and
// serve says so.
func TestKeyDirectoryLinkedIntoAssets(t *testing.T) {
	config := exampleSite(t)
	dir := filepath.Dir(config)
	key := filepath.Join(dir, "secrets", "signing.key")
	writeFile(t, key, base64.RawURLEncoding.EncodeToString(testSeed))
	assets := filepath.Join(dir, "templates", "assets")
	if err := os.MkdirAll(filepath.Dir(assets), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secrets", assets); err != nil {
		t.Fatal(err)
	}
	opt := Options{Build: generator.Options{ConfigPath: config, KeyFile: key}, Addr: "127.0.0.1:0"}
	if _, err := New(opt); err == nil || !strings.Contains(err.Error(), "signing.key: is the signing key") {
		t.Fatalf("New with the key's directory linked as assets = %v, want the build's refusal", err)
	}
}

// serve builds as build does, so the key pasted into an asset in any
// encoding the loader accepts is refused before anything is served.
func TestKeyInAnyEncodingNotServed(t *testing.T) {
	config := exampleSite(t)
	dir := filepath.Dir(config)
	key := filepath.Join(dir, "signing.key")
	writeFile(t, key, string(didweb.MarshalPEM(leaktest.Key)))
	opt := Options{Build: generator.Options{ConfigPath: config, KeyFile: key}, Addr: "127.0.0.1:0"}
	for name, enc := range leaktest.Encodings(leaktest.Key) {
		writeFile(t, filepath.Join(dir, "templates", "assets", "notes.txt"), enc)
		if _, err := New(opt); err == nil || !strings.Contains(err.Error(), "would be published in /assets/notes.txt") {
			t.Errorf("%s: New = %v, want the key scan's refusal", name, err)
		}
	}
}

// A Markdown edit that keeps the last build but for its page (see
// generator.Cache.Changed) still has that page scanned for the key: the
// key pasted into it fails the rebuild, and the last good build is served.
func TestKeyInMarkdownEditNotServed(t *testing.T) {
	config := gitExampleSite(t)
	dir := filepath.Dir(config)
	commitAll(t, dir)
	page := filepath.Join(dir, "content", "pages", "connecting.md")
	h := serveSite(t, config, Options{})
	for i, text := range []string{"\nA first edit, which reads every input.\n", "\nA second, which keeps the last build.\n"} {
		n := len(h.rebuilds())
		appendFile(t, page, text)
		if b := h.awaitRebuild(n, page); b.Err != nil || b.Result.Reuse.Build != (i == 1) {
			t.Fatalf("edit %d: %v, reuse %+v", i, b.Err, b.Result.Reuse)
		}
	}
	n := len(h.rebuilds())
	appendFile(t, page, "\n"+base64.RawURLEncoding.EncodeToString(testSeed)+"\n")
	if b := h.awaitRebuild(n, page); b.Err == nil || !strings.Contains(b.Err.Error(), "would be published in /connecting/index.html") {
		t.Fatalf("the rebuild with the key in the page = %v, want the key scan's refusal", b.Err)
	}
	if body := h.page("/connecting/"); strings.Contains(body, base64.RawURLEncoding.EncodeToString(testSeed)) || !strings.Contains(body, "keeps the last build") {
		t.Error("the last good build is not what is served")
	}
}
