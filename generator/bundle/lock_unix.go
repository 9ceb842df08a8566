//go:build unix

package bundle

import (
	"errors"
	"os"
	"syscall"
)

// openMarker opens the marker for locking, never through a symlink.
func openMarker(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
}

// tryLock takes an exclusive lock on f if no other process holds one. The
// kernel releases it when the file is closed or the process dies, so a
// killed build never leaves a stale lock.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
