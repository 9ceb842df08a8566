package schemadiff

import "testing"

func TestNextVersion(t *testing.T) {
	tests := []struct {
		version string
		class   Class
		want    string
	}{
		{"1.0.0", Breaking, "2.0.0"},
		{"1.4.7", Breaking, "2.0.0"},
		{"1.4.7", Compatible, "1.5.0"},
		{"1.4.7", Cosmetic, "1.4.8"},
		{"0.0.0", Cosmetic, "0.0.1"},
		{"10.20.30", Compatible, "10.21.0"},
		{"18446744073709551615.0.0", Cosmetic, "18446744073709551615.0.1"},
	}
	for _, tc := range tests {
		got, err := NextVersion(tc.version, tc.class)
		if err != nil || got != tc.want {
			t.Errorf("NextVersion(%q, %q) = %q, %v; want %q", tc.version, tc.class, got, err, tc.want)
		}
	}
}

func TestNextVersionErrors(t *testing.T) {
	tests := []struct {
		version string
		class   Class
	}{
		{"", Cosmetic},
		{"1.0", Cosmetic},
		{"1.0.0.0", Cosmetic},
		{"v1.0.0", Cosmetic},
		{"1.0.0-rc.1", Cosmetic},
		{"1.0.0+build", Cosmetic},
		{"01.0.0", Cosmetic},
		{"1..0", Cosmetic},
		{"1.-1.0", Cosmetic},
		{"1.x.0", Cosmetic},
		{"99999999999999999999.0.0", Breaking},
		{"18446744073709551615.0.0", Breaking},
		{"1.0.0", ""},
		{"1.0.0", "major"},
	}
	for _, tc := range tests {
		if got, err := NextVersion(tc.version, tc.class); err == nil {
			t.Errorf("NextVersion(%q, %q) = %q, want an error", tc.version, tc.class, got)
		}
	}
}
