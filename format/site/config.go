// Package site reads a site definition (site.toml) into a Config.
//
// Decoding is strict: an unknown key is an error naming the key and its line.
// Every problem found while validating is reported as its own *Error with the
// file and, where the key can be found, the line, so a user can fix them all
// in one pass.
//
// Structs whose content ends up verbatim in a published document (a server's
// identity, an A2A agent, the EDP entity) carry both toml tags (snake_case, the
// site.toml spelling) and json tags (the published spelling). That keeps one
// definition per field and lets a problem found in a published document be
// traced back to the site.toml key it came from.
package site

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/format/paths"
)

// Config is a decoded and validated site definition.
type Config struct {
	BaseURL      string        `toml:"base_url"`
	Title        string        `toml:"title"`
	Description  string        `toml:"description"`
	Author       string        `toml:"author"`
	ContentDir   string        `toml:"content_dir"`
	TemplatesDir string        `toml:"templates_dir"`
	Signing      Signing       `toml:"signing"`
	Feed         Feed          `toml:"feed"`
	Servers      []Server      `toml:"servers"`
	Agents       []Agent       `toml:"agents"`
	Entity       *Entity       `toml:"entity"`
	Deprecations []Deprecation `toml:"deprecations"`
	Breaking     []Breaking    `toml:"breaking"`
	Deploy       Deploy        `toml:"deploy"`
	// HistoryFrom (a date, or a commit of the site's repository) starts every
	// server's history there instead of at its first tool file.
	HistoryFrom string `toml:"history_from"`

	// File is the path the config was read from; Dir is its directory, against
	// which every relative path in the config is resolved.
	File string `toml:"-"`
	Dir  string `toml:"-"`
	// Root is the top of the repository holding Dir (absolute, symlinks
	// resolved): no input file may lie outside it (see inputfile).
	Root string `toml:"-"`

	base  *url.URL
	lines *locator
	// What it was parsed from (see Fingerprint).
	src       string
	overrides []string
	// set maps each key path given a value with --set to that setting
	// ("base_url=…"), so problems with the value blame the flag, not a line.
	set map[string]string
}

// Signing says where the signing key comes from.
type Signing struct {
	KeyFile string `toml:"key_file"` // path to a key file; must not be tracked by git
	KeyEnv  string `toml:"key_env"`  // environment variable holding the key (a CI secret)
	KeyID   string `toml:"key_id"`   // fragment of the DID URL of the key, e.g. "key-1"
	// Previous keys stay listed in did.json during a rotation window, after the current one.
	Previous []PreviousKey `toml:"previous"`
}

// PreviousKey is a retired public key still listed for verification.
type PreviousKey struct {
	ID        string `toml:"id"`
	PublicKey string `toml:"public_key"` // multibase: u… (base64url) or z6Mk… (Multikey)
}

// Feed holds the change feed's settings.
type Feed struct {
	Status     string `toml:"status"`      // active | terminated | migrated
	MigratedTo string `toml:"migrated_to"` // the new feed URL when migrated
	// PageSize is how many entries the subscription document holds at most
	// before older ones move to archive documents; 0 means
	// DefaultFeedPageSize.
	PageSize int `toml:"page_size"`
}

// Server is one MCP server: the identity published in its Server Card, where
// its tool schema files are, and optionally a registry server.json to import
// identity fields from.
type Server struct {
	Identity
	Slug   string `toml:"slug"`   // path segment for its files; defaults to the part of the name after "/"
	Import string `toml:"import"` // registry server.json whose identity fields fill what site.toml leaves unset
	Tools  string `toml:"tools"`  // glob of tool files, relative to Repo (or the site when Repo is empty)
	Repo   string `toml:"repo"`   // another local git repository holding the tool files
	// Exclude globs leave files out of Tools (feature-flag variants, fixtures).
	Exclude []string `toml:"exclude"`
	// HistoryFrom (a date, or a commit of the tools' repository) starts the
	// server's history there; it overrides the site-wide history_from.
	HistoryFrom string `toml:"history_from"`
	// VersionTags is a pattern of git tags (v*) of the tools' repository
	// the server takes its versions from instead of Version: at each commit,
	// the newest matching tag at or before it, a leading v stripped.
	VersionTags string `toml:"version_tags"`

	// ImportedFields lists the identity fields (json names) taken from
	// Import; ImportData is that file's content, for the registry format check.
	ImportedFields []string `toml:"-"`
	ImportData     []byte   `toml:"-"`
}

// Identity is what a Server Card says about a server (the registry
// server.json's identity fields, plus _meta).
type Identity struct {
	Name        string         `toml:"name" json:"name"`
	Title       string         `toml:"title" json:"title,omitempty"`
	Description string         `toml:"description" json:"description"`
	Version     string         `toml:"version" json:"version"`
	WebsiteURL  string         `toml:"website_url" json:"websiteUrl,omitempty"`
	Repository  *Repository    `toml:"repository" json:"repository,omitempty"`
	Icons       []Icon         `toml:"icons" json:"icons,omitempty"`
	Remotes     []Remote       `toml:"remotes" json:"remotes,omitempty"`
	Meta        map[string]any `toml:"meta" json:"_meta,omitempty"`
}

// Repository is a server's source repository.
type Repository struct {
	URL       string `toml:"url" json:"url"`
	Source    string `toml:"source" json:"source"`
	ID        string `toml:"id" json:"id,omitempty"`
	Subfolder string `toml:"subfolder" json:"subfolder,omitempty"`
}

// Icon is a server icon.
type Icon struct {
	Src      string   `toml:"src" json:"src"`
	MimeType string   `toml:"mime_type" json:"mimeType,omitempty"`
	Sizes    []string `toml:"sizes" json:"sizes,omitempty"`
	Theme    string   `toml:"theme" json:"theme,omitempty"`
}

// Remote is a server's network endpoint.
type Remote struct {
	Type                      string           `toml:"type" json:"type"`
	URL                       string           `toml:"url" json:"url"`
	Headers                   []Header         `toml:"headers" json:"headers,omitempty"`
	Variables                 map[string]Input `toml:"variables" json:"variables,omitempty"`
	SupportedProtocolVersions []string         `toml:"supported_protocol_versions" json:"supportedProtocolVersions,omitempty"`
}

// Input is a user-supplied or pre-set value for a remote URL variable or header.
type Input struct {
	Description string   `toml:"description" json:"description,omitempty"`
	IsRequired  bool     `toml:"is_required" json:"isRequired,omitempty"`
	IsSecret    bool     `toml:"is_secret" json:"isSecret,omitempty"`
	Format      string   `toml:"format" json:"format,omitempty"`
	Default     string   `toml:"default" json:"default,omitempty"`
	Placeholder string   `toml:"placeholder" json:"placeholder,omitempty"`
	Value       string   `toml:"value" json:"value,omitempty"`
	Choices     []string `toml:"choices" json:"choices,omitempty"`
}

// Header is a header a client sends when connecting to a remote.
type Header struct {
	Name string `toml:"name" json:"name"`
	Input
	Variables map[string]Input `toml:"variables" json:"variables,omitempty"`
}

// Agent is an A2A agent, published as a v1.0 Agent Card.
type Agent struct {
	Slug                string           `toml:"slug" json:"-"`
	Name                string           `toml:"name" json:"name"`
	Description         string           `toml:"description" json:"description"`
	SupportedInterfaces []AgentInterface `toml:"supported_interfaces" json:"supportedInterfaces"`
	Provider            *AgentProvider   `toml:"provider" json:"provider,omitempty"`
	Version             string           `toml:"version" json:"version"`
	DocumentationURL    string           `toml:"documentation_url" json:"documentationUrl,omitempty"`
	IconURL             string           `toml:"icon_url" json:"iconUrl,omitempty"`
	Capabilities        AgentCapability  `toml:"capabilities" json:"capabilities"`
	DefaultInputModes   []string         `toml:"default_input_modes" json:"defaultInputModes"`
	DefaultOutputModes  []string         `toml:"default_output_modes" json:"defaultOutputModes"`
	Skills              []AgentSkill     `toml:"skills" json:"skills"`
}

// AgentInterface is one way to reach an agent.
type AgentInterface struct {
	URL             string `toml:"url" json:"url"`
	ProtocolBinding string `toml:"protocol_binding" json:"protocolBinding"`
	ProtocolVersion string `toml:"protocol_version" json:"protocolVersion"`
	Tenant          string `toml:"tenant" json:"tenant,omitempty"`
}

// AgentProvider is the organisation behind an agent.
type AgentProvider struct {
	Organization string `toml:"organization" json:"organization"`
	URL          string `toml:"url" json:"url"`
}

// AgentCapability lists the optional A2A features an agent supports.
type AgentCapability struct {
	Streaming         bool `toml:"streaming" json:"streaming,omitempty"`
	PushNotifications bool `toml:"push_notifications" json:"pushNotifications,omitempty"`
	ExtendedAgentCard bool `toml:"extended_agent_card" json:"extendedAgentCard,omitempty"`
}

// AgentSkill is one thing an agent can do.
type AgentSkill struct {
	ID          string   `toml:"id" json:"id"`
	Name        string   `toml:"name" json:"name"`
	Description string   `toml:"description" json:"description"`
	Tags        []string `toml:"tags" json:"tags"`
	Examples    []string `toml:"examples" json:"examples,omitempty"`
	InputModes  []string `toml:"input_modes" json:"inputModes,omitempty"`
	OutputModes []string `toml:"output_modes" json:"outputModes,omitempty"`
}

// Entity is the EDP entity card. Schema 0.1.0 lists MCPs at the top level;
// 0.2.0 groups them under Entities.
type Entity struct {
	SchemaVersion string       `toml:"schema_version" json:"schema_version"`
	Domain        string       `toml:"domain" json:"domain"`
	MCPs          []EntityMCP  `toml:"mcps" json:"mcps,omitempty"`
	Entities      []EntityItem `toml:"entities" json:"entities,omitempty"`
}

// EntityItem is one business (or location) in a 0.2.0 entity card.
type EntityItem struct {
	Name     string          `toml:"name" json:"name"`
	Path     string          `toml:"path" json:"path,omitempty"`
	Location *EntityLocation `toml:"location" json:"location,omitempty"`
	MCPs     []EntityMCP     `toml:"mcps" json:"mcps"`
}

// EntityLocation is where an entity is.
type EntityLocation struct {
	City        string       `toml:"city" json:"city,omitempty"`
	Country     string       `toml:"country" json:"country,omitempty"`
	Coordinates *Coordinates `toml:"coordinates" json:"coordinates,omitempty"`
}

// Coordinates are a latitude and longitude.
type Coordinates struct {
	Lat float64 `toml:"lat" json:"lat"`
	Lng float64 `toml:"lng" json:"lng"`
}

// EntityMCP is an MCP server acting for the entity. Server names a server of
// this site whose first remote supplies Endpoint when Endpoint is empty.
type EntityMCP struct {
	Server       string   `toml:"server" json:"-"`
	Provider     string   `toml:"provider" json:"provider"`
	Endpoint     string   `toml:"endpoint" json:"endpoint"`
	EntityID     string   `toml:"entity_id" json:"entity_id,omitempty"`
	Capabilities []string `toml:"capabilities" json:"capabilities,omitempty"`
	Priority     int      `toml:"priority" json:"priority,omitempty"`
	// Verification is the provider's attestation (EDP Level 2).
	Verification *Verification `toml:"verification" json:"verification,omitempty"`
}

// Verification is an MCP provider's signed attestation that it serves the
// entity: its JWT (inline, from a file, or from an environment variable)
// and, to check the signature, the provider's public key (a PEM file, or a
// JWKS URL fetched at build time). The build writes IssuedAt and ExpiresAt
// from the token's iat and exp; when set here, they must agree.
type Verification struct {
	Method        string `toml:"method" json:"method"`
	Signature     string `toml:"signature" json:"signature"`
	IssuedAt      string `toml:"issued_at" json:"issued_at,omitempty"`
	ExpiresAt     string `toml:"expires_at" json:"expires_at,omitempty"`
	SignatureFile string `toml:"signature_file" json:"-"`
	SignatureEnv  string `toml:"signature_env" json:"-"`
	PublicKeyFile string `toml:"public_key_file" json:"-"`
	JWKSURL       string `toml:"jwks_url" json:"-"`
}

// EntityMCPRef is an MCP entry of the entity card and where it is.
type EntityMCPRef struct {
	MCP      *EntityMCP
	Entity   int    // the index of its entity in Entities; -1 at the top level (0.1.0)
	Key      string // its site.toml key path: "entity.entities.0.mcps.1"
	JSONPath string // its path in the card: "entities[0].mcps[1]"
}

// AllMCPs returns every MCP entry of the card, in card order.
func (e *Entity) AllMCPs() []EntityMCPRef {
	var out []EntityMCPRef
	for i := range e.MCPs {
		out = append(out, EntityMCPRef{&e.MCPs[i], -1, fmt.Sprintf("entity.mcps.%d", i), fmt.Sprintf("mcps[%d]", i)})
	}
	for i := range e.Entities {
		for j := range e.Entities[i].MCPs {
			out = append(out, EntityMCPRef{&e.Entities[i].MCPs[j], i,
				fmt.Sprintf("entity.entities.%d.mcps.%d", i, j), fmt.Sprintf("entities[%d].mcps[%d]", i, j)})
		}
	}
	return out
}

// Clone returns a copy of the card whose MCP entries can be filled in (an
// endpoint, a verification) without changing e; what the entries point to
// is shared, to be replaced rather than changed.
func (e *Entity) Clone() *Entity {
	c := *e
	c.MCPs = slices.Clone(e.MCPs)
	c.Entities = slices.Clone(e.Entities)
	for i := range c.Entities {
		c.Entities[i].MCPs = slices.Clone(e.Entities[i].MCPs)
	}
	return &c
}

// Deprecation announces the sunset of an endpoint (a server name, or
// "<server name>#<tool name>" for a tool).
type Deprecation struct {
	Endpoint    string `toml:"endpoint"`
	AnnouncedAt string `toml:"announced_at"`
	Sunset      string `toml:"sunset"`
	Replacement string `toml:"replacement"`
	Reason      string `toml:"reason"`
}

// Breaking acknowledges a breaking change as intended, so that wellknown
// check lets it through: the endpoint (a server name, or "<server
// name>#<tool name>") and the version its change goes to, or Removed.
type Breaking struct {
	Endpoint string `toml:"endpoint"`
	To       string `toml:"to"`
	Reason   string `toml:"reason"`
}

// Removed is the Breaking.To of an endpoint's removal.
const Removed = "removed"

// Acknowledges reports whether b acknowledges the breaking change of the
// endpoint id to the version to, or its removal (to is Removed): the
// removal of a server acknowledges that of each of its tools.
func (b Breaking) Acknowledges(id, to string) bool {
	server, _, _ := strings.Cut(id, "#")
	return b.To == to && (b.Endpoint == id || to == Removed && b.Endpoint == server)
}

// Deploy holds the hosting settings.
type Deploy struct {
	Targets   []string   `toml:"targets"` // github-pages, netlify, cloudflare-pages
	CNAME     string     `toml:"cname"`
	Redirects []Redirect `toml:"redirects"`
}

// Redirect is one rule written to _redirects.
type Redirect struct {
	From   string `toml:"from"`
	To     string `toml:"to"`
	Status int    `toml:"status"`
}

// Host names accepted in deploy.targets.
const (
	HostGitHubPages     = "github-pages"
	HostNetlify         = "netlify"
	HostCloudflarePages = "cloudflare-pages"
)

// Feed statuses.
const (
	StatusActive     = "active"
	StatusTerminated = "terminated"
	StatusMigrated   = "migrated"
)

// Base returns the parsed base URL.
func (c *Config) Base() *url.URL { u := *c.base; return &u }

// Host returns the host (with port, if any) of the base URL, lower-cased.
func (c *Config) Host() string { return c.base.Host }

// URL returns the absolute URL of a bundle path ("/mcp/x/server-card.json"),
// under the base URL's path when it has one.
func (c *Config) URL(path string) string {
	return c.base.Scheme + "://" + c.base.Host + strings.TrimSuffix(c.base.Path, "/") + path
}

// Endpoint is a server's endpoint URL in the feed: its first remote, or its
// card on this site when it has no remote.
func (c *Config) Endpoint(s Server) string {
	if len(s.Remotes) > 0 {
		return s.Remotes[0].URL
	}
	return c.URL(paths.ServerCardOf(s.Slug))
}

// Targets reports whether host is among the deploy targets.
func (c *Config) Targets(host string) bool { return slices.Contains(c.Deploy.Targets, host) }
