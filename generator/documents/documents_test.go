package documents

import (
	"crypto/ed25519"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/paths"
	"github.com/wellknown-dev/wellknown/generator/site"
)

// weatherSite is a site of one server whose remote is on the site's own
// origin, so its card is also published at the remote's reserved path.
const weatherSite = `base_url = "https://weather.example.com/"
title = "Weather"

[[servers]]
name = "com.example.weather/forecast"
description = "Forecasts."
version = "1.0.0"

[[servers.remotes]]
type = "streamable-http"
url = "%s"
`

// add runs the documents stage on weatherSite with the remote's URL.
func add(t *testing.T, remote string) (*bundle.Bundle, *Output, error) {
	t.Helper()
	cfg, err := site.Parse(filepath.Join(t.TempDir(), "site.toml"), strings.Replace(weatherSite, "%s", remote, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := bundle.New()
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	out, err := Add(b, Input{Config: cfg, Key: key})
	return b, out, err
}

// The stage adds the server's card at its own path, at its remote's
// reserved path (which the output names for the pages) and at the alias,
// with the catalog pointing at the reserved path, and the DID document.
func TestAddPublishesTheCards(t *testing.T) {
	b, out, err := add(t, "https://weather.example.com/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.ReservedCards) != 1 || len(out.ReservedCards[0]) != 1 || out.ReservedCards[0][0] != "/mcp/server-card" {
		t.Errorf("reserved cards %q, want [[/mcp/server-card]]", out.ReservedCards)
	}
	for _, p := range []string{paths.ServerCardOf("forecast"), "/mcp/server-card", paths.ServerCardAlias, paths.ServerList, paths.AICards, "/.well-known/did.json"} {
		if _, ok := b.Get(p); !ok {
			t.Errorf("no document at %s", p)
		}
	}
	f, ok := b.Get(paths.Catalog)
	if !ok {
		t.Fatalf("no catalog at %s", paths.Catalog)
	}
	var catalog struct {
		Entries []struct{ URL string } `json:"entries"`
	}
	if err := json.Unmarshal(f.Body, &catalog); err != nil {
		t.Fatal(err)
	}
	if len(catalog.Entries) != 1 || catalog.Entries[0].URL != "https://weather.example.com/mcp/server-card" {
		t.Errorf("catalog entries %+v, want the one at the reserved path", catalog.Entries)
	}
}

// A remote on the site's origin whose reserved path has dot segments is an
// error blaming its URL in site.toml, and nothing is published.
func TestAddBlamesTheRemote(t *testing.T) {
	b, _, err := add(t, "https://weather.example.com/a/../mcp")
	if err == nil || !strings.Contains(err.Error(), "site.toml:11") || !strings.Contains(err.Error(), "remote https://weather.example.com/a/../mcp") {
		t.Fatalf("error %v, want one at site.toml:11 naming the remote", err)
	}
	if _, ok := b.Get(paths.Catalog); ok {
		t.Errorf("the catalog was published despite the error")
	}
}
