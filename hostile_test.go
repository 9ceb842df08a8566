package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Hostile input: what anyone who can commit to the repository (or a server,
// through sync) can put there. Each case is a build that must fail with one
// located error line and leave public/ as it was (see badCase). The cases are
// grouped by what they attack.
func TestHostileInput(t *testing.T) {
	for _, tc := range []badCase{
		// The signing key and the file system: symlinks, devices, FIFOs, key
		// files in published or output directories.

		// Output paths: symlinked parents, the output directory as an input.
		{"output path under a symlink to a directory outside the site", symlinkOutside("sub"), []string{"--out", "sub/public"},
			`^refusing to write output to sub/public: it is /.+/public, outside the site's repository$`},
		{"output path is a symlink to a directory outside the site", symlinkOutside("out"), []string{"--out", "out"},
			`^refusing to write output to out: it is /.+, outside the site's repository$`},

		// Tool files beyond the limits: size, nesting, properties, encodings.

		// Configuration values: base_url, --set, remote URLs.
	} {
		t.Run(tc.name, tc.run)
	}
}

// symlinkOutside makes link in the site a symlink to a new directory
// outside it, and fails the test if anything is ever written there.
func symlinkOutside(link string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		elsewhere := t.TempDir()
		if err := os.Symlink(elsewhere, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
				t.Errorf("the build wrote %v outside the site", entries)
			}
		})
	}
}
