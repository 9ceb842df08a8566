package suggest

import "testing"

func TestClosest(t *testing.T) {
	commands := []string{"build", "serve", "keygen", "sync", "verify", "check", "init", "version"}
	for _, tc := range []struct {
		word, want string
		ok         bool
	}{
		{"biuld", "build", true},    // a transposition is one edit
		{"buidl", "build", true},    // two
		{"serv", "serve", true},     // a missing letter
		{"chek", "check", true},     // another
		{"verson", "version", true}, // another
		{"deploy", "", false},       // nothing near
		{"in", "", false},           // two edits from init, but as many as its letters
		{"x", "", false},
		{"", "", false},
	} {
		got, ok := Closest(tc.word, commands)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Closest(%q) = %q, %v; want %q, %v", tc.word, got, ok, tc.want, tc.ok)
		}
	}
	if got, ok := Closest("strcit", []string{"strict", "set", "out"}); got != "strict" || !ok {
		t.Errorf("Closest(strcit) = %q, %v", got, ok)
	}
	if got, ok := Closest("titel", nil); ok {
		t.Errorf("Closest with no candidates = %q, %v", got, ok)
	}
}
