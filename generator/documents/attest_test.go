package documents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/attestation"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/internal/edptest"
)

// now is the time the tests judge expiry at.
var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// entitySite is a site whose entity card has one MCP entry, attested by
// example-weather with the token in $WEATHER_ATTESTATION and its key in
// provider.pem.
const entitySite = `base_url = "https://weather.example.com/"
title = "Weather"

[entity]
schema_version = "0.2.0"

[[entity.entities]]
name = "Example Weather Co."

[[entity.entities.mcps]]
provider = "example-weather"
endpoint = "https://weather.example.com/mcp"
capabilities = ["forecast"]

[entity.entities.mcps.verification]
signature_env = "WEATHER_ATTESTATION"
public_key_file = "provider.pem"
`

// attest runs Attest on entitySite with the provider's key beside it and
// the environment given.
func attest(t *testing.T, provider *edptest.Provider, env map[string]string, lenient bool) (*site.Config, *Attested, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "provider.pem"), provider.PEM(t), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := site.Parse(filepath.Join(dir, "site.toml"), entitySite, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Attest(AttestInput{Config: cfg, Getenv: func(name string) string { return env[name] }, Now: now, Lenient: lenient})
	return cfg, out, err
}

// A token signed by the provider's key is checked and returned by its key
// path, with the verification the card publishes; site.toml's stays as it
// was.
func TestAttestFillsInTheAttestation(t *testing.T) {
	provider := edptest.NewEdDSA(t, "k1")
	claims := edptest.Valid("example-weather", "weather.example.com", now, 90*24*time.Hour)
	claims.Capabilities = []string{"forecast"}
	token := provider.Sign(t, claims)
	cfg, out, err := attest(t, provider, map[string]string{"WEATHER_ATTESTATION": token}, false)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := out.Attestations["entity.entities.0.mcps.0"]
	if !ok || !got.Verified || len(out.Warnings) != 0 {
		t.Fatalf("attestations %+v, warnings %q: want the entry's, verified, and no warning", out.Attestations, out.Warnings)
	}
	vf := out.Verifications["entity.entities.0.mcps.0"]
	if vf == nil || vf.Method != attestation.Method || vf.Signature != token || vf.ExpiresAt != attestation.Date(now.Add(90*24*time.Hour)) {
		t.Errorf("verification %+v: want the method, the token and its expiry filled in", vf)
	}
	if configured := cfg.Entity.Entities[0].MCPs[0].Verification; configured.Signature != "" || configured.ExpiresAt != "" {
		t.Errorf("site.toml's verification %+v was changed", configured)
	}
}

// Without the token's variable, a strict build fails; a lenient one warns
// and publishes no verification for the entry.
func TestAttestUnsetVariable(t *testing.T) {
	provider := edptest.NewEdDSA(t, "k1")
	if _, _, err := attest(t, provider, nil, false); err == nil || !strings.Contains(err.Error(), "WEATHER_ATTESTATION (signature_env) is empty or unset") {
		t.Errorf("strict: error %v, want the unset variable named", err)
	}
	_, out, err := attest(t, provider, nil, true)
	if err != nil || len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0].Msg, "leaves the attestation out") {
		t.Fatalf("lenient: warnings %q, error %v; want one warning that the attestation is left out", out.Warnings, err)
	}
	if len(out.Verifications) != 0 || len(out.Attestations) != 0 {
		t.Errorf("lenient: verifications %+v, attestations %+v; want neither", out.Verifications, out.Attestations)
	}
}

// A token dated in the future fails the build: it would publish an
// issued_at that has not happened, and registries would see level 1.
func TestAttestTokenFromTheFuture(t *testing.T) {
	provider := edptest.NewEdDSA(t, "k1")
	claims := edptest.Valid("example-weather", "weather.example.com", now, 90*24*time.Hour)
	claims.Capabilities = []string{"forecast"}
	claims.IssuedAt = now.Add(time.Hour).Unix()
	_, _, err := attest(t, provider, map[string]string{"WEATHER_ATTESTATION": provider.Sign(t, claims)}, false)
	want := "the token's iat 2026-06-01T13:00:00Z is in the future (more than 5m0s from now, 2026-06-01T12:00:00Z)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}
