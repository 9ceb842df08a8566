package deploy

import (
	"testing"

	"github.com/wellknown-dev/wellknown/format/site"
)

func TestMatchRedirect(t *testing.T) {
	for _, tc := range []struct {
		from, to, path string
		want           string // "" when the rule does not match
	}{
		{"/old", "/new", "/old", "/new"},
		{"/old", "/new", "/old/", "/new"},
		{"/old/", "/new", "/old", "/new"},
		{"/old", "/new", "/older", ""},
		{"/old", "/new", "/old/x", ""},
		{"/", "/home", "/", "/home"},
		{"/a/*", "/b/:splat", "/a/x/y.json", "/b/x/y.json"},
		{"/a/*", "/b/:splat", "/a/", "/b/"},
		{"/a/*", "/b/:splat", "/a", "/b/"},
		{"/a/*", "/b/:splat", "/ab/x", ""},
		{"/*", "/index.html", "/anything/at/all", "/index.html"},
		{"/u/:name/card", "/cards/:name.json", "/u/ada/card", "/cards/ada.json"},
		{"/u/:name/card", "/cards/:name.json", "/u/ada/lovelace/card", ""},
		{"/u/:name/:part", "/:part/:name", "/u/ada/card", "/card/ada"},
		{"/u/:name", "/users?id=:name", "/u/ada", "/users?id=ada"},
		{"/u/:name", "/:unknown/:name", "/u/ada", "/:unknown/ada"},
		{"/go/*", "https://example.com:8443/:splat", "/go/x", "https://example.com:8443/x"},
	} {
		got, ok := MatchRedirect(site.Redirect{From: tc.from, To: tc.to}, tc.path)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("rule %s → %s on %s: %q, %v; want %q", tc.from, tc.to, tc.path, got, ok, tc.want)
		}
	}
}
