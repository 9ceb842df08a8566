// Package attestation checks EDP Level 2 attestations (EDP 0.1.0 §4.5): a
// JWT an MCP provider signs to say that it serves a business. A business
// publishes it in the verification of its entity card's MCP entry; a
// registry checks the signature with the provider's key, that iss is the
// provider, that sub is the card's domain, and that it has not expired.
//
// The build and verify make the same checks with this package, so a card the
// build accepts is one verify reports at level 2.
package attestation

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Method is the verification method of an attestation.
const Method = "signed_jwt"

// Algorithms are the signature algorithms accepted. "none" and the HMAC
// algorithms never are: an attestation anyone can forge attests nothing.
var Algorithms = []jose.SignatureAlgorithm{jose.ES256, jose.EdDSA, jose.RS256}

// ExpiryWarning is how long before its expiry an attestation is warned
// about: time enough to ask the provider for a new one.
const ExpiryWarning = 30 * 24 * time.Hour

// MaxFile caps a file holding a token or a PEM key: both are a few KB.
const MaxFile = 64 << 10

// Expect is the MCP entry a token must attest.
type Expect struct {
	Provider     string   // iss
	Domain       string   // sub: the entity card's domain
	EntityID     string   // entity_id; must be equal when either has one
	Capabilities []string // each must be among the token's, when it lists any
}

// Token is a checked attestation.
type Token struct {
	KeyID     string
	IssuedAt  time.Time // zero when the token has no iat
	ExpiresAt time.Time // zero when the token has no exp (a problem)
	// Verified: the signature was checked with the provider's key.
	Verified bool
	// Problems are messages for the user, each on its own line; expiry is
	// judged apart (see Expired) because it depends on the time.
	Problems []string
}

// claims are the claims of an attestation (EDP 0.1.0 §4.5, JWT Format).
type claims struct {
	jwt.Claims
	EntityID     string   `json:"entity_id"`
	Capabilities []string `json:"capabilities"`
}

// Check parses token and checks its claims against want and, when key is
// not nil (a public key, or a *jose.JSONWebKeySet looked up by the token's
// kid), its signature.
func Check(token string, want Expect, key any) Token {
	parsed, err := jwt.ParseSigned(strings.TrimSpace(token), Algorithms)
	if err != nil {
		return Token{Problems: []string{malformed(token, err)}}
	}
	var c claims
	if err := parsed.UnsafeClaimsWithoutVerification(&c); err != nil {
		return Token{Problems: []string{fmt.Sprintf("the token's claims are not a JSON object with numeric dates: %v", unwrapJOSE(err))}}
	}
	t := Token{KeyID: parsed.Headers[0].KeyID, Problems: c.disagreements(want)}
	if c.IssuedAt != nil {
		t.IssuedAt = c.IssuedAt.Time().UTC()
	}
	if c.Expiry == nil {
		t.Problems = append(t.Problems, "the token has no exp: an attestation must expire")
	} else {
		t.ExpiresAt = c.Expiry.Time().UTC()
	}
	if key != nil {
		if err := parsed.Claims(key); err != nil {
			t.Problems = append(t.Problems, signatureProblem(t.KeyID, err))
		} else {
			t.Verified = true
		}
	}
	return t
}

func (c claims) disagreements(want Expect) []string {
	var out []string
	if c.Issuer != want.Provider {
		out = append(out, fmt.Sprintf("the token's iss %q is not the entry's provider %q", c.Issuer, want.Provider))
	}
	if c.Subject != want.Domain {
		out = append(out, fmt.Sprintf("the token's sub %q is not the card's domain %q", c.Subject, want.Domain))
	}
	if c.EntityID != want.EntityID {
		out = append(out, fmt.Sprintf("the token's entity_id %q is not the entry's entity_id %q", c.EntityID, want.EntityID))
	}
	if len(c.Capabilities) > 0 {
		for _, capability := range want.Capabilities {
			if !slices.Contains(c.Capabilities, capability) {
				out = append(out, fmt.Sprintf("the entry's capability %q is not among the token's %q", capability, c.Capabilities))
			}
		}
	}
	return out
}

// malformed explains why a token did not parse: an algorithm not accepted,
// or not a compact JWS at all.
func malformed(token string, err error) string {
	header, _, _ := strings.Cut(strings.TrimSpace(token), ".")
	var h struct {
		Alg string `json:"alg"`
	}
	if raw, decErr := base64.RawURLEncoding.DecodeString(header); decErr == nil && json.Unmarshal(raw, &h) == nil && h.Alg != "" &&
		!slices.Contains(Algorithms, jose.SignatureAlgorithm(h.Alg)) {
		return fmt.Sprintf("the token's algorithm %q is not accepted (ES256, EdDSA or RS256)", h.Alg)
	}
	return fmt.Sprintf("not a signed JWT (header.payload.signature, base64url): %v", unwrapJOSE(err))
}

func signatureProblem(kid string, err error) string {
	if errors.Is(err, jose.ErrJWKSKidNotFound) {
		if kid == "" {
			return "the token has no kid to pick its key from the provider's key set"
		}
		return fmt.Sprintf("the provider's key set has no key %q (the token's kid)", kid)
	}
	return "the signature does not verify with the provider's key"
}

// unwrapJOSE strips the library's prefix from its messages.
func unwrapJOSE(err error) string {
	msg := err.Error()
	for _, prefix := range []string{"go-jose/go-jose/jwt: ", "go-jose/go-jose: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return msg
}

// Agrees checks the issued_at and expires_at an entry gives (RFC 3339;
// empty: not given) against the token's iat and exp.
func (t Token) Agrees(issuedAt, expiresAt string) error {
	for _, f := range []struct {
		key, value string
		token      time.Time
	}{{"issued_at", issuedAt, t.IssuedAt}, {"expires_at", expiresAt, t.ExpiresAt}} {
		if f.value == "" {
			continue
		}
		if given, err := time.Parse(time.RFC3339, f.value); err != nil || !given.Equal(f.token) {
			return fmt.Errorf("%s %s disagrees with the token's %s", f.key, f.value, Date(f.token))
		}
	}
	return nil
}

// Expired reports whether the attestation has expired at now.
func (t Token) Expired(now time.Time) bool { return !now.Before(t.ExpiresAt) }

// Expiring reports whether the attestation expires within ExpiryWarning of now.
func (t Token) Expiring(now time.Time) bool { return t.ExpiresAt.Sub(now) < ExpiryWarning }

// DaysLeft is the number of whole days from now to the expiry, negative
// once expired (whole days since, so a token that expired an hour ago has
// 0 days left, not -1).
func (t Token) DaysLeft(now time.Time) int {
	return int(t.ExpiresAt.Sub(now).Hours() / 24)
}

// Level is the EDP verification level a reader of the card can see at now
// for an entry with this attestation (EDP 0.1.0 §4): 2 when it was checked
// with the provider's key, has no problem and has not expired, else 1 (the
// business's claim alone). Level 0, a provider's registration alone, has no
// card.
func (t Token) Level(now time.Time) int {
	if t.Verified && len(t.Problems) == 0 && !t.Expired(now) {
		return 2
	}
	return 1
}

// Date formats a time as the card writes it (RFC 3339, UTC).
func Date(t time.Time) string { return t.UTC().Format(time.RFC3339) }
