package bundle

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// openMarker opens the marker for locking.
func openMarker(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}

// tryLock takes an exclusive lock on f if no other process holds one. The
// system releases it when the file is closed or the process dies.
func tryLock(f *os.File) (bool, error) {
	var whole windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &whole)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}
