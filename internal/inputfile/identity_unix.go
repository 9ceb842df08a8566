//go:build linux || darwin

package inputfile

import (
	"io/fs"
	"syscall"
)

func identityOf(info fs.FileInfo) (identity, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return identity{}, false
	}
	return identity{size: info.Size(), modified: info.ModTime().UnixNano(), changed: changeTime(st),
		inode: uint64(st.Ino), device: uint64(st.Dev), mode: info.Mode()}, true
}

// Links returns the number of names (hard links) of the file info is the
// stat of, and whether the system says.
func Links(info fs.FileInfo) (uint64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}
