//go:build !linux && !darwin

package inputfile

import "io/fs"

// identityOf finds no inode or ctime here, so Files keeps nothing.
func identityOf(fs.FileInfo) (identity, bool) { return identity{}, false }

// OneName cannot tell here whether a file has another name: no, the answer
// that keeps a caller relying on one name (pages.Cache.Rerender) out of
// the way.
func OneName(fs.FileInfo) bool { return false }
