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

// OneName reports whether the file of info has no other name: no hard
// link to it.
func OneName(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 1
}
