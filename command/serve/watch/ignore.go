package watch

import (
	"path/filepath"
	"slices"
	"strings"
)

// Temporary files editors and desktops write next to the files a user
// edits. Their changes never matter to a build, and reacting to them would
// rebuild several times per save.
var (
	// vim's write test; macOS Finder's folder settings.
	tempNames = []string{"4913", ".DS_Store"}
	// emacs locks; GNOME's atomic save.
	tempPrefixes = []string{".#", ".goutputstream-"}
	// vim and emacs backups; vim and nano swap files; Kate; JetBrains' safe
	// write; generic temporary files; helix backups; Chromium's File System
	// Access writes.
	tempSuffixes = []string{
		"~",
		".swp", ".swo", ".swn", ".swx", ".swpx",
		".kate-swp",
		"___jb_tmp___", "___jb_old___", "___jb_bak___",
		".tmp",
		".bck",
		".crswap",
	}
	// Byword and other sandboxed macOS apps.
	tempInfixes = []string{".sb-"}
)

// Ignored reports whether the last element of path names an editor's or a
// desktop's temporary file.
func Ignored(path string) bool {
	name := filepath.Base(path)
	autoSave := len(name) > 1 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#") // emacs
	return autoSave || slices.Contains(tempNames, name) ||
		slices.ContainsFunc(tempPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) ||
		slices.ContainsFunc(tempSuffixes, func(s string) bool { return strings.HasSuffix(name, s) }) ||
		slices.ContainsFunc(tempInfixes, func(s string) bool { return strings.Contains(name, s) })
}
