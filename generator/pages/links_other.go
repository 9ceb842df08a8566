//go:build !unix

package pages

import "io/fs"

// oneName reports whether a file of info has no other name: here it cannot
// be told, and no is the answer that keeps Rerender out of the way.
func oneName(fs.FileInfo) bool { return false }
