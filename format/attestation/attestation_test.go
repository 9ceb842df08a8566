package attestation

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/internal/edptest"
	"github.com/wellknown-dev/wellknown/internal/tlstest"
)

func TestMain(m *testing.M) { tlstest.Main(m) }

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

var want = Expect{Provider: "booking-provider", Domain: "example-restaurant.com", EntityID: "downtown-001", Capabilities: []string{"reservations"}}

func validClaims() edptest.Claims {
	c := edptest.Valid(want.Provider, want.Domain, now, 365*24*time.Hour)
	c.EntityID, c.Capabilities = want.EntityID, []string{"reservations", "menu"}
	return c
}

// Every check, for each accepted algorithm, on tokens made and signed at
// test time.
func TestCheck(t *testing.T) {
	for _, newProvider := range []func(testing.TB, string) *edptest.Provider{edptest.NewES256, edptest.NewEdDSA, edptest.NewRS256} {
		p := newProvider(t, "key-2026")
		other := newProvider(t, "key-2026")
		pub, err := ParsePEM(p.PEM(t))
		if err != nil {
			t.Fatal(err)
		}
		with := func(edit func(*edptest.Claims)) string {
			c := validClaims()
			edit(&c)
			return p.Sign(t, c)
		}
		otherPub, _ := ParsePEM(other.PEM(t))
		for _, tc := range []struct {
			name  string
			token string
			key   any
			want  []string
		}{
			{"valid", p.Sign(t, validClaims()), pub, nil},
			{"wrong sub", with(func(c *edptest.Claims) { c.Subject = "other.example" }), pub,
				[]string{`the token's sub "other.example" is not the card's domain "example-restaurant.com"`}},
			{"wrong iss", with(func(c *edptest.Claims) { c.Issuer = "other-provider" }), pub,
				[]string{`the token's iss "other-provider" is not the entry's provider "booking-provider"`}},
			{"wrong entity_id", with(func(c *edptest.Claims) { c.EntityID = "uptown-002" }), pub,
				[]string{`the token's entity_id "uptown-002" is not the entry's entity_id "downtown-001"`}},
			{"capability not attested", with(func(c *edptest.Claims) { c.Capabilities = []string{"menu"} }), pub,
				[]string{`the entry's capability "reservations" is not among the token's ["menu"]`}},
			{"no exp", with(func(c *edptest.Claims) { c.Expiry = 0 }), pub,
				[]string{"the token has no exp: an attestation must expire"}},
			{"iat after exp", with(func(c *edptest.Claims) { c.IssuedAt = now.Add(400 * 24 * time.Hour).Unix() }), pub,
				[]string{"the token's iat 2027-07-06T12:00:00Z is after its exp 2027-06-01T12:00:00Z"}},
			{"nbf after exp", with(func(c *edptest.Claims) { c.NotBefore = now.Add(400 * 24 * time.Hour).Unix() }), pub,
				[]string{"the token's nbf 2027-07-06T12:00:00Z is after its exp 2027-06-01T12:00:00Z"}},
			{"unknown crit", p.SignCritical(t, validClaims(), []string{"urn:example:policy"}), pub,
				[]string{`the token's header marks ["urn:example:policy"] critical (crit): extensions this check does not understand, so the token is refused`}},
			{"tampered payload", edptest.Tamper(t, p.Sign(t, validClaims()), func() edptest.Claims {
				c := validClaims()
				c.Expiry = now.Add(10 * 365 * 24 * time.Hour).Unix()
				return c
			}()), pub, []string{"the signature does not verify with the provider's key"}},
			{"wrong key", p.Sign(t, validClaims()), otherPub, []string{"the signature does not verify with the provider's key"}},
			{"alg none", edptest.Unsigned(t, "none", validClaims()), pub,
				[]string{`the token's algorithm "none" is not accepted (ES256, EdDSA or RS256)`}},
			{"alg HS256", edptest.Unsigned(t, "HS256", validClaims()), pub,
				[]string{`the token's algorithm "HS256" is not accepted (ES256, EdDSA or RS256)`}},
			{"not a JWT", "eyJhbGciOiJFUzI1NiJ9.bm90IGpzb24", pub, nil},
		} {
			t.Run(p.Alg+"/"+tc.name, func(t *testing.T) {
				tok := Check(tc.token, want, tc.key)
				if tc.name == "not a JWT" {
					if len(tok.Problems) != 1 || !strings.HasPrefix(tok.Problems[0], "not a signed JWT") {
						t.Fatalf("problems %q, want one saying it is not a signed JWT", tok.Problems)
					}
					return
				}
				if !slices.Equal(tok.Problems, tc.want) {
					t.Fatalf("problems\n%q\nwant\n%q", tok.Problems, tc.want)
				}
				if wantLevel := map[bool]int{true: 2, false: 1}[tc.want == nil]; tok.Level(now) != wantLevel {
					t.Errorf("level %d, want %d", tok.Level(now), wantLevel)
				}
			})
		}
		t.Run(p.Alg+"/dates", func(t *testing.T) {
			c := validClaims()
			tok := Check(p.Sign(t, c), want, pub)
			if !tok.IssuedAt.Equal(time.Unix(c.IssuedAt, 0)) || !tok.ExpiresAt.Equal(time.Unix(c.Expiry, 0)) || tok.KeyID != "key-2026" {
				t.Fatalf("token %+v does not carry the claims' iat, exp and the header's kid", tok)
			}
			if Date(tok.ExpiresAt) != "2027-06-01T12:00:00Z" || tok.DaysLeft(now) != 365 {
				t.Errorf("expires %s, %d days left; want 2027-06-01T12:00:00Z, 365", Date(tok.ExpiresAt), tok.DaysLeft(now))
			}
		})
	}
}

func TestExpiry(t *testing.T) {
	p := edptest.NewEdDSA(t, "k")
	pub, _ := ParsePEM(p.PEM(t))
	for _, tc := range []struct {
		name                string
		lifetime            time.Duration
		expired, expiring   bool
		daysLeft, wantLevel int
	}{
		{"a year left", 365 * 24 * time.Hour, false, false, 365, 2},
		{"thirty days left", 30 * 24 * time.Hour, false, false, 30, 2},
		{"twelve days left", 12*24*time.Hour + time.Hour, false, true, 12, 2},
		{"expired yesterday", -24 * time.Hour, true, true, -1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := Check(p.Sign(t, edptest.Valid(want.Provider, want.Domain, now, tc.lifetime)), Expect{Provider: want.Provider, Domain: want.Domain}, pub)
			if len(tok.Problems) > 0 {
				t.Fatal(tok.Problems)
			}
			if tok.Expired(now) != tc.expired || tok.Expiring(now) != tc.expiring || tok.DaysLeft(now) != tc.daysLeft || tok.Level(now) != tc.wantLevel {
				t.Errorf("expired %v, expiring %v, %d days left, level %d; want %v, %v, %d, %d",
					tok.Expired(now), tok.Expiring(now), tok.DaysLeft(now), tok.Level(now), tc.expired, tc.expiring, tc.daysLeft, tc.wantLevel)
			}
		})
	}
}

// A token whose iat or nbf is in the future, beyond ClockSkew, is not valid
// yet: level 1, with a message naming the claim; within the skew it is.
func TestEarly(t *testing.T) {
	p := edptest.NewEdDSA(t, "k")
	pub, _ := ParsePEM(p.PEM(t))
	in2100 := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for _, tc := range []struct {
		name string
		edit func(*edptest.Claims)
		want string
	}{
		{"iat in 2100", func(c *edptest.Claims) { c.IssuedAt, c.Expiry = in2100, in2100+1 },
			"the token's iat 2100-01-01T00:00:00Z is in the future (more than 5m0s from now, 2026-06-01T12:00:00Z)"},
		{"nbf in 2100", func(c *edptest.Claims) { c.NotBefore, c.Expiry = in2100, in2100+1 },
			"the token's nbf 2100-01-01T00:00:00Z is in the future (more than 5m0s from now, 2026-06-01T12:00:00Z)"},
		{"iat within the skew", func(c *edptest.Claims) { c.IssuedAt = now.Add(ClockSkew).Unix() }, ""},
		{"nbf just past the skew", func(c *edptest.Claims) { c.NotBefore = now.Add(ClockSkew + time.Second).Unix() },
			"the token's nbf 2026-06-01T12:05:01Z is in the future (more than 5m0s from now, 2026-06-01T12:00:00Z)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validClaims()
			tc.edit(&c)
			tok := Check(p.Sign(t, c), want, pub)
			if len(tok.Problems) > 0 {
				t.Fatal(tok.Problems)
			}
			if got := tok.Early(now); got != tc.want {
				t.Errorf("Early = %q, want %q", got, tc.want)
			}
			if wantLevel := map[bool]int{true: 2, false: 1}[tc.want == ""]; tok.Level(now) != wantLevel {
				t.Errorf("level %d, want %d", tok.Level(now), wantLevel)
			}
		})
	}
}

// A 1024-bit RSA provider key attests nothing: refused from a PEM file,
// and from a key set.
func TestWeakRSAKey(t *testing.T) {
	p := edptest.NewWeakRS256(t, "weak")
	const msg = "an RSA key of 1024 bits; at least 2048 are required"
	if _, err := ParsePEM(p.PEM(t)); err == nil || err.Error() != msg {
		t.Errorf("ParsePEM: error %v, want %q", err, msg)
	}
	u, _ := edptest.ServeJWKS(t, p)
	keys := NewKeys()
	defer keys.Close()
	set, err := keys.JWKS(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	tok := Check(p.Sign(t, validClaims()), want, set)
	if !slices.Equal(tok.Problems, []string{"the provider's key: " + msg}) || tok.Verified || tok.Level(now) != 1 {
		t.Errorf("problems %q, verified %v, level %d", tok.Problems, tok.Verified, tok.Level(now))
	}
}

// A token checked without a key has its claims checked but stays at level 1.
func TestCheckWithoutKey(t *testing.T) {
	p := edptest.NewES256(t, "k")
	tok := Check(p.Sign(t, validClaims()), want, nil)
	if len(tok.Problems) > 0 || tok.Verified || tok.Level(now) != 1 {
		t.Fatalf("problems %q, verified %v, level %d; want none, false, 1", tok.Problems, tok.Verified, tok.Level(now))
	}
}

func TestJWKS(t *testing.T) {
	p, q, r := edptest.NewES256(t, "es-key"), edptest.NewEdDSA(t, "ed-key"), edptest.NewRS256(t, "rs-key")
	u, hits := edptest.ServeJWKS(t, p, q, r)
	keys := NewKeys()
	defer keys.Close()
	for _, signer := range []*edptest.Provider{p, q, r, p} {
		set, err := keys.JWKS(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		if tok := Check(signer.Sign(t, validClaims()), want, set); len(tok.Problems) > 0 || !tok.Verified {
			t.Fatalf("%s token with the served key set: problems %q, verified %v", signer.Alg, tok.Problems, tok.Verified)
		}
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the key set was fetched %d times, want once per run", n)
	}
	set, _ := keys.JWKS(context.Background(), u)
	stranger := edptest.NewES256(t, "unknown-key")
	if tok := Check(stranger.Sign(t, validClaims()), want, set); !slices.Equal(tok.Problems, []string{`the provider's key set has no key "unknown-key" (the token's kid)`}) {
		t.Errorf("problems %q for a kid the set lacks", tok.Problems)
	}
}

func TestJWKSRefused(t *testing.T) {
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"keys": [` + strings.Repeat(" ", MaxJWKSBytes) + `]}`))
	}))
	defer big.Close()
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}]}`))
	}))
	defer private.Close()
	for _, tc := range []struct{ url, want string }{
		{"http://keys.example.com/jwks.json", "http://keys.example.com/jwks.json: a JWKS is fetched over https (plain http only from localhost)"},
		{"ftp://keys.example.com/jwks.json", "ftp://keys.example.com/jwks.json: a JWKS is fetched over https (plain http only from localhost)"},
		{big.URL, big.URL + ": larger than 1 MiB"},
		{private.URL, private.URL + `: key "k" is a private key; a JWKS publishes public keys only`},
		{big.URL + "/missing", ""},
	} {
		keys := NewKeys()
		_, err := keys.JWKS(context.Background(), tc.url)
		keys.Close()
		if err == nil || tc.want != "" && err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.url, err, tc.want)
		}
	}
}

// A key set is fetched by the rules of every fetch: an https URL that
// redirects to plain http, even on this machine, or more than three times,
// is refused.
func TestJWKSRedirects(t *testing.T) {
	u, hits := edptest.ServeJWKS(t, edptest.NewES256(t, "k"))
	origin, path, _ := strings.Cut(strings.TrimPrefix(u, "http://"), "/")
	for _, tc := range []struct {
		hops int
		want string
	}{{1, "redirect from https to http refused (" + u + ")"}, {4, "more than 3 redirects (the last to " + u + ")"}} {
		from := tlstest.Redirector(t, "http://"+origin, tc.hops)("/" + path)
		keys := NewKeys()
		_, err := keys.JWKS(context.Background(), from)
		keys.Close()
		if err == nil || err.Error() != from+": "+tc.want {
			t.Errorf("%d redirects: error %v, want %q", tc.hops, err, tc.want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the plain http key set was fetched %d times", n)
	}
}

func TestParsePEM(t *testing.T) {
	k, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	der, _ := x509.MarshalPKIXPublicKey(k.Public())
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"P-384", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), "an ECDSA key on P-384; ES256 uses P-256"},
		{"private key block", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), `no "PUBLIC KEY" PEM block`},
		{"not PEM", []byte("ssh-ed25519 AAAA"), `no "PUBLIC KEY" PEM block`},
	} {
		if _, err := ParsePEM(tc.data); err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// The cost of checking one attestation with its key, per algorithm.
func BenchmarkCheck(b *testing.B) {
	for _, newProvider := range []func(testing.TB, string) *edptest.Provider{edptest.NewES256, edptest.NewEdDSA, edptest.NewRS256} {
		p := newProvider(b, "k")
		pub, err := ParsePEM(p.PEM(b))
		if err != nil {
			b.Fatal(err)
		}
		c := edptest.Valid(want.Provider, want.Domain, now, 365*24*time.Hour)
		c.EntityID = want.EntityID
		token := p.Sign(b, c)
		b.Run(p.Alg, func(b *testing.B) {
			for b.Loop() {
				if tok := Check(token, want, pub); !tok.Verified {
					b.Fatal(tok.Problems)
				}
			}
		})
	}
}
