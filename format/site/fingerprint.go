package site

import (
	"crypto/sha256"
	"fmt"
)

// Fingerprint identifies a loaded config by what it was made from: the
// site.toml's path and bytes, the overrides, the repository it is in and
// each imported server.json's bytes. Two configs with one fingerprint are
// the same, down to the lines messages name; a build that keeps what an
// earlier one made from a config compares them.
func (c *Config) Fingerprint() [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%q %q %q %q %d\x00%s", c.File, c.Dir, c.Root, c.overrides, len(c.src), c.src)
	for _, s := range c.Servers {
		fmt.Fprintf(h, "%q %d\x00%s", s.Import, len(s.ImportData), s.ImportData)
	}
	return [sha256.Size]byte(h.Sum(nil))
}
