package verify

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/internal/edptest"
)

var edpNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// entityCard is a 0.2.0 card for example.com with one MCP entry of
// booking-provider carrying token (none when empty).
func entityCard(t *testing.T, token string) []byte {
	t.Helper()
	mcp := map[string]any{"provider": "booking-provider", "endpoint": "https://mcp.booking.example", "entity_id": "downtown-001"}
	if token != "" {
		mcp["verification"] = map[string]any{"method": "signed_jwt", "signature": token}
	}
	return mustJSON(t, map[string]any{"schema_version": "0.2.0", "domain": "example.com",
		"entities": []any{map[string]any{"name": "Downtown", "mcps": []any{mcp}}}})
}

func bookingClaims(lifetime time.Duration) edptest.Claims {
	c := edptest.Valid("booking-provider", "example.com", edpNow, lifetime)
	c.EntityID = "downtown-001"
	return c
}

// verifyCard verifies a directory site publishing card, with the provider's
// key source given (none when empty).
func verifyCard(t *testing.T, card []byte, key string) (*Report, []string) {
	t.Helper()
	dir := t.TempDir()
	writeSite(t, dir, "did:web:example.com")
	write(t, filepath.Join(dir, ".well-known", "entity-card.json"), card)
	opt := Options{Target: dir, Base: "https://example.com", Now: func() time.Time { return edpNow }}
	if key != "" {
		opt.ProviderKeys = map[string]string{"booking-provider": key}
	}
	rep := run(t, opt)
	var lines []string
	for _, f := range rep.Origins[0].Findings {
		if strings.HasPrefix(f.Code, "edp-") {
			lines = append(lines, f.String())
		}
	}
	return rep, lines
}

// verify reports level 2 with the days to expiry for a valid attestation,
// whether the key is a PEM file or a JWKS on loopback, for ES256 and EdDSA.
func TestVerifyAttestationLevel2(t *testing.T) {
	es, ed := edptest.NewES256(t, "booking-es"), edptest.NewEdDSA(t, "booking-ed")
	pemFile := filepath.Join(t.TempDir(), "booking.pem")
	write(t, pemFile, es.PEM(t))
	jwks, _ := edptest.ServeJWKS(t, es, ed)
	for _, tc := range []struct {
		name string
		p    *edptest.Provider
		key  string
	}{{"ES256 with a PEM key", es, pemFile}, {"EdDSA with a JWKS", ed, jwks}} {
		t.Run(tc.name, func(t *testing.T) {
			rep, lines := verifyCard(t, entityCard(t, tc.p.Sign(t, bookingClaims(100*24*time.Hour))), tc.key)
			if len(lines) > 0 {
				t.Errorf("findings for a valid attestation:\n%s", strings.Join(lines, "\n"))
			}
			days := 100
			want := []EDPEntry{{Entry: "entities[0].mcps[0]", Provider: "booking-provider", Level: 2, ExpiresAt: "2026-09-09T12:00:00Z", DaysLeft: &days}}
			got := rep.Origins[0].EDP
			if len(got) != 1 || got[0].String() != want[0].String() || mustJSONString(t, got) != mustJSONString(t, want) {
				t.Errorf("EDP %s, want %s", mustJSONString(t, got), mustJSONString(t, want))
			}
			if got := got[0].String(); got != "EDP entities[0].mcps[0] (booking-provider): level 2, attestation expires 2026-09-09 (100 days left)" {
				t.Errorf("report line %q", got)
			}
		})
	}
}

func mustJSONString(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Each broken attestation is reported with its own error, and the entry
// stays at level 1.
func TestVerifyBrokenAttestations(t *testing.T) {
	p, other := edptest.NewES256(t, "booking-es"), edptest.NewES256(t, "booking-es")
	pemFile := filepath.Join(t.TempDir(), "booking.pem")
	write(t, pemFile, p.PEM(t))
	otherJWKS, _ := edptest.ServeJWKS(t, other)
	weak := edptest.NewWeakRS256(t, "booking-rs")
	weakJWKS, _ := edptest.ServeJWKS(t, weak)
	valid := bookingClaims(365 * 24 * time.Hour)
	with := func(edit func(*edptest.Claims)) string {
		c := bookingClaims(365 * 24 * time.Hour)
		edit(&c)
		return p.Sign(t, c)
	}
	const at = "error: /.well-known/entity-card.json: entities[0].mcps[0] (booking-provider): attestation: "
	for _, tc := range []struct {
		name, token, key string
		want             []string
	}{
		{"expired", with(func(c *edptest.Claims) {
			c.IssuedAt, c.Expiry = edpNow.Add(-96*time.Hour).Unix(), edpNow.Add(-72*time.Hour).Unix()
		}), pemFile,
			[]string{at + "expired on 2026-05-29; registries see the entry at level 1 (edp-expired)"}},
		{"issued in 2100", with(func(c *edptest.Claims) {
			c.IssuedAt = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
			c.Expiry = c.IssuedAt + 1
		}), pemFile,
			[]string{at + "the token's iat 2100-01-01T00:00:00Z is in the future (more than 5m0s from now, 2026-06-01T12:00:00Z); registries see the entry at level 1 (edp-attestation)"}},
		{"iat after exp", with(func(c *edptest.Claims) {
			c.IssuedAt = edpNow.Add(-time.Hour).Unix()
			c.Expiry = edpNow.Add(-2 * time.Hour).Unix()
		}), pemFile,
			[]string{at + "the token's iat 2026-06-01T11:00:00Z is after its exp 2026-06-01T10:00:00Z (edp-attestation)",
				at + "expired on 2026-06-01; registries see the entry at level 1 (edp-expired)"}},
		{"unknown crit", p.SignCritical(t, valid, []string{"urn:example:policy"}), pemFile,
			[]string{at + `the token's header marks ["urn:example:policy"] critical (crit): extensions this check does not understand, so the token is refused (edp-attestation)`}},
		{"1024-bit RSA key", weak.Sign(t, valid), weakJWKS,
			[]string{at + "the provider's key: an RSA key of 1024 bits; at least 2048 are required (edp-attestation)"}},
		{"wrong sub", with(func(c *edptest.Claims) { c.Subject = "evil.example" }), pemFile,
			[]string{at + `the token's sub "evil.example" is not the card's domain "example.com" (edp-attestation)`}},
		{"wrong iss", with(func(c *edptest.Claims) { c.Issuer = "other-provider" }), pemFile,
			[]string{at + `the token's iss "other-provider" is not the entry's provider "booking-provider" (edp-attestation)`}},
		{"tampered payload", edptest.Tamper(t, p.Sign(t, valid), bookingClaims(10*365*24*time.Hour)), pemFile,
			[]string{at + "the signature does not verify with the provider's key (edp-attestation)"}},
		{"wrong key", p.Sign(t, valid), otherJWKS,
			[]string{at + "the signature does not verify with the provider's key (edp-attestation)"}},
		{"alg none", edptest.Unsigned(t, "none", valid), pemFile,
			[]string{at + `the token's algorithm "none" is not accepted (ES256, EdDSA or RS256) (edp-attestation)`}},
		{"unreadable key", p.Sign(t, valid), "no-such.pem",
			[]string{at + "the provider's key: read no-such.pem: no such file or directory (edp-key)"}},
		{"no key", p.Sign(t, valid), "",
			[]string{"warning: /.well-known/entity-card.json: entities[0].mcps[0] (booking-provider): attestation: the signature is not checked: no key for provider booking-provider (edp-key)"}},
		{"expiring", with(func(c *edptest.Claims) { c.Expiry = edpNow.Add(9*24*time.Hour + time.Hour).Unix() }), pemFile,
			[]string{"warning: /.well-known/entity-card.json: entities[0].mcps[0] (booking-provider): attestation: expires on 2026-06-10, in 9 days (edp-expiring)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, lines := verifyCard(t, entityCard(t, tc.token), tc.key)
			if !slices.Equal(lines, tc.want) {
				t.Errorf("findings\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tc.want, "\n"))
			}
			wantLevel := 1
			if tc.name == "expiring" {
				wantLevel = 2
			}
			if edp := rep.Origins[0].EDP; len(edp) != 1 || edp[0].Level != wantLevel {
				t.Errorf("EDP %+v, want one entry at level %d", edp, wantLevel)
			}
		})
	}
}

// On a live origin too: the card is read over HTTP and its entry is level 2.
func TestVerifyAttestationLiveOrigin(t *testing.T) {
	o := newOrigin(t, hostHeaders)
	o.minimal()
	p := edptest.NewEdDSA(t, "booking-ed")
	jwks, _ := edptest.ServeJWKS(t, p)
	c := edptest.Valid("booking-provider", o.base.Hostname(), edpNow, 40*24*time.Hour)
	card := mustJSON(t, map[string]any{"schema_version": "0.1.0", "domain": o.base.Hostname(), "mcps": []any{map[string]any{
		"provider": "booking-provider", "endpoint": "https://mcp.booking.example",
		"verification": map[string]any{"method": "signed_jwt", "signature": p.Sign(t, c)},
	}}})
	o.put(paths.EntityCard, card, http.Header{"Access-Control-Allow-Origin": {"*"}, "Content-Type": {"application/json"}})
	rep := run(t, Options{Target: o.base.String(), Now: func() time.Time { return edpNow }, ProviderKeys: map[string]string{"booking-provider": jwks}})
	edp := rep.Origins[0].EDP
	if len(edp) != 1 || edp[0].String() != "EDP mcps[0] (booking-provider): level 2, attestation expires 2026-07-11 (40 days left)" {
		t.Errorf("EDP %+v:%s", edp, dump(rep))
	}
	if f := findings(rep, codeEDPAttestation); len(f) > 0 {
		t.Errorf("attestation findings: %v", f)
	}
}

// An entry without an attestation is level 1 and no finding.
func TestVerifyEntityClaimLevel1(t *testing.T) {
	rep, lines := verifyCard(t, entityCard(t, ""), "")
	if len(lines) > 0 || len(rep.Origins[0].EDP) != 1 || rep.Origins[0].EDP[0].Level != 1 || rep.Origins[0].EDP[0].DaysLeft != nil {
		t.Errorf("findings %q, EDP %+v; want none, one entry at level 1 without expiry", lines, rep.Origins[0].EDP)
	}
}

// A provider key set off loopback over plain http is refused before any read.
func TestVerifyProviderKeyOverHTTP(t *testing.T) {
	err := Options{Target: t.TempDir(), ProviderKeys: map[string]string{"booking-provider": "http://keys.example.com/jwks.json"}}.Validate()
	want := "--provider-key booking-provider: http://keys.example.com/jwks.json: a JWKS is fetched over https (plain http only from localhost)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// An entry whose expires_at disagrees with its token's exp is an error, and
// stays at level 1: the card's dates are not what the provider signed.
func TestVerifyAttestationDatesDisagree(t *testing.T) {
	p := edptest.NewES256(t, "booking-es")
	pemFile := filepath.Join(t.TempDir(), "booking.pem")
	write(t, pemFile, p.PEM(t))
	card := mustJSON(t, map[string]any{"schema_version": "0.2.0", "domain": "example.com",
		"entities": []any{map[string]any{"name": "Downtown", "mcps": []any{map[string]any{
			"provider": "booking-provider", "endpoint": "https://mcp.booking.example", "entity_id": "downtown-001",
			"verification": map[string]any{"method": "signed_jwt", "signature": p.Sign(t, bookingClaims(365*24*time.Hour)),
				"expires_at": "2099-01-01T00:00:00Z"},
		}}}}})
	rep, lines := verifyCard(t, card, pemFile)
	if len(lines) != 1 || !strings.Contains(lines[0], "(edp-attestation)") {
		t.Errorf("findings %q, want one edp-attestation error", lines)
	}
	if edp := rep.Origins[0].EDP; len(edp) != 1 || edp[0].Level != 1 {
		t.Errorf("EDP %+v, want the entry at level 1", edp)
	}
}
