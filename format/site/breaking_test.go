package site

import "testing"

// A [[breaking]] table acknowledges its endpoint's change to its version,
// and a server's removal acknowledges the removal of each of its tools.
func TestBreakingAcknowledges(t *testing.T) {
	for _, tc := range []struct {
		b       Breaking
		id, to  string
		matches bool
	}{
		{Breaking{Endpoint: "a/b#t", To: "2.0.0"}, "a/b#t", "2.0.0", true},
		{Breaking{Endpoint: "a/b#t", To: "2.0.0"}, "a/b#t", "3.0.0", false},
		{Breaking{Endpoint: "a/b#t", To: "2.0.0"}, "a/b#u", "2.0.0", false},
		{Breaking{Endpoint: "a/b", To: Removed}, "a/b", Removed, true},
		{Breaking{Endpoint: "a/b", To: Removed}, "a/b#t", Removed, true},
		{Breaking{Endpoint: "a/b", To: "2.0.0"}, "a/b#t", "2.0.0", false},
		{Breaking{Endpoint: "a/b#t", To: Removed}, "a/b", Removed, false},
	} {
		if got := tc.b.Acknowledges(tc.id, tc.to); got != tc.matches {
			t.Errorf("%+v.Acknowledges(%q, %q) = %v, want %v", tc.b, tc.id, tc.to, got, tc.matches)
		}
	}
}
