package main

import "testing"

// Hostile input: what anyone who can commit to the repository (or a server,
// through sync) can put there. Each case is a build that must fail with one
// located error line and leave public/ as it was (see badCase). The cases are
// grouped by what they attack.
func TestHostileInput(t *testing.T) {
	for _, tc := range []badCase{
		// The signing key and the file system: symlinks, devices, FIFOs, key
		// files in published or output directories.

		// Output paths: symlinked parents, the output directory as an input.

		// Tool files beyond the limits: size, nesting, properties, encodings.

		// Configuration values: base_url, --set, remote URLs.
	} {
		t.Run(tc.name, tc.run)
	}
}
