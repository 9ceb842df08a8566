package attestation

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/wellknown-dev/wellknown/internal/httpget"
)

// Bounds of a JWKS fetch: a key set is a few keys, a few KiB.
const (
	MaxJWKSBytes = 1 << 20
	JWKSTimeout  = 10 * time.Second
)

// CheckJWKSURL refuses a JWKS URL the HTTP client refuses (plain http but
// to this machine, as tests serve a provider's key): a key that decides
// what is trusted must not come over a connection anyone on the way can
// rewrite.
func CheckJWKSURL(s string) error { return httpget.CheckURLFor("a JWKS", s) }

// Keys fetches provider key sets, each URL once per run (a build, or a
// verify). It is not safe for concurrent use.
type Keys struct {
	client *httpget.Client
	sets   map[string]fetchedSet
}

type fetchedSet struct {
	set *jose.JSONWebKeySet
	err error
}

// NewKeys returns an empty cache with its own HTTP client.
func NewKeys() *Keys {
	return &Keys{
		client: httpget.New(JWKSTimeout, MaxJWKSBytes, CheckJWKSURL),
		sets:   map[string]fetchedSet{},
	}
}

// JWKS returns the key set at u, fetching it on first use.
func (k *Keys) JWKS(ctx context.Context, u string) (*jose.JSONWebKeySet, error) {
	if f, ok := k.sets[u]; ok {
		return f.set, f.err
	}
	set, err := k.fetch(ctx, u)
	k.sets[u] = fetchedSet{set, err}
	return set, err
}

func (k *Keys) fetch(ctx context.Context, u string) (*jose.JSONWebKeySet, error) {
	if err := CheckJWKSURL(u); err != nil {
		return nil, err // it names the URL
	}
	data, err := k.client.Get(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", u, err)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("%s: not a JWKS: %v", u, unwrapJOSE(err))
	}
	for _, key := range set.Keys {
		if !key.IsPublic() {
			return nil, fmt.Errorf("%s: key %q is a private key; a JWKS publishes public keys only", u, key.KeyID)
		}
	}
	return &set, nil
}

// Close releases the client's idle connections.
func (k *Keys) Close() { k.client.CloseIdleConnections() }

// ParsePEM reads a provider's public key from PEM ("PUBLIC KEY", PKIX): an
// ECDSA P-256 key (ES256), an Ed25519 key (EdDSA) or an RSA key (RS256).
func ParsePEM(data []byte) (any, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, errors.New(`no "PUBLIC KEY" PEM block`)
	}
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return nil, fmt.Errorf("an ECDSA key on %s; ES256 uses P-256", k.Curve.Params().Name)
		}
	case *rsa.PublicKey:
		if err := CheckKey(k); err != nil {
			return nil, err
		}
	case ed25519.PublicKey:
	default:
		return nil, fmt.Errorf("a %T; want an ECDSA P-256, Ed25519 or RSA key", key)
	}
	return key, nil
}
