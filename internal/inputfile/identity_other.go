//go:build !linux && !darwin

package inputfile

import "io/fs"

// identityOf finds no inode or ctime here, so Files keeps nothing.
func identityOf(fs.FileInfo) (identity, bool) { return identity{}, false }

// Links says nothing here: the number of a file's names is not known.
func Links(fs.FileInfo) (uint64, bool) { return 0, false }
