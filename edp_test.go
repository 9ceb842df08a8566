package main

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/internal/edptest"
)

// A business builds with its provider's attestation from the environment
// (as in CI), and verify, given the provider's key, reports level 2 and the
// days to expiry; an expired one fails the build with one located error.
func TestEDPAttestationBuildAndVerify(t *testing.T) {
	dir := inExampleSite(t)
	p := edptest.NewES256(t, "weather-2026")
	claims := edptest.Valid("example-weather", "weather.example.com", time.Now(), 365*24*time.Hour)
	claims.Capabilities = []string{"forecast", "alerts"}
	t.Setenv("WEATHER_ATTESTATION", p.Sign(t, claims))
	replace("site.toml", `capabilities = ["forecast", "alerts"]`, `capabilities = ["forecast", "alerts"]

[entity.entities.mcps.verification]
signature_env = "WEATHER_ATTESTATION"
public_key_file = "provider.pem"`)(t, dir)
	writeFile("provider.pem", string(p.PEM(t)))(t, dir)

	var stdout, stderr bytes.Buffer
	if code := run([]string{"build"}, &stdout, &stderr); code != 0 {
		t.Fatalf("build: exit %d\n%s", code, stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"verify", "--provider-key", "example-weather=provider.pem", "public"}, &stdout, &stderr); code != 0 {
		t.Fatalf("verify: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	level2 := regexp.MustCompile(`(?m)^EDP entities\[0\]\.mcps\[0\] \(example-weather\): level 2, attestation expires \d{4}-\d\d-\d\d \(36[45] days left\)$`)
	if !level2.Match(stdout.Bytes()) {
		t.Errorf("verify does not report level 2 and the days left:\n%s", stdout.String())
	}

	claims.Expiry = time.Now().Add(-time.Hour).Unix()
	t.Setenv("WEATHER_ATTESTATION", p.Sign(t, claims))
	stderr.Reset()
	if code := run([]string{"build"}, new(bytes.Buffer), &stderr); code != 1 {
		t.Fatalf("build with an expired attestation: exit %d, want 1", code)
	}
	expired := regexp.MustCompile(`(?m)^wellknown: error: site\.toml:89: entity mcp example-weather: attestation: the token expired on \d{4}-\d\d-\d\d\nwellknown: hint: ask example-weather for a new token`)
	if !expired.Match(stderr.Bytes()) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}
