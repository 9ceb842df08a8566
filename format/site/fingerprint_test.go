package site

import "testing"

// A config's fingerprint changes with anything it was made from, a value
// no document shows (a slug) included, and with nothing else.
func TestFingerprint(t *testing.T) {
	fingerprint := func(src string, overrides ...string) [32]byte {
		t.Helper()
		c, err := parse(t, src, overrides...)
		if err != nil {
			t.Fatal(err)
		}
		return c.Fingerprint()
	}
	base := fingerprint(minimal + `slug = "weather"` + "\n")
	if again := fingerprint(minimal + `slug = "weather"` + "\n"); again != base {
		t.Error("one config has two fingerprints")
	}
	for name, other := range map[string][32]byte{
		"another slug":  fingerprint(minimal + `slug = "forecast"` + "\n"),
		"an override":   fingerprint(minimal+`slug = "weather"`+"\n", "title=Weather"),
		"another line":  fingerprint("\n" + minimal + `slug = "weather"` + "\n"),
		"no slug given": fingerprint(minimal),
	} {
		if other == base {
			t.Errorf("%s: the fingerprint is the same", name)
		}
	}
}
