package generator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/cards"
	"github.com/wellknown-dev/wellknown/generator/diag"
	"github.com/wellknown-dev/wellknown/generator/didweb"
	"github.com/wellknown-dev/wellknown/generator/paths"
	"github.com/wellknown-dev/wellknown/generator/site"
)

// Content types of the documents.
const (
	typeJSON    = "application/json"
	typeDIDJSON = "application/did+json"
)

// addDocuments builds, checks and adds every machine-readable document.
// Problems are collected across documents so one run reports them all.
func (r *Result) addDocuments(servers []Server) error {
	catalog := cards.Catalog{
		SpecVersion: "1.0",
		Host: &cards.CatalogHost{
			DisplayName:      r.Config.Title,
			Identifier:       didweb.DID(r.Config.Base()),
			DocumentationURL: r.Config.URL("/"),
		},
		Entries: []cards.CatalogEntry{},
	}
	aiCards := cards.AICards{Schema: cards.AICardsSchema}
	var list cards.ServerList
	// The site-wide documents repeat the cards; they are built only when
	// every card is valid, so that one problem is reported once.
	if err := errors.Join(
		r.addServers(servers, &catalog, &aiCards, &list),
		r.addAgents(&catalog, &aiCards),
		r.addEntity(),
		r.addDID(),
	); err != nil {
		return err
	}
	var problems []error
	if len(list.Servers) > 0 {
		problems = append(problems, r.addJSON(paths.ServerList, typeJSON, list, cards.CheckServerList, unlocated(paths.ServerList)))
	}
	if len(aiCards.Protocols) > 0 {
		problems = append(problems, r.addJSON(paths.AICards, typeJSON, aiCards, cards.CheckAICards, unlocated(paths.AICards)))
	}
	problems = append(problems, r.addJSON(paths.Catalog, cards.TypeAICatalog, catalog, cards.CheckAICatalog, unlocated(paths.Catalog)))
	return errors.Join(problems...)
}

func (r *Result) addServers(servers []Server, catalog *cards.Catalog, aiCards *cards.AICards, list *cards.ServerList) error {
	var problems []error
	for _, s := range servers {
		card := cards.NewServerCard(s.Config.Identity)
		locate := func(p cards.Problem) error { return r.Config.ServerProblem(s.Index, p.Path, p.Msg) }
		at := []string{paths.ServerCardOf(s.Config.Slug)}
		reserved, err := r.reservedCardPaths(s)
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
			if err := r.addJSON(p, cards.TypeServerCard, card, cards.CheckServerCard, locate); err != nil {
				problems = append(problems, locateReserved(reserved, p, err))
				break
			}
		}
		list.Servers = append(list.Servers, card)
		// Clients probe the reserved location first; point the catalog there when there is one.
		cardURL := r.Config.URL(at[0])
		if len(reserved) > 0 {
			cardURL = r.Config.URL(reserved[0].Path)
		}
		catalog.Entries = append(catalog.Entries, cards.CatalogEntry{
			Identifier:  fmt.Sprintf("urn:air:%s:mcp:%s", r.Config.Base().Hostname(), s.Config.Slug),
			DisplayName: displayName(s.Config.Title, s.Config.Name),
			Type:        cards.TypeServerCard,
			URL:         cardURL,
			Description: s.Config.Description,
			Version:     s.Config.Version,
		})
		if p, ok := mcpProtocol(s.Config, r.Config.URL(at[0])); ok {
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

// reservedCardPaths returns the reserved card location of each
// streamable-http remote on the site's own origin.
func (r *Result) reservedCardPaths(s Server) ([]reservedCard, error) {
	base := r.Config.Base()
	var out []reservedCard
	for i, rem := range s.Config.Remotes {
		u, err := url.Parse(rem.URL)
		if err != nil || rem.Type != "streamable-http" || strings.Contains(rem.URL, "{") ||
			u.Scheme != base.Scheme || !strings.EqualFold(u.Host, base.Host) {
			continue
		}
		key := fmt.Sprintf("servers.%d.remotes.%d.url", s.Index, i)
		blame := func(format string, args ...any) *diag.Error {
			return r.Config.Errorf(key, "server %s: remote %s: %s", s.Config.Name, rem.URL, fmt.Sprintf(format, args...))
		}
		p := strings.TrimSuffix(u.Path, "/") + "/server-card"
		rel, ok := strings.CutPrefix(p, strings.TrimSuffix(base.Path, "/"))
		if !ok || !strings.HasPrefix(rel, "/") {
			return nil, blame("it is on the site's origin but outside base_url's path, so its card cannot be published at %s", p)
		}
		if bundle.CheckPath(rel) != nil {
			return nil, blame("its path has empty, '.' or '..' segments, so its card has no place on the site").
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

func (r *Result) addAgents(catalog *cards.Catalog, aiCards *cards.AICards) error {
	var problems []error
	for i, a := range r.Config.Agents {
		locate := func(p cards.Problem) error { return r.Config.AgentProblem(i, p.Path, p.Msg) }
		at := []string{paths.AgentCardOf(a.Slug)}
		if i == 0 {
			at = append([]string{paths.AgentCard}, at...)
		}
		for _, p := range at {
			if err := r.addJSON(p, typeJSON, a, cards.CheckAgentCard, locate); err != nil {
				problems = append(problems, err)
				break
			}
		}
		cardURL := r.Config.URL(at[0])
		catalog.Entries = append(catalog.Entries, cards.CatalogEntry{
			Identifier:  fmt.Sprintf("urn:air:%s:a2a:%s", r.Config.Base().Hostname(), a.Slug),
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

// addEntity publishes the EDP entity card. An MCP entry naming one of the
// site's servers takes its endpoint from that server's first remote.
func (r *Result) addEntity() error {
	e := r.Config.Entity
	if e == nil {
		return nil
	}
	var problems []error
	fill := func(mcps []site.EntityMCP, at string) {
		for i := range mcps {
			if err := r.fillEndpoint(&mcps[i], fmt.Sprintf("%s.%d", at, i)); err != nil {
				problems = append(problems, err)
			}
		}
	}
	fill(e.MCPs, "entity.mcps")
	for i := range e.Entities {
		fill(e.Entities[i].MCPs, fmt.Sprintf("entity.entities.%d.mcps", i))
	}
	if len(problems) > 0 {
		return errors.Join(problems...)
	}
	check := func(data []byte) []cards.Problem { return cards.CheckEntityCard(data, r.Config.Base().Hostname()) }
	locate := func(p cards.Problem) error { return r.Config.EntityProblem(p.Path, p.Msg) }
	return r.addJSON(paths.EntityCard, typeJSON, e, check, locate)
}

func (r *Result) fillEndpoint(m *site.EntityMCP, at string) error {
	if m.Server == "" {
		return nil
	}
	for _, s := range r.Config.Servers {
		if s.Name != m.Server {
			continue
		}
		if m.Endpoint == "" && len(s.Remotes) > 0 {
			m.Endpoint = s.Remotes[0].URL
		}
		return nil
	}
	return r.Config.Errorf(at+".server", "entity mcp names server %q, which is not a server of this site", m.Server)
}

// addDID publishes the DID document with the signing key first and the
// retired keys after it.
func (r *Result) addDID() error {
	did := didweb.DID(r.Config.Base())
	keys := []didweb.PublicKey{{ID: r.Config.Signing.KeyID, Key: r.Key.Public()}}
	for _, p := range r.Config.Signing.Previous {
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
	path := didweb.DocumentPath(r.Config.Base())
	return r.addJSON(path, typeDIDJSON, didweb.NewDocument(did, keys), check, unlocated(path))
}

// addJSON encodes v, checks the bytes that would be published, and adds them.
func (r *Result) addJSON(path, contentType string, v any, check func([]byte) []cards.Problem, locate func(cards.Problem) error) error {
	data, err := EncodeJSON(v)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := located(check(data), locate); err != nil {
		return err
	}
	return r.Bundle.Add(path, data, contentType)
}

// EncodeJSON is how every JSON document is written: two-space indentation,
// no HTML escaping, a final newline.
func EncodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func displayName(title, name string) string {
	if title != "" {
		return title
	}
	return name
}
