package documents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/attestation"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// AttestInput is what the attestations are read and checked with.
type AttestInput struct {
	Config *site.Config
	Getenv func(string) string // reads signature_env variables
	// Now is the time expiry is judged at: it decides errors and warnings,
	// never what is written.
	Now time.Time
	// Lenient (a preview, or a build that publishes nothing, such as
	// check) makes a token whose environment variable is unset a warning:
	// the entry is published without it, since a pull request from a fork
	// gets no secrets.
	Lenient bool
	// KeyFile is the signing key's file, which signature_file and
	// public_key_file may not be by any name.
	KeyFile inputfile.Secret
}

// Attested is what Attest found.
type Attested struct {
	// Attestations are the checked attestations of the entity card's MCP
	// entries, by site.toml key path ("entity.entities.0.mcps.1").
	Attestations map[string]attestation.Token
	// Verifications are what the card publishes of them, by the same key
	// path: site.toml's verification with the token, and issued_at and
	// expires_at from its iat and exp. An entry left out (see
	// AttestInput.Lenient) has none.
	Verifications map[string]*site.Verification
	Warnings      []*diag.Error
}

// attester checks the attestations of one build.
type attester struct {
	in   AttestInput
	keys *attestation.Keys
	out  *Attested
}

// Attest reads the provider's attestation of each MCP entry of the entity
// card that has one (from site.toml, a file or the environment), checks it
// with package attestation (with the provider's key when site.toml names
// one), and works out what the card publishes. A site without an entity
// card has none. It runs before Add, which publishes the Verifications.
func Attest(in AttestInput) (*Attested, error) {
	out := &Attested{}
	e := in.Config.Entity
	if e == nil {
		return out, nil
	}
	st := &attester{in: in, keys: attestation.NewKeys(), out: out}
	defer st.keys.Close()
	out.Attestations, out.Verifications = map[string]attestation.Token{}, map[string]*site.Verification{}
	var problems []error
	for _, ref := range e.AllMCPs() {
		vf := ref.MCP.Verification
		if vf == nil {
			continue
		}
		if in.Lenient && vf.SignatureEnv != "" && strings.TrimSpace(in.Getenv(vf.SignatureEnv)) == "" {
			out.Warnings = append(out.Warnings, in.Config.Errorf(ref.Key+".verification", "entity mcp %s: attestation: the environment variable %s (signature_env) is unset, so this build leaves the attestation out (registries would see level 1)", ref.MCP.Provider, vf.SignatureEnv).
				WithHint("set %s for a deploy", vf.SignatureEnv))
			continue
		}
		if err := st.attest(ref); err != nil {
			problems = append(problems, err)
		}
	}
	return out, errors.Join(problems...)
}

// attest reads and checks the attestation of one entity MCP entry, and
// works out the verification the card publishes.
func (st *attester) attest(ref site.EntityMCPRef) error {
	published := *ref.MCP.Verification
	m, vf, at := ref.MCP, &published, ref.Key+".verification"
	errorf := func(format string, args ...any) *diag.Error {
		return st.in.Config.Errorf(at, "entity mcp %s: attestation: %s", m.Provider, fmt.Sprintf(format, args...))
	}
	token, err := st.readToken(vf)
	if err != nil {
		return errorf("%v", err)
	}
	key, err := st.providerKey(vf)
	if err != nil {
		return errorf("%v", err)
	}
	t := attestation.Check(token, attestation.Expect{
		Provider: m.Provider, Domain: st.in.Config.Entity.Domain, EntityID: m.EntityID, Capabilities: m.Capabilities,
	}, key)
	var problems []error
	for _, p := range t.Problems {
		problems = append(problems, errorf("%s", p))
	}
	if len(problems) > 0 {
		problems[0].(*diag.Error).WithHint("ask %s for a token it signs for this entry: iss %q, sub %q, entity_id %q", m.Provider, m.Provider, st.in.Config.Entity.Domain, m.EntityID)
		return errors.Join(problems...)
	}
	if err := t.Agrees(vf.IssuedAt, vf.ExpiresAt); err != nil {
		return errorf("%v", err).WithHint("leave it unset: the build writes it from the token")
	}
	if early := t.Early(st.in.Now); early != "" {
		return errorf("%s", early).
			WithHint("check this machine's clock, and ask %s for a token issued now; a token dated in the future is not published", m.Provider)
	}
	day := t.ExpiresAt.Format(time.DateOnly)
	switch {
	case t.Expired(st.in.Now):
		return errorf("the token expired on %s", day).
			WithHint("ask %s for a new token; an expired attestation is not published, and registries see the entry at level 1", m.Provider)
	case t.Expiring(st.in.Now):
		st.out.Warnings = append(st.out.Warnings, errorf("the token expires on %s, in %d days", day, t.DaysLeft(st.in.Now)).
			WithHint("ask %s for a new one before then (registries then see the entry at level 1)", m.Provider))
	}
	if !t.Verified {
		st.out.Warnings = append(st.out.Warnings, errorf("the signature is not checked").
			WithHint("set public_key_file or jwks_url to the provider's key"))
	}
	vf.Method, vf.Signature, vf.ExpiresAt = attestation.Method, token, attestation.Date(t.ExpiresAt)
	if !t.IssuedAt.IsZero() {
		vf.IssuedAt = attestation.Date(t.IssuedAt)
	}
	st.out.Attestations[ref.Key], st.out.Verifications[ref.Key] = t, vf
	return nil
}

// readToken returns the JWT from where site.toml says it is.
func (st *attester) readToken(vf *site.Verification) (string, error) {
	switch {
	case vf.SignatureFile != "":
		data, err := st.in.KeyFile.ReadFile(st.in.Config.Root, st.in.Config.Path(vf.SignatureFile), attestation.MaxFile)
		if err != nil {
			return "", fmt.Errorf("cannot read signature_file %s: %v", vf.SignatureFile, diag.Cause(err))
		}
		return strings.TrimSpace(string(data)), nil
	case vf.SignatureEnv != "":
		token := strings.TrimSpace(st.in.Getenv(vf.SignatureEnv))
		if token == "" {
			return "", fmt.Errorf("the environment variable %s (signature_env) is empty or unset", vf.SignatureEnv)
		}
		return token, nil
	}
	return strings.TrimSpace(vf.Signature), nil
}

// providerKey returns the provider's key site.toml names, or nil for none.
func (st *attester) providerKey(vf *site.Verification) (any, error) {
	switch {
	case vf.PublicKeyFile != "":
		data, err := st.in.KeyFile.ReadFile(st.in.Config.Root, st.in.Config.Path(vf.PublicKeyFile), attestation.MaxFile)
		if err != nil {
			return nil, fmt.Errorf("cannot read public_key_file %s: %v", vf.PublicKeyFile, diag.Cause(err))
		}
		key, err := attestation.ParsePEM(data)
		if err != nil {
			return nil, fmt.Errorf("public_key_file %s: %v", vf.PublicKeyFile, err)
		}
		return key, nil
	case vf.JWKSURL != "":
		set, err := st.keys.JWKS(context.Background(), vf.JWKSURL)
		if err != nil {
			return nil, fmt.Errorf("jwks_url %v", err)
		}
		return set, nil
	}
	return nil, nil
}
