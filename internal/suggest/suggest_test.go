package suggest

import "testing"

func TestClosest(t *testing.T) {
	commands := []string{"build", "serve", "check", "diff"}
	for _, tc := range []struct {
		word, want string
		ok         bool
	}{
		{"biuld", "build", true},
		{"chek", "check", true},
		{"dif", "diff", true},
		{"deploy", "", false},
		{"", "", false},
	} {
		got, ok := Closest(tc.word, commands)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", tc.word, got, ok, tc.want, tc.ok)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"tools", "tols", 1}, {"tools", "loots", 2}, {"kitten", "sitting", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
