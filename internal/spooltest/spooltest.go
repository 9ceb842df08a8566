// Package spooltest cuts short the spools (bundle.Spool) a test's process
// has open, to test what reads them back: a spool's file has no name
// once made, so it is found among the process's open files, on systems
// that list them in /proc/self/fd.
package spooltest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CutShort truncates every spool the process has open to size bytes, and
// reports whether it found one. It skips the test where open files are
// not listed.
func CutShort(t testing.TB, size int64) bool {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("needs /proc/self/fd to find a spool's unnamed file")
	}
	cut := false
	for _, fd := range fds {
		p := filepath.Join("/proc/self/fd", fd.Name())
		if name, _ := os.Readlink(p); !strings.Contains(filepath.Base(name), ".wellknown-spool-") {
			continue
		}
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = f.Truncate(size)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		cut = true
	}
	return cut
}
