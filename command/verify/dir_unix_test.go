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

// A state file or a provider key that is a named pipe or a device is
// refused, not read: either would block or stream forever.
func TestStateAndKeyFilesMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "state.fifo")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, path := range []string{pipe, "/dev/zero"} {
		if _, err := loadState(path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("loadState(%s) = %v, want a refusal", path, err)
		}
	}
}
