package cards

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
)

// Media types of the documents an AI Catalog points to.
const (
	TypeAICatalog  = "application/ai-catalog+json"
	TypeServerCard = "application/mcp-server-card+json"
	TypeAgentCard  = "application/a2a-agent-card+json"
)

// AICardsSchema is the $schema of the AI Card discovery document.
const AICardsSchema = "https://ai-card.org/schemas/ai-card-v0.schema.json"

// Catalog is the AI Catalog (/.well-known/ai-catalog.json).
type Catalog struct {
	SpecVersion string         `json:"specVersion"`
	Host        *CatalogHost   `json:"host,omitempty"`
	Entries     []CatalogEntry `json:"entries"`
}

// CatalogHost describes who publishes the catalog.
type CatalogHost struct {
	DisplayName      string `json:"displayName"`
	Identifier       string `json:"identifier,omitempty"`
	DocumentationURL string `json:"documentationUrl,omitempty"`
}

// CatalogEntry points to one card.
type CatalogEntry struct {
	Identifier  string `json:"identifier"`
	DisplayName string `json:"displayName,omitempty"`
	Type        string `json:"type"`
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
}

// AICards is the AI Card discovery document (/.well-known/ai-cards.json).
type AICards struct {
	Schema    string           `json:"$schema"`
	Protocols []AICardProtocol `json:"protocols"`
}

// AICardProtocol is one MCP server or A2A agent in AICards.
type AICardProtocol struct {
	Type      string           `json:"type"`
	Endpoints []AICardEndpoint `json:"endpoints"`
	Metadata  AICardMetadata   `json:"metadata"`
}

// AICardEndpoint is where a protocol is served.
type AICardEndpoint struct {
	URL string `json:"url"`
}

// AICardMetadata points to the protocol's own card.
type AICardMetadata struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// ServerList is /.well-known/mcp-servers.json, the listing the agent-feed
// SEP pairs with the feed.
type ServerList struct {
	Servers []ServerCard `json:"servers"`
}

var (
	specVersionPattern = regexp.MustCompile(`^\d+\.\d+$`)
	uriPattern         = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$`)
	mediaTypePattern   = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*/[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]*$`)
	namespacedKey      = regexp.MustCompile(`^([a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)+(/\S*)?|https?://\S+)$`)
	aiCardURLPattern   = regexp.MustCompile(`^(https?://|/|\./)`)
)

// CheckAICatalog checks an AI Catalog document. The format has no published
// schema; these are the specification's rules.
func CheckAICatalog(data []byte) []Problem {
	m, d := decode(data)
	if m == nil {
		return d.problems
	}
	d.matches(m, "", "specVersion", true, specVersionPattern, `"Major.Minor" (e.g. "1.0")`)
	if h := d.object(m, "", "host", false); h != nil {
		d.str(h, "host", "displayName", true, 1, 0)
		d.matches(h, "host", "identifier", false, uriPattern, "a URI")
		d.url(h, "host", "documentationUrl", false, "https", "http")
		d.url(h, "host", "logoUrl", false, "https", "http")
	}
	for _, key := range []string{"metadata", "extensions"} {
		d.namespacedKeys(m, "", key)
	}
	entries, paths := d.objects(m, "", "entries", true, 0)
	versions := map[string][]string{} // identifier → versions seen ("" for none)
	for i, e := range entries {
		id := d.catalogEntry(e, paths[i])
		v, _ := e["version"].(string)
		if id != "" {
			d.uniqueEntry(paths[i], id, v, versions[id])
			versions[id] = append(versions[id], v)
		}
	}
	return d.problems
}

func (d *doc) catalogEntry(e map[string]any, path string) string {
	id := d.matches(e, path, "identifier", true, uriPattern, "a URI (e.g. urn:air:example.com:mcp:weather)")
	// "type" was "mediaType" in the April 2026 text; either names the media type.
	typeKey := "type"
	if _, old := e["mediaType"]; old {
		if _, current := e["type"]; !current {
			typeKey = "mediaType"
		}
	}
	d.matches(e, path, typeKey, true, mediaTypePattern, "a media type")
	d.str(e, path, "displayName", false, 1, 0)
	d.str(e, path, "description", false, 0, 0)
	d.str(e, path, "version", false, 1, 0)
	d.strings(e, path, "tags", false, 0)
	_, hasURL := e["url"]
	_, hasData := e["data"]
	switch {
	case hasURL && hasData:
		d.addf(path, "has both url and data; an entry has exactly one")
	case !hasURL && !hasData:
		d.addf(path, "has neither url nor data; an entry has exactly one")
	case hasURL:
		d.url(e, path, "url", true, "https", "http")
	}
	d.time(e, path, "updatedAt")
	if tm := d.object(e, path, "trustManifest", false); tm != nil {
		ident, _ := tm["identity"].(string)
		subject, _ := tm["subject"].(map[string]any)
		if subjectID, _ := subject["identifier"].(string); ident != id && subjectID != id {
			d.addf(at(path, "trustManifest"), "is not bound to this entry: neither identity nor subject.identifier is %q", id)
		}
	}
	d.namespacedKeys(e, path, "metadata")
	return id
}

// uniqueEntry enforces that identifiers are unique, or unique per version
// with every entry of that identifier versioned.
func (d *doc) uniqueEntry(path, id, version string, seen []string) {
	for _, s := range seen {
		if s == version || s == "" || version == "" {
			d.addf(at(path, "identifier"), "%q repeats an earlier entry; identifiers are unique (or unique per version, all versioned)", id)
			return
		}
	}
}

func (d *doc) namespacedKeys(m map[string]any, path, key string) {
	o := d.object(m, path, key, false)
	for _, k := range slices.Sorted(maps.Keys(o)) {
		if !namespacedKey.MatchString(k) {
			d.addf(at(at(path, key), fmt.Sprintf("%q", k)), "keys here are reverse-DNS namespaced (e.g. com.example.feature) or URLs")
		}
	}
}

// CheckAICards checks an AI Card discovery document (ai-card-v0: every
// object closed, URLs absolute, /… or ./…).
func CheckAICards(data []byte) []Problem {
	m, d := decode(data)
	if m == nil {
		return d.problems
	}
	d.closed(m, "", "$schema", "protocols")
	d.url(m, "", "$schema", false, "https", "http")
	protocols, paths := d.objects(m, "", "protocols", true, 1)
	for i, p := range protocols {
		path := paths[i]
		d.closed(p, path, "type", "endpoints", "metadata")
		d.oneOf(p, path, "type", true, "mcp", "a2a")
		endpoints, epaths := d.objects(p, path, "endpoints", true, 1)
		for j, e := range endpoints {
			d.closed(e, epaths[j], "url")
			d.matches(e, epaths[j], "url", true, aiCardURLPattern, "absolute, /… or ./…")
		}
		if md := d.object(p, path, "metadata", true); md != nil {
			mpath := at(path, "metadata")
			d.closed(md, mpath, "type", "url")
			d.oneOf(md, mpath, "type", true, "mcp-server-card", "agent-card")
			d.matches(md, mpath, "url", true, aiCardURLPattern, "absolute, /… or ./…")
		}
	}
	return d.problems
}

// CheckServerList checks mcp-servers.json: a list of valid Server Cards.
func CheckServerList(data []byte) []Problem {
	m, d := decode(data)
	if m == nil {
		return d.problems
	}
	servers, paths := d.objects(m, "", "servers", true, 0)
	for i, s := range servers {
		d.serverCard(s, paths[i])
	}
	return d.problems
}
