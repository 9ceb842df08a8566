package verify

import "testing"

// A Server Card's slug is read from where a build publishes the card, and
// from nowhere else.
func TestCardSlug(t *testing.T) {
	for p, want := range map[string]string{
		"/mcp/orders/server-card.json":      "orders",
		"/mcp//server-card.json":            "",
		"/mcp/a/b/server-card.json":         "",
		"/mcp/orders/server-card.json.bak":  "",
		"/a2a/orders/agent-card.json":       "",
		"/.well-known/mcp/server-card.json": "",
	} {
		if slug, ok := cardSlug(p); ok != (want != "") || ok && slug != want {
			t.Errorf("cardSlug(%q) = %q, %v; want %q", p, slug, ok, want)
		}
	}
}
