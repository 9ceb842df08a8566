//go:build !linux && !darwin

package inputfile

import "io/fs"

// identityOf finds no inode or ctime here, so Files keeps nothing.
func identityOf(fs.FileInfo) (identity, bool) { return identity{}, false }
