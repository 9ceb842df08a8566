package cards

import (
	"maps"
	"regexp"
	"slices"

	"github.com/wellknown-dev/wellknown/format/site"
)

// ServerCardSchema is the exact $schema a Server Card must carry.
const ServerCardSchema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

// ServerCard is an MCP Server Card (SEP-2127): a server's identity and remotes.
type ServerCard struct {
	Schema string `json:"$schema"`
	site.Identity
}

// NewServerCard returns the card for a server's identity.
func NewServerCard(id site.Identity) ServerCard {
	return ServerCard{Schema: ServerCardSchema, Identity: id}
}

var (
	serverNamePattern  = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	remoteURLPattern   = regexp.MustCompile(`^(https?://[^\s]+|\{[a-zA-Z_][a-zA-Z0-9_]*\}[^\s]*)$`)
	iconSizePattern    = regexp.MustCompile(`^(\d+x\d+|any)$`)
	protocolVersion    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	metaKeyPattern     = regexp.MustCompile(`^([a-zA-Z]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*/)?([a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?)?$`)
	serverCardSchemaRe = regexp.MustCompile(`^` + regexp.QuoteMeta(ServerCardSchema) + `$`)
)

// CheckServerCard checks a Server Card document against the format's rules.
func CheckServerCard(data []byte) []Problem {
	m, d := decode(data)
	if m == nil {
		return d.problems
	}
	d.serverCard(m, "")
	return d.problems
}

func (d *doc) serverCard(m map[string]any, path string) {
	d.matches(m, path, "$schema", true, serverCardSchemaRe, "exactly "+ServerCardSchema)
	d.identity(m, path)
}

// CheckRegistryServer checks a registry server.json (2025-12-11 format),
// which a server may import its identity from.
func CheckRegistryServer(data []byte) []Problem {
	m, d := decode(data)
	if m == nil {
		return d.problems
	}
	d.url(m, "", "$schema", false, "https", "http")
	d.identity(m, "")
	packages, paths := d.objects(m, "", "packages", false, 0)
	for i, p := range packages {
		d.registryPackage(p, paths[i])
	}
	return d.problems
}

// identity checks the fields a Server Card shares with server.json.
func (d *doc) identity(m map[string]any, path string) {
	if d.matches(m, path, "name", true, serverNamePattern, "a reverse-DNS namespace, one '/', and a name (e.g. com.example/weather)") != "" {
		d.str(m, path, "name", false, 3, 200)
	}
	d.str(m, path, "version", true, 1, 255)
	d.str(m, path, "description", true, 1, 100)
	d.str(m, path, "title", false, 1, 100)
	d.url(m, path, "websiteUrl", false, "https", "http")
	if r := d.object(m, path, "repository", false); r != nil {
		d.url(r, at(path, "repository"), "url", true, "https", "http")
		d.str(r, at(path, "repository"), "source", true, 1, 0)
		d.str(r, at(path, "repository"), "id", false, 0, 0)
		d.str(r, at(path, "repository"), "subfolder", false, 0, 0)
	}
	icons, paths := d.objects(m, path, "icons", false, 0)
	for i, icon := range icons {
		d.icon(icon, paths[i])
	}
	remotes, paths := d.objects(m, path, "remotes", false, 0)
	for i, r := range remotes {
		d.remote(r, paths[i])
	}
	if meta := d.object(m, path, "_meta", false); meta != nil {
		for _, k := range slices.Sorted(maps.Keys(meta)) {
			if !metaKeyPattern.MatchString(k) {
				d.addf(at(at(path, "_meta"), k), "is not a valid _meta key (optional reverse-DNS prefix ending in /, then a name)")
			}
		}
	}
}

func (d *doc) icon(icon map[string]any, path string) {
	if src, ok := d.str(icon, path, "src", true, 1, 255); ok && !isURL(src, "https", "http", "data") {
		d.addf(at(path, "src"), "%q must be an http(s) or data: URI", src)
	}
	d.oneOf(icon, path, "mimeType", false, "image/png", "image/jpeg", "image/jpg", "image/svg+xml", "image/webp")
	for i, s := range d.strings(icon, path, "sizes", false, 0) {
		if !iconSizePattern.MatchString(s) {
			d.addf(index(at(path, "sizes"), i), "%q must be WxH (e.g. 48x48) or any", s)
		}
	}
	d.oneOf(icon, path, "theme", false, "light", "dark")
}

func (d *doc) remote(r map[string]any, path string) {
	d.oneOf(r, path, "type", true, "streamable-http", "sse")
	d.matches(r, path, "url", true, remoteURLPattern, "an http(s) URL or a {variable} template")
	headers, paths := d.objects(r, path, "headers", false, 0)
	for i, h := range headers {
		d.str(h, paths[i], "name", true, 1, 0)
		d.input(h, paths[i])
	}
	if vars := d.object(r, path, "variables", false); vars != nil {
		for _, k := range slices.Sorted(maps.Keys(vars)) {
			if v := d.object(vars, at(path, "variables"), k, true); v != nil {
				d.input(v, at(at(path, "variables"), k))
			}
		}
	}
	for i, v := range d.strings(r, path, "supportedProtocolVersions", false, 0) {
		if !protocolVersion.MatchString(v) {
			d.addf(index(at(path, "supportedProtocolVersions"), i), "%q must be an MCP protocol version like 2025-06-18", v)
		}
	}
}

func (d *doc) input(in map[string]any, path string) {
	for _, k := range []string{"description", "default", "placeholder", "value"} {
		d.str(in, path, k, false, 0, 0)
	}
	d.boolean(in, path, "isRequired")
	d.boolean(in, path, "isSecret")
	d.oneOf(in, path, "format", false, "string", "number", "boolean", "filepath")
	d.strings(in, path, "choices", false, 0)
}

func (d *doc) registryPackage(p map[string]any, path string) {
	d.str(p, path, "registryType", true, 1, 0)
	d.str(p, path, "identifier", true, 1, 0)
	d.object(p, path, "transport", true)
	if v, ok := d.str(p, path, "version", false, 1, 0); ok && v == "latest" {
		d.addf(at(path, "version"), `must pin a version, not "latest"`)
	}
	for _, key := range []string{"packageArguments", "runtimeArguments"} {
		args, paths := d.objects(p, path, key, false, 0)
		for i, a := range args {
			d.argument(a, paths[i])
		}
	}
}

func (d *doc) argument(a map[string]any, path string) {
	switch a["type"] {
	case "positional":
		_, hasValue := a["value"]
		_, hasHint := a["valueHint"]
		if !hasValue && !hasHint {
			d.addf(path, "a positional argument needs a value or a valueHint")
		}
	case "named":
		d.str(a, path, "name", true, 1, 0)
	default:
		d.addf(at(path, "type"), "must be positional or named")
	}
}
