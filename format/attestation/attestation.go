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
	"crypto/rsa"
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

// ClockSkew is how far in the future an attestation's iat and nbf may be:
// the provider's clock and the checking machine's differ by seconds or
// minutes, not more.
const ClockSkew = 5 * time.Minute

// MinRSABits is the smallest RSA provider key accepted: a shorter modulus
// is within reach of factoring, and NIST deprecated it long ago.
const MinRSABits = 2048

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
	NotBefore time.Time // zero when the token has no nbf
	ExpiresAt time.Time // zero when the token has no exp (a problem)
	// Verified: the signature was checked with the provider's key.
	Verified bool
	// Problems are messages for the user, each on its own line; expiry and
	// a start in the future are judged apart (see Expired and Early)
	// because they depend on the time.
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
	token = strings.TrimSpace(token)
	parsed, err := jwt.ParseSigned(token, Algorithms)
	if err != nil {
		return Token{Problems: []string{malformed(token, err)}}
	}
	var c claims
	if err := parsed.UnsafeClaimsWithoutVerification(&c); err != nil {
		return Token{Problems: []string{fmt.Sprintf("the token's claims are not a JSON object with numeric dates: %v", unwrapJOSE(err))}}
	}
	t := Token{KeyID: parsed.Headers[0].KeyID, Problems: c.disagreements(want)}
	t.setDates(c)
	if crit := headerOf(token).Crit; crit != nil {
		// The library would refuse it too, but as a signature that does not
		// verify, which sends the user after the wrong key.
		t.Problems = append(t.Problems, fmt.Sprintf("the token's header marks %s critical (crit): extensions this check does not understand, so the token is refused", crit))
		return t
	}
	if key != nil {
		if err := parsed.Claims(key); err != nil {
			t.Problems = append(t.Problems, signatureProblem(t.KeyID, err))
		} else if err := CheckKey(signingKey(key, t.KeyID)); err != nil {
			t.Problems = append(t.Problems, fmt.Sprintf("the provider's key: %v", err))
		} else {
			t.Verified = true
		}
	}
	return t
}

// setDates takes the token's dates, and reports an exp missing or earlier
// than iat or nbf: a token cannot end before it begins.
func (t *Token) setDates(c claims) {
	if c.IssuedAt != nil {
		t.IssuedAt = c.IssuedAt.Time().UTC()
	}
	if c.NotBefore != nil {
		t.NotBefore = c.NotBefore.Time().UTC()
	}
	if c.Expiry == nil {
		t.Problems = append(t.Problems, "the token has no exp: an attestation must expire")
		return
	}
	t.ExpiresAt = c.Expiry.Time().UTC()
	for _, d := range t.starts() {
		if d.at.After(t.ExpiresAt) {
			t.Problems = append(t.Problems, fmt.Sprintf("the token's %s %s is after its exp %s", d.claim, Date(d.at), Date(t.ExpiresAt)))
		}
	}
}

// dated is one of a token's dates, with the claim that gives it.
type dated struct {
	claim string
	at    time.Time
}

// starts are the dates a token says it begins at: iat and nbf (zero when
// the token has none).
func (t Token) starts() []dated { return []dated{{"iat", t.IssuedAt}, {"nbf", t.NotBefore}} }

// signingKey is the key a token with kid was checked with: key itself, or
// the one a key set gives for kid.
func signingKey(key any, kid string) any {
	if set, ok := key.(*jose.JSONWebKeySet); ok {
		if keys := set.Key(kid); len(keys) > 0 {
			return keys[0].Key
		}
	}
	return key
}

// CheckKey refuses a provider key too weak to attest anything: an RSA key
// under MinRSABits.
func CheckKey(key any) error {
	if k, ok := key.(*rsa.PublicKey); ok && k.N.BitLen() < MinRSABits {
		return fmt.Errorf("an RSA key of %d bits; at least %d are required", k.N.BitLen(), MinRSABits)
	}
	return nil
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

// header is what the checks read from a token's protected header before
// the library does.
type header struct {
	Alg  string          `json:"alg"`
	Crit json.RawMessage `json:"crit"`
}

// headerOf decodes the protected header of a compact token; the zero
// header when it is not one.
func headerOf(token string) header {
	var h header
	segment, _, _ := strings.Cut(token, ".")
	if raw, err := base64.RawURLEncoding.DecodeString(segment); err == nil {
		json.Unmarshal(raw, &h) // a header that is not JSON fails to parse elsewhere
	}
	return h
}

// malformed explains why a token did not parse: an algorithm not accepted,
// or not a compact JWS at all.
func malformed(token string, err error) string {
	if alg := headerOf(token).Alg; alg != "" && !slices.Contains(Algorithms, jose.SignatureAlgorithm(alg)) {
		return fmt.Sprintf("the token's algorithm %q is not accepted (ES256, EdDSA or RS256)", alg)
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

// Early returns why the attestation is not valid yet at now: its iat or nbf
// is later than now by more than ClockSkew. It is "" for a token valid
// now. A token dated in the future is either a mistake or made to outlive
// a revocation, and an issued_at after now would be published as a fact.
func (t Token) Early(now time.Time) string {
	for _, d := range t.starts() {
		if d.at.After(now.Add(ClockSkew)) {
			return fmt.Sprintf("the token's %s %s is in the future (more than %v from now, %s)", d.claim, Date(d.at), ClockSkew, Date(now))
		}
	}
	return ""
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
// with the provider's key, has no problem, has begun and has not
// expired, else 1 (the
// business's claim alone). Level 0, a provider's registration alone, has no
// card.
func (t Token) Level(now time.Time) int {
	if t.Verified && len(t.Problems) == 0 && !t.Expired(now) && t.Early(now) == "" {
		return 2
	}
	return 1
}

// Date formats a time as the card writes it (RFC 3339, UTC).
func Date(t time.Time) string { return t.UTC().Format(time.RFC3339) }
