package site

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// Fingerprint identifies a loaded config by all it holds: every setting
// (with the overrides and imported server.json files applied), where it
// was read from, and the line each key is on, which messages name. A
// build that keeps what an earlier one made from a config compares them.
func (c *Config) Fingerprint() ([sha256.Size]byte, error) {
	h := sha256.New()
	if err := json.NewEncoder(h).Encode(c); err != nil {
		return [sha256.Size]byte{}, err
	}
	fmt.Fprintf(h, "%v\x00%v", c.lines.keys, c.set)
	return [sha256.Size]byte(h.Sum(nil)), nil
}
