package documents

import (
	"crypto/ed25519"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator/bundle"
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

// entitySection is a 0.1.0 entity card whose one MCP entry names the
// server and has an attestation in site.toml.
const entitySection = `
[entity]
schema_version = "0.1.0"

[[entity.mcps]]
provider = "example-weather"
server = "com.example.weather/forecast"
verification = { signature_env = "WEATHER_ATTESTATION" }
`

// The entity card publishes each MCP entry with the endpoint of the server
// it names and the verification it is handed; site.toml's entry stays as
// it was, so the stage can run again on the same config.
func TestAddPublishesTheEntityCard(t *testing.T) {
	src := strings.Replace(weatherSite, "%s", "https://weather.example.com/mcp", 1) + entitySection
	cfg, err := site.Parse(filepath.Join(t.TempDir(), "site.toml"), src, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	published := site.Verification{Method: "signed_jwt", Signature: "a.b.c", ExpiresAt: "2026-09-01T00:00:00Z"}
	for range 2 {
		b := bundle.New()
		if _, err := Add(b, Input{Config: cfg, Key: key, Verifications: map[string]*site.Verification{"entity.mcps.0": &published}}); err != nil {
			t.Fatal(err)
		}
		f, ok := b.Get(paths.EntityCard)
		if !ok {
			t.Fatalf("no entity card at %s", paths.EntityCard)
		}
		var card site.Entity
		if err := json.Unmarshal(f.Body, &card); err != nil {
			t.Fatal(err)
		}
		if len(card.MCPs) != 1 {
			t.Fatalf("published entries %+v, want the one of site.toml", card.MCPs)
		}
		m := card.MCPs[0]
		if m.Endpoint != "https://weather.example.com/mcp" || m.Verification == nil || *m.Verification != published {
			t.Errorf("published entry %+v (verification %+v): want the server's remote and the verification handed in", m, m.Verification)
		}
	}
	if m := cfg.Entity.MCPs[0]; m.Endpoint != "" || m.Verification.Signature != "" {
		t.Errorf("site.toml's entry %+v (verification %+v) was changed", m, m.Verification)
	}
}
