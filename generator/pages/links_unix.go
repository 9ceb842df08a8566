//go:build unix

package pages

import (
	"io/fs"
	"syscall"
)

// oneName reports whether a file of info has no other name, no hard link.
func oneName(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 1
}
