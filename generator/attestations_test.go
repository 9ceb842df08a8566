package generator

import (
	"crypto/ed25519"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/cards"
	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/edptest"
	"github.com/wellknown-dev/wellknown/internal/upstream"
)

// attestNow is the time of the attestation tests' builds.
var attestNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// The example site's entity MCP entry, which the tests attest.
const (
	exampleProvider = "example-weather"
	exampleDomain   = "weather.example.com"
	exampleMCPLine  = `capabilities = ["forecast", "alerts"]`
)

func exampleClaims(lifetime time.Duration) edptest.Claims {
	c := edptest.Valid(exampleProvider, exampleDomain, attestNow, lifetime)
	c.Capabilities = []string{"forecast", "alerts"}
	return c
}

// attestedSite is the example site whose entity MCP entry has the
// verification table given (its lines), and files written beside
// site.toml.
func attestedSite(t *testing.T, verification string, files map[string][]byte) string {
	t.Helper()
	config := exampleSite(t)
	src, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), exampleMCPLine) {
		t.Fatal("site.example.toml's entity MCP entry changed; update this test")
	}
	src = []byte(strings.Replace(string(src), exampleMCPLine, exampleMCPLine+"\n\n[entity.entities.mcps.verification]\n"+verification, 1))
	if err := os.WriteFile(config, src, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(filepath.Dir(config), name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return config
}

// buildAt builds with the environment of the tests plus env, at now.
func buildAt(t *testing.T, config string, now time.Time, env map[string]string) (*Result, error) {
	return Build(Options{ConfigPath: config, Now: func() time.Time { return now }, Getenv: func(name string) string {
		if v, ok := env[name]; ok {
			return v
		}
		return testEnv(name)
	}})
}

// attestationWarnings are the warnings about attestations, with site.toml
// named as a user who builds in the site's directory sees it, each followed
// by its hint.
func attestationWarnings(res *Result) []string {
	var out []string
	for _, w := range res.Warnings {
		if strings.Contains(w.Msg, "attestation") {
			out = append(out, relativeToSite(res.Config.Dir, w.Error()), w.Hint)
		}
	}
	return out
}

func relativeToSite(dir, msg string) string {
	return strings.TrimPrefix(msg, dir+string(filepath.Separator))
}

// A valid attestation, ES256 or EdDSA, is published in the shape of the
// upstream example with-verification.json, passes the upstream schema, and
// lifts the entry to level 2.
func TestAttestedEntityCard(t *testing.T) {
	for _, p := range []*edptest.Provider{edptest.NewES256(t, "weather-2026"), edptest.NewEdDSA(t, "weather-2026")} {
		t.Run(p.Alg, func(t *testing.T) {
			claims := exampleClaims(365 * 24 * time.Hour)
			token := p.Sign(t, claims)
			config := attestedSite(t, `signature_file = "attestation.jwt"`+"\n"+`public_key_file = "provider.pem"`,
				map[string][]byte{"attestation.jwt": []byte(token + "\n"), "provider.pem": p.PEM(t)})
			res, err := buildAt(t, config, attestNow, nil)
			if err != nil {
				t.Fatal(err)
			}
			card := mustGet(t, res, paths.EntityCard)
			if err := upstream.Validate(t, "edp-entity-card", card); err != nil {
				t.Errorf("the card fails the upstream schema: %v\n%s", err, card)
			}
			if problems := cards.CheckEntityCard(card, exampleDomain); len(problems) > 0 {
				t.Errorf("the card fails our own check: %v", problems)
			}
			got := firstMCP(t, card)
			want := firstMCP(t, upstreamExample(t, "with-verification.json"))
			if !slices.Equal(slices.Sorted(maps.Keys(got["verification"].(map[string]any))), slices.Sorted(maps.Keys(want["verification"].(map[string]any)))) {
				t.Errorf("verification has members %v, the upstream example %v", got["verification"], want["verification"])
			}
			v := got["verification"].(map[string]any)
			wantV := map[string]any{
				"method": "signed_jwt", "signature": token,
				"issued_at":  time.Unix(claims.IssuedAt, 0).UTC().Format(time.RFC3339),
				"expires_at": time.Unix(claims.Expiry, 0).UTC().Format(time.RFC3339),
			}
			if !maps.Equal(v, wantV) {
				t.Errorf("verification %v, want %v", v, wantV)
			}
			if level := res.Attestations["entity.entities.0.mcps.0"].Level(attestNow); level != 2 {
				t.Errorf("level %d, want 2", level)
			}
			home := string(mustGet(t, res, "/index.html"))
			if line := "by example-weather: EDP level 2 (attested by the provider until 2027-06-01)"; !strings.Contains(home, line) {
				t.Errorf("the home page does not say %q", line)
			}
			if w := attestationWarnings(res); len(w) > 0 {
				t.Errorf("warnings for a valid attestation a year from expiry: %q", w)
			}
			// The time of the build decides warnings, never the bytes.
			later, err := buildAt(t, config, attestNow.Add(300*24*time.Hour), nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(mustGet(t, later, paths.EntityCard)) != string(card) || string(mustGet(t, later, "/index.html")) != string(mustGet(t, res, "/index.html")) {
				t.Error("a build 300 days later wrote another card or home page")
			}
		})
	}
}

func firstMCP(t *testing.T, card []byte) map[string]any {
	t.Helper()
	var doc struct {
		Entities []struct {
			MCPs []map[string]any `json:"mcps"`
		} `json:"entities"`
	}
	if err := json.Unmarshal(card, &doc); err != nil || len(doc.Entities) == 0 || len(doc.Entities[0].MCPs) == 0 {
		t.Fatalf("no entities[0].mcps[0] in %s (%v)", card, err)
	}
	return doc.Entities[0].MCPs[0]
}

func upstreamExample(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(upstream.Path(t, "schemas", "examples", "edp-entity-card", "valid", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A key set served on loopback is fetched once and checks the token; the
// token may come from the environment, as in CI.
func TestAttestationFromJWKSAndEnv(t *testing.T) {
	p, q := edptest.NewES256(t, "weather-es"), edptest.NewEdDSA(t, "weather-ed")
	jwks, hits := edptest.ServeJWKS(t, p, q)
	config := attestedSite(t, `signature_env = "WEATHER_ATTESTATION"`+"\n"+`jwks_url = "`+jwks+`"`, nil)
	res, err := buildAt(t, config, attestNow, map[string]string{"WEATHER_ATTESTATION": q.Sign(t, exampleClaims(20*24*time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the key set was fetched %d times, want 1", n)
	}
	if level := res.Attestations["entity.entities.0.mcps.0"].Level(attestNow); level != 2 {
		t.Errorf("level %d, want 2", level)
	}
	want := []string{`site.toml:89: entity mcp example-weather: attestation: the token expires on 2026-06-21, in 20 days`,
		"ask example-weather for a new one before then (registries then see the entry at level 1)"}
	if !slices.Equal(attestationWarnings(res), want) {
		t.Errorf("warnings\n%q\nwant\n%q", res.Warnings, want)
	}
}

// Without the provider's key the claims are checked, the signature is not,
// and the build says so.
func TestAttestationWithoutKey(t *testing.T) {
	p := edptest.NewEdDSA(t, "k")
	res, err := buildAt(t, attestedSite(t, `signature = "`+p.Sign(t, exampleClaims(365*24*time.Hour))+`"`, nil), attestNow, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"site.toml:89: entity mcp example-weather: attestation: the signature is not checked",
		"set public_key_file or jwks_url to the provider's key"}
	if !slices.Equal(attestationWarnings(res), want) {
		t.Errorf("warnings\n%q\nwant\n%q", res.Warnings, want)
	}
	if level := res.Attestations["entity.entities.0.mcps.0"].Level(attestNow); level != 1 {
		t.Errorf("level %d, want 1", level)
	}
	if line := "EDP level 1 (the business's claim; the provider's attestation until 2027-06-01 is not checked)"; !strings.Contains(string(mustGet(t, res, "/index.html")), line) {
		t.Errorf("the home page does not say %q", line)
	}
}

// Every broken attestation fails the build with one error line at its
// verification table.
func TestBrokenAttestations(t *testing.T) {
	p, other := edptest.NewES256(t, "weather-2026"), edptest.NewES256(t, "weather-2026")
	valid := exampleClaims(365 * 24 * time.Hour)
	with := func(edit func(*edptest.Claims)) string {
		c := exampleClaims(365 * 24 * time.Hour)
		edit(&c)
		return p.Sign(t, c)
	}
	keyed := func(token string) string {
		return `signature = "` + token + `"` + "\n" + `public_key_file = "provider.pem"`
	}
	jwks, _ := edptest.ServeJWKS(t, other)
	const at = `^site\.toml:89: entity mcp example-weather: attestation: `
	hints := map[string]string{
		"expired":   "ask example-weather for a new token; an expired attestation is not published, and registries see the entry at level 1",
		"wrong sub": `ask example-weather for a token it signs for this entry: iss "example-weather", sub "weather.example.com", entity_id ""`,
	}
	for _, tc := range []struct {
		name, verification, want string
	}{
		{"expired", keyed(with(func(c *edptest.Claims) {
			c.IssuedAt, c.Expiry = attestNow.Add(-72*time.Hour).Unix(), attestNow.Add(-48*time.Hour).Unix()
		})),
			at + `the token expired on 2026-05-30$`},
		{"wrong sub", keyed(with(func(c *edptest.Claims) { c.Subject = "evil.example" })),
			at + `the token's sub "evil\.example" is not the card's domain "weather\.example\.com"$`},
		{"wrong iss", keyed(with(func(c *edptest.Claims) { c.Issuer = "other-provider" })),
			at + `the token's iss "other-provider" is not the entry's provider "example-weather"$`},
		{"tampered payload", keyed(edptest.Tamper(t, p.Sign(t, valid), exampleClaims(5*365*24*time.Hour))),
			at + `the signature does not verify with the provider's key$`},
		{"wrong key", `signature = "` + p.Sign(t, valid) + `"` + "\n" + `jwks_url = "` + jwks + `"`,
			at + `the signature does not verify with the provider's key$`},
		{"alg none", keyed(edptest.Unsigned(t, "none", valid)),
			at + `the token's algorithm "none" is not accepted \(ES256, EdDSA or RS256\)$`},
		{"malformed", keyed("not-a-token"),
			at + `not a signed JWT \(header\.payload\.signature, base64url\): .+$`},
		{"capability not attested", keyed(with(func(c *edptest.Claims) { c.Capabilities = []string{"forecast"} })),
			at + `the entry's capability "alerts" is not among the token's \["forecast"\]$`},
		{"expires_at disagrees", keyed(p.Sign(t, valid)) + "\n" + `expires_at = "2030-01-01T00:00:00Z"`,
			at + `expires_at 2030-01-01T00:00:00Z disagrees with the token's 2027-06-01T12:00:00Z$`},
		{"environment variable unset", `signature_env = "NO_SUCH_VARIABLE"`,
			at + `the environment variable NO_SUCH_VARIABLE \(signature_env\) is empty or unset$`},
		{"JWKS over http off loopback", `signature = "` + p.Sign(t, valid) + `"` + "\n" + `jwks_url = "http://keys.example.com/jwks.json"`,
			at + `jwks_url http://keys\.example\.com/jwks\.json: a JWKS is fetched over https \(plain http only from localhost\)$`},
		{"two token sources", `signature = "x"` + "\n" + `signature_env = "Y"`,
			`^site\.toml:89: verification sets more than one of signature, signature_file and signature_env$`},
		{"no token", `method = "signed_jwt"`,
			`^site\.toml:89: verification has no token: set signature, signature_file or signature_env$`},
		{"another method", `method = "dns_txt"` + "\n" + `signature = "x"`,
			`^site\.toml:90: verification method "dns_txt" is not signed_jwt, the only one EDP defines$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := attestedSite(t, tc.verification, map[string][]byte{"provider.pem": p.PEM(t)})
			var env map[string]string
			if tc.name == "environment variable unset" {
				env = map[string]string{"CI": "true"} // a preview only warns (TestAttestationSecretUnsetInPreview)
			}
			_, err := buildAt(t, config, attestNow, env)
			errs := diag.List(err)
			if len(errs) != 1 || !regexp.MustCompile(tc.want).MatchString(relativeToSite(filepath.Dir(config), errs[0].Error())) {
				t.Fatalf("errors %q, want one matching %s", errs, tc.want)
			}
			if want, ok := hints[tc.name]; ok && diag.Hint(errs[0]) != want {
				t.Errorf("hint %q, want %q", diag.Hint(errs[0]), want)
			}
		})
	}
}

// A preview, and a build that publishes nothing (check, which a pull request
// from a fork runs without secrets), leave out an attestation whose
// environment variable is unset, with a warning; a strict build fails
// (TestBrokenAttestations).
func TestAttestationSecretUnsetInPreview(t *testing.T) {
	config := attestedSite(t, `signature_env = "NO_SUCH_VARIABLE"`, nil)
	key := didweb.SigningKey{Private: ed25519.NewKeyFromSeed(testSeed), Source: "a throwaway key"}
	for name, opt := range map[string]Options{
		"preview": {ConfigPath: config, Getenv: testEnv},
		"check":   {ConfigPath: config, Getenv: func(n string) string { return map[string]string{"CI": "true"}[n] }, Key: &key},
	} {
		res, err := Build(opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w := attestationWarnings(res); len(w) != 2 || !strings.Contains(w[0], "NO_SUCH_VARIABLE (signature_env) is unset, so this build leaves the attestation out") ||
			w[1] != "set NO_SUCH_VARIABLE for a deploy" {
			t.Errorf("%s: warnings %q", name, w)
		}
		if card := string(mustGet(t, res, paths.EntityCard)); strings.Contains(card, "verification") {
			t.Errorf("%s: the card has a verification without its token:\n%s", name, card)
		}
	}
}
