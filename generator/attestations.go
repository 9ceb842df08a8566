package generator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/generator/attestation"
	"github.com/wellknown-dev/wellknown/generator/diag"
	"github.com/wellknown-dev/wellknown/generator/site"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// checkAttestations reads the provider's attestation of each MCP entry of
// the entity card that has one, checks it (with the provider's key when
// site.toml names one), and fills in what the card publishes: the token,
// and issued_at and expires_at from its iat and exp. now only decides
// errors and warnings, never what is written.
//
// When lenient (a preview, or a build that publishes nothing, such as
// check), a token whose environment variable is unset is a warning, and the
// entry is built without it: a pull request from a fork gets no secrets.
func (r *Result) checkAttestations(getenv func(string) string, now time.Time, lenient bool) error {
	e := r.Config.Entity
	if e == nil {
		return nil
	}
	keys := attestation.NewKeys()
	defer keys.Close()
	r.Attestations = map[string]attestation.Token{}
	var problems []error
	for _, ref := range e.AllMCPs() {
		vf := ref.MCP.Verification
		if vf == nil {
			continue
		}
		if lenient && vf.SignatureEnv != "" && strings.TrimSpace(getenv(vf.SignatureEnv)) == "" {
			r.Warnings = append(r.Warnings, r.Config.Errorf(ref.Key+".verification", "entity mcp %s: attestation: the environment variable %s (signature_env) is unset, so this build leaves the attestation out (registries would see level 1); a deploy needs it set", ref.MCP.Provider, vf.SignatureEnv).Error())
			ref.MCP.Verification = nil
			continue
		}
		if err := r.attest(ref, keys, getenv, now); err != nil {
			problems = append(problems, err)
		}
	}
	return errors.Join(problems...)
}

func (r *Result) attest(ref site.EntityMCPRef, keys *attestation.Keys, getenv func(string) string, now time.Time) error {
	m, vf, at := ref.MCP, ref.MCP.Verification, ref.Key+".verification"
	errorf := func(format string, args ...any) *diag.Error {
		return r.Config.Errorf(at, "entity mcp %s: attestation: %s", m.Provider, fmt.Sprintf(format, args...))
	}
	token, err := r.readToken(vf, getenv)
	if err != nil {
		return errorf("%v", err)
	}
	key, err := r.providerKey(vf, keys)
	if err != nil {
		return errorf("%v", err)
	}
	t := attestation.Check(token, attestation.Expect{
		Provider: m.Provider, Domain: r.Config.Entity.Domain, EntityID: m.EntityID, Capabilities: m.Capabilities,
	}, key)
	var problems []error
	for _, p := range t.Problems {
		problems = append(problems, errorf("%s", p))
	}
	if len(problems) > 0 {
		problems[0].(*diag.Error).WithHint("ask %s for a token it signs for this entry: iss %q, sub %q, entity_id %q", m.Provider, m.Provider, r.Config.Entity.Domain, m.EntityID)
		return errors.Join(problems...)
	}
	if err := t.Agrees(vf.IssuedAt, vf.ExpiresAt); err != nil {
		return errorf("%v", err).WithHint("leave it unset: the build writes it from the token")
	}
	day := t.ExpiresAt.Format(time.DateOnly)
	switch {
	case t.Expired(now):
		return errorf("the token expired on %s", day).
			WithHint("ask %s for a new token; an expired attestation is not published, and registries see the entry at level 1", m.Provider)
	case t.Expiring(now):
		r.Warnings = append(r.Warnings, errorf("the token expires on %s, in %d days; ask %s for a new one before then (registries then see the entry at level 1)", day, t.DaysLeft(now), m.Provider).Error())
	}
	if !t.Verified {
		r.Warnings = append(r.Warnings, errorf("the signature is not checked: set public_key_file or jwks_url to the provider's key").Error())
	}
	vf.Method, vf.Signature, vf.ExpiresAt = attestation.Method, token, attestation.Date(t.ExpiresAt)
	if !t.IssuedAt.IsZero() {
		vf.IssuedAt = attestation.Date(t.IssuedAt)
	}
	r.Attestations[ref.Key] = t
	return nil
}

// readToken returns the JWT from where site.toml says it is.
func (r *Result) readToken(vf *site.Verification, getenv func(string) string) (string, error) {
	switch {
	case vf.SignatureFile != "":
		data, err := inputfile.ReadFile(r.Config.Root, r.Config.Path(vf.SignatureFile), attestation.MaxFile)
		if err != nil {
			return "", fmt.Errorf("cannot read signature_file %s: %v", vf.SignatureFile, diag.Cause(err))
		}
		return strings.TrimSpace(string(data)), nil
	case vf.SignatureEnv != "":
		token := strings.TrimSpace(getenv(vf.SignatureEnv))
		if token == "" {
			return "", fmt.Errorf("the environment variable %s (signature_env) is empty or unset", vf.SignatureEnv)
		}
		return token, nil
	}
	return strings.TrimSpace(vf.Signature), nil
}

// providerKey returns the provider's key site.toml names, or nil for none.
func (r *Result) providerKey(vf *site.Verification, keys *attestation.Keys) (any, error) {
	switch {
	case vf.PublicKeyFile != "":
		data, err := inputfile.ReadFile(r.Config.Root, r.Config.Path(vf.PublicKeyFile), attestation.MaxFile)
		if err != nil {
			return nil, fmt.Errorf("cannot read public_key_file %s: %v", vf.PublicKeyFile, diag.Cause(err))
		}
		key, err := attestation.ParsePEM(data)
		if err != nil {
			return nil, fmt.Errorf("public_key_file %s: %v", vf.PublicKeyFile, err)
		}
		return key, nil
	case vf.JWKSURL != "":
		set, err := keys.JWKS(context.Background(), vf.JWKSURL)
		if err != nil {
			return nil, fmt.Errorf("jwks_url %v", err)
		}
		return set, nil
	}
	return nil, nil
}
