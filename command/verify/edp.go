package verify

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/attestation"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// EDPEntry is the EDP verification level a registry sees for one MCP entry
// of the entity card (EDP 0.1.0 §4): 1 for the business's claim alone, 2
// with a provider's attestation that passes every check with the
// provider's key (Options.ProviderKeys).
type EDPEntry struct {
	Entry     string `json:"entry"` // its path in the card: "entities[0].mcps[1]"
	Provider  string `json:"provider"`
	Level     int    `json:"level"`
	ExpiresAt string `json:"expires_at,omitempty"` // the attestation's, when it has one
	DaysLeft  *int   `json:"days_left,omitempty"`  // whole days to ExpiresAt; negative once expired
}

// String is the entry's line in the report.
func (e EDPEntry) String() string {
	s := fmt.Sprintf("EDP %s (%s): level %d", e.Entry, e.Provider, e.Level)
	if e.DaysLeft != nil {
		s += fmt.Sprintf(", attestation expires %s (%d days left)", e.ExpiresAt[:len(time.DateOnly)], *e.DaysLeft)
	}
	return s
}

// checkAttestations reports the level of each MCP entry of the entity card,
// and checks the attestations it carries as a registry would.
func (c *checker) checkAttestations(data []byte) {
	var card site.Entity
	if json.Unmarshal(data, &card) != nil {
		return // reported by the card's format check
	}
	doc := c.where(c.at(paths.EntityCard))
	for _, ref := range card.AllMCPs() {
		m := ref.MCP
		entry := EDPEntry{Entry: ref.JSONPath, Provider: m.Provider, Level: 1}
		if m.Verification != nil && m.Verification.Signature != "" {
			entry.Level, entry.ExpiresAt, entry.DaysLeft = c.checkAttestation(doc, ref, card.Domain)
		}
		c.rep.EDP = append(c.rep.EDP, entry)
	}
}

func (c *checker) checkAttestation(doc string, ref site.EntityMCPRef, domain string) (level int, expires string, daysLeft *int) {
	m := ref.MCP
	problem := func(sev Severity, code, format string, args ...any) {
		msg := fmt.Sprintf("%s (%s): attestation: %s", ref.JSONPath, m.Provider, fmt.Sprintf(format, args...))
		c.add(Finding{Severity: sev, Code: code, Document: doc, Message: msg})
	}
	key, err := c.providerKey(m.Provider)
	if err != nil {
		problem(SeverityError, codeEDPKey, "%v", err)
	}
	t := attestation.Check(m.Verification.Signature, attestation.Expect{
		Provider: m.Provider, Domain: domain, EntityID: m.EntityID, Capabilities: m.Capabilities,
	}, key)
	for _, p := range t.Problems {
		problem(SeverityError, codeEDPAttestation, "%s", p)
	}
	level = t.Level(c.now)
	if err := t.Agrees(m.Verification.IssuedAt, m.Verification.ExpiresAt); err != nil && len(t.Problems) == 0 {
		problem(SeverityError, codeEDPAttestation, "%v", err)
		level = 1 // dates the token does not sign attest nothing
	}
	if t.ExpiresAt.IsZero() {
		return level, "", nil
	}
	days := t.DaysLeft(c.now)
	day := t.ExpiresAt.Format(time.DateOnly)
	switch {
	case t.Early(c.now) != "":
		problem(SeverityError, codeEDPAttestation, "%s; registries see the entry at level 1", t.Early(c.now))
	case t.Expired(c.now):
		problem(SeverityError, codeEDPExpired, "expired on %s; registries see the entry at level 1", day)
	case t.Expiring(c.now):
		problem(SeverityWarning, codeEDPExpiring, "expires on %s, in %d days", day, days)
	}
	if key == nil && err == nil {
		c.add(Finding{Severity: SeverityWarning, Code: codeEDPKey, Document: doc,
			Message: fmt.Sprintf("%s (%s): attestation: the signature is not checked: no key for provider %s", ref.JSONPath, m.Provider, m.Provider),
			Hint:    fmt.Sprintf("pass --provider-key %s=FILE.pem or %s=https://…/jwks.json", m.Provider, m.Provider)})
	}
	return level, attestation.Date(t.ExpiresAt), &days
}

// providerKey returns the key Options.ProviderKeys gives for a provider: a
// JWKS URL, or a PEM file; nil when it gives none.
func (c *checker) providerKey(provider string) (any, error) {
	src, ok := c.opt.ProviderKeys[provider]
	switch {
	case !ok:
		return nil, nil
	case strings.Contains(src, "://"):
		set, err := c.attestationKeys.JWKS(c.ctx, src)
		if err != nil {
			return nil, fmt.Errorf("the provider's key set: %v", err)
		}
		return set, nil
	}
	data, err := inputfile.ReadFile("", src, attestation.MaxFile)
	if err != nil {
		return nil, fmt.Errorf("the provider's key: %v", err)
	}
	key, err := attestation.ParsePEM(data)
	if err != nil {
		return nil, fmt.Errorf("the provider's key %s: %v", src, err)
	}
	return key, nil
}

// parseProviderKeys checks Options.ProviderKeys: a JWKS URL must be https
// (http only for this machine).
func parseProviderKeys(keys map[string]string) error {
	for _, provider := range slices.Sorted(maps.Keys(keys)) {
		src := keys[provider]
		if !strings.Contains(src, "://") {
			continue
		}
		if err := attestation.CheckJWKSURL(src); err != nil {
			return fmt.Errorf("--provider-key %s: %v", provider, err)
		}
	}
	return nil
}
