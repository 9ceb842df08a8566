package english

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n          int
		noun, want string
	}{
		{0, "file", "0 files"},
		{1, "file", "1 file"},
		{2, "feed entry", "2 feed entries"},
		{1, "feed entry", "1 feed entry"},
		{3, "key", "3 keys"},
		{100, "character", "100 characters"},
	} {
		if got := Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}
