//go:build unix

package verify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// A named pipe in DIR is refused, not opened: opening it would wait for a
// writer forever.
func TestDirectoryNamedPipe(t *testing.T) {
	dir := t.TempDir()
	writeSite(t, dir, "did:web:example.com")
	didPath := filepath.Join(dir, ".well-known", "did.json")
	if err := os.Remove(didPath); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(didPath, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	rep := run(t, Options{Target: dir, Base: "https://example.com"})
	if got := codes(rep, SeverityError); !slices.Equal(got, []string{codeUnreachable}) {
		t.Fatalf("errors = %v, want unreachable:%s", got, dump(rep))
	}
	if f := findings(rep, codeUnreachable); !strings.Contains(f[0].Message, "named pipe") {
		t.Errorf("finding %+v does not say it is a named pipe", f[0])
	}
}
