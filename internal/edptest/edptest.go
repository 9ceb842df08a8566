// Package edptest gives tests EDP providers with fresh keys, made at test
// time, that sign real attestation JWTs (ES256, EdDSA or RS256). The tokens are
// encoded and signed here with the standard library alone, so that what
// checks them is not also what made them.
package edptest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Provider is an MCP provider's signing key.
type Provider struct {
	Alg    string // ES256, EdDSA or RS256
	KeyID  string
	signer crypto.Signer
}

// NewES256 returns a provider with a new P-256 key.
func NewES256(t testing.TB, kid string) *Provider {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &Provider{Alg: "ES256", KeyID: kid, signer: k}
}

// NewRS256 returns a provider with a new 2048-bit RSA key.
func NewRS256(t testing.TB, kid string) *Provider { return newRSA(t, kid, 2048) }

// NewWeakRS256 returns a provider with a new 1024-bit RSA key, which
// checks must refuse.
func NewWeakRS256(t testing.TB, kid string) *Provider { return newRSA(t, kid, 1024) }

func newRSA(t testing.TB, kid string, bits int) *Provider {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		t.Fatal(err)
	}
	return &Provider{Alg: "RS256", KeyID: kid, signer: k}
}

// NewEdDSA returns a provider with a new Ed25519 key.
func NewEdDSA(t testing.TB, kid string) *Provider {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &Provider{Alg: "EdDSA", KeyID: kid, signer: k}
}

// Claims are an attestation's claims (EDP 0.1.0 §4.5).
type Claims struct {
	Issuer       string   `json:"iss,omitempty"`
	Subject      string   `json:"sub,omitempty"`
	EntityID     string   `json:"entity_id,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
	IssuedAt     int64    `json:"iat,omitempty"`
	NotBefore    int64    `json:"nbf,omitempty"`
	Expiry       int64    `json:"exp,omitempty"`
}

// Valid returns claims for provider iss and domain sub, issued a day
// before now and expiring after lifetime.
func Valid(iss, sub string, now time.Time, lifetime time.Duration) Claims {
	return Claims{Issuer: iss, Subject: sub, IssuedAt: now.Add(-24 * time.Hour).Unix(), Expiry: now.Add(lifetime).Unix()}
}

// Sign returns the compact JWS of c.
func (p *Provider) Sign(t testing.TB, c Claims) string {
	t.Helper()
	return p.SignCritical(t, c, nil)
}

// SignCritical returns the compact JWS of c whose header marks the
// extensions crit critical (none when crit is nil).
func (p *Provider) SignCritical(t testing.TB, c Claims, crit []string) string {
	t.Helper()
	header := map[string]any{"alg": p.Alg, "typ": "JWT", "kid": p.KeyID}
	if crit != nil {
		header["crit"] = crit
		for _, name := range crit {
			header[name] = true
		}
	}
	signingInput := segment(t, header) + "." + segment(t, c)
	return signingInput + "." + base64.RawURLEncoding.EncodeToString(p.signature(t, signingInput))
}

func (p *Provider) signature(t testing.TB, signingInput string) []byte {
	switch k := p.signer.(type) {
	case ed25519.PrivateKey:
		return ed25519.Sign(k, []byte(signingInput))
	case *rsa.PrivateKey:
		digest := sha256.Sum256([]byte(signingInput))
		sig, err := rsa.SignPKCS1v15(nil, k, crypto.SHA256, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		return sig
	case *ecdsa.PrivateKey:
		digest := sha256.Sum256([]byte(signingInput))
		r, s, err := ecdsa.Sign(rand.Reader, k, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		// JWS ES256 is r and s, 32 bytes each (RFC 7518 §3.4), not ASN.1.
		return append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	}
	t.Fatalf("unknown key %T", p.signer)
	return nil
}

// Unsigned returns a token whose header says alg ("none", "HS256") and
// that has no signature.
func Unsigned(t testing.TB, alg string, c Claims) string {
	t.Helper()
	return segment(t, map[string]string{"alg": alg, "typ": "JWT"}) + "." + segment(t, c) + "."
}

// Tamper replaces the payload of a signed token with c, keeping its header
// and signature.
func Tamper(t testing.TB, token string, c Claims) string {
	t.Helper()
	parts := strings.Split(token, ".")
	return parts[0] + "." + segment(t, c) + "." + parts[2]
}

func segment(t testing.TB, v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(data)
}

// PEM is the provider's public key as a PKIX "PUBLIC KEY" PEM block.
func (p *Provider) PEM(t testing.TB) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(p.signer.Public())
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// JWKS is a key set holding the providers' public keys (RFC 7517).
func JWKS(providers ...*Provider) []byte {
	var keys []map[string]string
	b64 := base64.RawURLEncoding.EncodeToString
	for _, p := range providers {
		k := map[string]string{"kid": p.KeyID, "alg": p.Alg, "use": "sig"}
		switch pub := p.signer.Public().(type) {
		case ed25519.PublicKey:
			k["kty"], k["crv"], k["x"] = "OKP", "Ed25519", b64(pub)
		case *ecdsa.PublicKey:
			// The uncompressed point: 0x04, then X and Y of 32 bytes each;
			// a key this package generated always has one.
			point, err := pub.Bytes()
			if err != nil {
				panic(err)
			}
			k["kty"], k["crv"], k["x"], k["y"] = "EC", "P-256", b64(point[1:33]), b64(point[33:])
		case *rsa.PublicKey:
			k["kty"], k["n"], k["e"] = "RSA", b64(pub.N.Bytes()), b64(big.NewInt(int64(pub.E)).Bytes())
		}
		keys = append(keys, k)
	}
	data, _ := json.Marshal(map[string]any{"keys": keys})
	return data
}

// ServeJWKS serves the providers' key set on loopback at /jwks.json and
// returns its URL and a counter of the requests it answered.
func ServeJWKS(t testing.TB, providers ...*Provider) (string, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	body := JWKS(providers...)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/jwks.json" {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/jwks.json", &hits
}
