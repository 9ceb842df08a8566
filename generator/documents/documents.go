// Package documents is the build's documents stage: it checks the
// provider's attestations of the EDP entity card (Attest), then builds every
// machine-readable document of the site (the Server Cards, the A2A Agent
// Cards, the EDP entity card, the DID document, mcp-servers, ai-cards and
// the AI Catalog), checks the bytes each would publish against its format,
// and adds them to the bundle.
package documents

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/wellknown-dev/wellknown/format/cards"
	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/prettyjson"
)

// Content types of the documents.
const (
	typeJSON    = "application/json"
	typeDIDJSON = "application/did+json"
)

// Input is what the documents are made of.
type Input struct {
	Config *site.Config
	Key    ed25519.PublicKey // the signing key, first in the DID document
	// Verifications are the entity card's attestations as published, by
	// the site.toml key path of their MCP entry (see Attested); an
	// entry without one is published without.
	Verifications map[string]*site.Verification
}

// Output is what the documents stage made besides the files it added.
type Output struct {
	// ReservedCards are, by server in site.toml order, the paths on the
	// site's own origin where clients probe for its card (see
	// reservedCardPaths), which the pages must leave free.
	ReservedCards [][]string
}

// stage adds the documents to a bundle.
type stage struct {
	in Input
	b  *bundle.Bundle
}

// Add builds, checks and adds every machine-readable document to b.
// Problems are collected across documents so one run reports them all.
func Add(b *bundle.Bundle, in Input) (*Output, error) {
	st := &stage{in: in, b: b}
	if err := st.addDocuments(); err != nil {
		return nil, err
	}
	out := &Output{ReservedCards: make([][]string, len(in.Config.Servers))}
	for i := range in.Config.Servers {
		// The reserved paths were checked when the cards were added.
		reserved, _ := st.reservedCardPaths(i)
		for _, rc := range reserved {
			out.ReservedCards[i] = append(out.ReservedCards[i], rc.Path)
		}
	}
	return out, nil
}

func (st *stage) addDocuments() error {
	catalog := cards.Catalog{
		SpecVersion: "1.0",
		Host: &cards.CatalogHost{
			DisplayName:      st.in.Config.Title,
			Identifier:       didweb.DID(st.in.Config.Base()),
			DocumentationURL: st.in.Config.URL("/"),
		},
		Entries: []cards.CatalogEntry{},
	}
	aiCards := cards.AICards{Schema: cards.AICardsSchema}
	var list cards.ServerList
	// The site-wide documents repeat the cards; they are built only when
	// every card is valid, so that one problem is reported once.
	if err := errors.Join(
		st.addServers(&catalog, &aiCards, &list),
		st.addAgents(&catalog, &aiCards),
		st.addEntity(),
		st.addDID(),
	); err != nil {
		return err
	}
	var problems []error
	if len(list.Servers) > 0 {
		problems = append(problems, st.addJSON(paths.ServerList, typeJSON, list, cards.CheckServerList, unlocated(paths.ServerList)))
	}
	if len(aiCards.Protocols) > 0 {
		problems = append(problems, st.addJSON(paths.AICards, typeJSON, aiCards, cards.CheckAICards, unlocated(paths.AICards)))
	}
	problems = append(problems, st.addJSON(paths.Catalog, cards.TypeAICatalog, catalog, cards.CheckAICatalog, unlocated(paths.Catalog)))
	return errors.Join(problems...)
}

func (st *stage) addServers(catalog *cards.Catalog, aiCards *cards.AICards, list *cards.ServerList) error {
	var problems []error
	for i := range st.in.Config.Servers {
		s := &st.in.Config.Servers[i]
		card := cards.NewServerCard(s.Identity)
		locate := func(p cards.Problem) error { return st.in.Config.ServerProblem(i, p.Path, p.Msg) }
		at := []string{paths.ServerCardOf(s.Slug)}
		reserved, err := st.reservedCardPaths(i)
		if err != nil {
			problems = append(problems, err)
		}
		for _, rc := range reserved {
			at = append(at, rc.Path)
		}
		if len(list.Servers) == 0 {
			at = append(at, paths.ServerCardAlias)
		}
		for _, p := range at {
			if err := st.addJSON(p, cards.TypeServerCard, card, cards.CheckServerCard, locate); err != nil {
				problems = append(problems, locateReserved(reserved, p, err))
				break
			}
		}
		list.Servers = append(list.Servers, card)
		// Clients probe the reserved location first; point the catalog there when there is one.
		cardURL := st.in.Config.URL(at[0])
		if len(reserved) > 0 {
			cardURL = st.in.Config.URL(reserved[0].Path)
		}
		catalog.Entries = append(catalog.Entries, cards.CatalogEntry{
			Identifier:  fmt.Sprintf("urn:air:%s:mcp:%s", st.in.Config.Base().Hostname(), s.Slug),
			DisplayName: displayName(s.Title, s.Name),
			Type:        cards.TypeServerCard,
			URL:         cardURL,
			Description: s.Description,
			Version:     s.Version,
		})
		if p, ok := mcpProtocol(s, st.in.Config.URL(at[0])); ok {
			aiCards.Protocols = append(aiCards.Protocols, p)
		}
	}
	return errors.Join(problems...)
}

// reservedCard is the reserved card location of a remote on the site's own
// origin: <remote path>/server-card as a bundle path, and the error that
// blames the remote's URL in site.toml for a problem with it.
type reservedCard struct {
	Path  string
	Blame func(format string, args ...any) *diag.Error
}

// reservedCardPaths returns the reserved card location of each of
// server i's streamable-http remotes on the site's own origin.
func (st *stage) reservedCardPaths(i int) ([]reservedCard, error) {
	cfg := st.in.Config
	s, base := &cfg.Servers[i], cfg.Base()
	var out []reservedCard
	for j, rem := range s.Remotes {
		u, err := url.Parse(rem.URL)
		if err != nil || rem.Type != "streamable-http" || strings.Contains(rem.URL, "{") ||
			u.Scheme != base.Scheme || !strings.EqualFold(u.Host, base.Host) {
			continue
		}
		key := fmt.Sprintf("servers.%d.remotes.%d.url", i, j)
		blame := func(format string, args ...any) *diag.Error {
			return cfg.Errorf(key, "server %s: remote %s: %s", s.Name, rem.URL, fmt.Sprintf(format, args...))
		}
		p := strings.TrimSuffix(u.Path, "/") + "/server-card"
		rel, ok := strings.CutPrefix(p, strings.TrimSuffix(base.Path, "/"))
		if !ok || !strings.HasPrefix(rel, "/") {
			return nil, blame("it is on the site's origin but outside base_url's path, so its card cannot be published at %s", p)
		}
		if err := bundle.CheckPath(rel); err != nil {
			return nil, blame("its card has no place on the site: %v", err).
				WithHint("write the URL without dot segments or double slashes")
		}
		out = append(out, reservedCard{Path: rel, Blame: blame})
	}
	return out, nil
}

// locateReserved blames the remote whose reserved card location is p for
// err (a collision with another output); other errors pass unchanged.
func locateReserved(reserved []reservedCard, p string, err error) error {
	for _, rc := range reserved {
		if rc.Path == p {
			return rc.Blame("its card cannot be published at %s: %v", p, err)
		}
	}
	return err
}

// mcpProtocol describes a server in the AI Card discovery document: its
// remotes that are plain http(s) URLs, and its card.
func mcpProtocol(s *site.Server, cardURL string) (cards.AICardProtocol, bool) {
	p := cards.AICardProtocol{Type: "mcp", Metadata: cards.AICardMetadata{Type: "mcp-server-card", URL: cardURL}}
	for _, rem := range s.Remotes {
		if strings.HasPrefix(rem.URL, "https://") || strings.HasPrefix(rem.URL, "http://") {
			p.Endpoints = append(p.Endpoints, cards.AICardEndpoint{URL: rem.URL})
		}
	}
	return p, len(p.Endpoints) > 0
}

func (st *stage) addAgents(catalog *cards.Catalog, aiCards *cards.AICards) error {
	var problems []error
	for i, a := range st.in.Config.Agents {
		locate := func(p cards.Problem) error { return st.in.Config.AgentProblem(i, p.Path, p.Msg) }
		at := []string{paths.AgentCardOf(a.Slug)}
		if i == 0 {
			at = append([]string{paths.AgentCard}, at...)
		}
		for _, p := range at {
			if err := st.addJSON(p, typeJSON, a, cards.CheckAgentCard, locate); err != nil {
				problems = append(problems, err)
				break
			}
		}
		cardURL := st.in.Config.URL(at[0])
		catalog.Entries = append(catalog.Entries, cards.CatalogEntry{
			Identifier:  fmt.Sprintf("urn:air:%s:a2a:%s", st.in.Config.Base().Hostname(), a.Slug),
			DisplayName: a.Name,
			Type:        cards.TypeAgentCard,
			URL:         cardURL,
			Description: a.Description,
			Version:     a.Version,
		})
		p := cards.AICardProtocol{Type: "a2a", Metadata: cards.AICardMetadata{Type: "agent-card", URL: cardURL}}
		for _, in := range a.SupportedInterfaces {
			p.Endpoints = append(p.Endpoints, cards.AICardEndpoint{URL: in.URL})
		}
		aiCards.Protocols = append(aiCards.Protocols, p)
	}
	return errors.Join(problems...)
}

// addEntity publishes the EDP entity card with its verifications. An MCP
// entry naming one of the site's servers takes its endpoint from that
// server's first remote.
func (st *stage) addEntity() error {
	if st.in.Config.Entity == nil {
		return nil
	}
	e := st.in.Config.Entity.Clone()
	var problems []error
	for _, ref := range e.AllMCPs() {
		ref.MCP.Verification = st.in.Verifications[ref.Key]
		if err := st.fillEndpoint(ref.MCP, ref.Key); err != nil {
			problems = append(problems, err)
		}
	}
	if len(problems) > 0 {
		return errors.Join(problems...)
	}
	check := func(data []byte) []cards.Problem { return cards.CheckEntityCard(data, st.in.Config.Base().Hostname()) }
	locate := func(p cards.Problem) error { return st.in.Config.EntityProblem(p.Path, p.Msg) }
	return st.addJSON(paths.EntityCard, typeJSON, e, check, locate)
}

func (st *stage) fillEndpoint(m *site.EntityMCP, at string) error {
	if m.Server == "" {
		return nil
	}
	for _, s := range st.in.Config.Servers {
		if s.Name != m.Server {
			continue
		}
		if m.Endpoint == "" && len(s.Remotes) > 0 {
			m.Endpoint = s.Remotes[0].URL
		}
		return nil
	}
	return st.in.Config.Errorf(at+".server", "entity mcp names server %q, which is not a server of this site", m.Server)
}

// addDID publishes the DID document with the signing key first and the
// retired keys after it.
func (st *stage) addDID() error {
	did := didweb.DID(st.in.Config.Base())
	keys := []didweb.PublicKey{{ID: st.in.Config.Signing.KeyID, Key: st.in.Key}}
	for _, p := range st.in.Config.Signing.Previous {
		pub, err := didweb.ParseMultibaseKey(p.PublicKey)
		if err != nil {
			return err // validated when site.toml was loaded
		}
		keys = append(keys, didweb.PublicKey{ID: p.ID, Key: pub})
	}
	check := func(data []byte) []cards.Problem {
		var out []cards.Problem
		for _, err := range didweb.Check(data, did) {
			out = append(out, cards.Problem{Msg: err.Error()})
		}
		return out
	}
	path := didweb.DocumentPath(st.in.Config.Base())
	return st.addJSON(path, typeDIDJSON, didweb.NewDocument(did, keys), check, unlocated(path))
}

// addJSON encodes v, checks the bytes that would be published, and adds them.
func (st *stage) addJSON(path, contentType string, v any, check func([]byte) []cards.Problem, locate func(cards.Problem) error) error {
	data, err := prettyjson.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := located(check(data), locate); err != nil {
		return err
	}
	return st.b.Add(path, data, contentType)
}

func displayName(title, name string) string {
	if title != "" {
		return title
	}
	return name
}

// located converts a document's problems to errors via locate.
func located(problems []cards.Problem, locate func(cards.Problem) error) error {
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = locate(p)
	}
	return errors.Join(errs...)
}

// unlocated names the document when a problem can't be traced to an input.
func unlocated(doc string) func(cards.Problem) error {
	return func(p cards.Problem) error { return fmt.Errorf("%s: %v (this is a bug in wellknown)", doc, p) }
}
