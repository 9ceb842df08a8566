package pages

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/tools"
)

// day is the time of the fixture's n-th commit.
func day(n int) time.Time { return time.Date(2026, 3, n, 9, 30, 0, 0, time.UTC) }

// object decodes a tool object.
func object(t testing.TB, src string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(src), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// repo is the fixture server's repository, on a known forge.
const repo = "https://github.com/example/weather-mcp"

// schemaJSON is the canonical JSON of a tool object whose one parameter
// besides days has the given name and description.
func schemaJSON(param, description string) []byte {
	return fmt.Appendf(nil, `{"description":"Daily forecast.","inputSchema":{"properties":{"days":{"type":"integer"},%q:{"description":%q,"type":"string"}},"type":"object"},"name":"get_forecast"}`, param, description)
}

// manyMembers is a JSON object of n members of one type: two of them
// differ in every member, a diff too large to show whole.
func manyMembers(n int, typ string) []byte {
	b := []byte("{")
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `"p%03d":%q`, i, typ)
	}
	return append(b, '}')
}

// fixtureSite is a site with every kind of thing the pages show: a tool
// with nested and constrained parameters and a version history, one with
// unpublished changes, a new one, a removed one, one removed and back, a
// removed server (whose commits have no forge to link to), hostile
// text in a description and a parameter name, and a base URL with a path.
func fixtureSite(t testing.TB) *Site {
	t.Helper()
	forecast := &Tool{
		Name: "get_forecast", Title: "Get forecast", Description: "Daily forecast.\nUp to 14 days ahead.",
		Object: object(t, `{
			"name": "get_forecast", "title": "Get forecast",
			"description": "Daily forecast.\nUp to 14 days ahead.",
			"annotations": {"readOnlyHint": true, "destructiveHint": false},
			"inputSchema": {"type": "object", "required": ["location"], "properties": {
				"location": {"type": "string", "description": "A place name."},
				"days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
				"units": {"type": ["string", "null"], "enum": ["metric", "imperial"]},
				"filter": {"type": "object", "required": ["kinds"], "properties": {
					"kinds": {"type": "array", "items": {"type": "string"}, "minItems": 1},
					"stations": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[A-Z]{4}$"}}}}
				}}
			}},
			"outputSchema": {"type": "object", "properties": {"days": {"type": "array", "items": {"$ref": "#/$defs/Day"}}}}
		}`),
		SchemaPath: ".well-known/mcp/schemas/forecast/get_forecast/2.0.0.json",
		Versions: []Version{
			newVersion("2.0.0", "1.1.0", day(3), ".well-known/mcp/schemas/forecast/get_forecast/", "breaking",
				CommitLink(repo, "3333333333333333333333333333333333333333"), "", []string{"parameter `city` renamed to `location`"}),
			newVersion("1.1.0", "1.0.0", day(2), ".well-known/mcp/schemas/forecast/get_forecast/", "compatible",
				CommitLink(repo, "2222222222222222222222222222222222222222"), "", []string{"optional parameter `days` added"}),
			newVersion("1.0.0", "", day(1), ".well-known/mcp/schemas/forecast/get_forecast/", "",
				CommitLink(repo, "1111111111111111111111111111111111111111"), "", nil),
		},
	}
	forecast.Versions[0].setSchemas(schemaDiff(schemaJSON("city", "A <script>alert('diff')</script> & \"its\" region."), schemaJSON("location", "A place name.")))
	forecast.Versions[1].setSchemas(schemaDiff(manyMembers(120, "string"), manyMembers(120, "integer")))
	hostile := &Tool{
		Name: "search", Description: "<script>alert('description')</script> Finds <b>places</b>.",
		Object: object(t, `{
			"name": "search",
			"description": "<script>alert('description')</script> Finds <b>places</b>.",
			"inputSchema": {"type": "object", "properties": {
				"<script>alert('name')</script>": {"type": "string", "description": "a \"quoted\" <i>name</i>"}
			}}
		}`),
		Versions: []Version{newVersion("1.0.0", "", day(1), ".well-known/mcp/schemas/forecast/search/", "", Commit{}, "", nil)},
		Preview: &Preview{Kind: PreviewChanged, Version: "1.0.1", From: "1.0.0", Class: "cosmetic",
			Changes: []string{"description changed", "parameter `<script>` described"}},
	}
	fresh := &Tool{
		Name: "get_radar", Description: "Radar images.",
		Object:  object(t, `{"name": "get_radar", "description": "Radar images.", "inputSchema": {"type": "object"}}`),
		Preview: &Preview{Kind: PreviewNew, Version: "1.0.0"},
	}
	removed := &Tool{
		Name: "get_pollen", Description: "Pollen counts.",
		Object:     object(t, `{"name": "get_pollen", "description": "Pollen counts.", "inputSchema": {"type": "object"}}`),
		SchemaPath: ".well-known/mcp/schemas/forecast/get_pollen/1.0.0.json",
		Versions: []Version{newVersion("1.0.0", "", day(1), ".well-known/mcp/schemas/forecast/get_pollen/", "",
			CommitLink(repo, "1111111111111111111111111111111111111111"), "", nil)},
		Removed: &Removal{Time: day(2), Version: "1.0.0"},
		Gaps:    []Gap{{Removed: Step{Time: day(2), Version: "1.0.0", Commit: CommitLink(repo, "2222222222222222222222222222222222222222")}}},
	}
	returned := &Tool{
		Name: "get_uv", Description: "UV index.",
		Object:     object(t, `{"name": "get_uv", "description": "UV index.", "inputSchema": {"type": "object", "required": ["place"], "properties": {"place": {"type": "string"}}}}`),
		SchemaPath: ".well-known/mcp/schemas/forecast/get_uv/2.0.0.json",
		Versions: []Version{
			newVersion("2.0.0", "1.0.0", day(5), ".well-known/mcp/schemas/forecast/get_uv/", "breaking",
				CommitLink(repo, "5555555555555555555555555555555555555555"), "", []string{"new required parameter `place`"}),
			newVersion("1.0.0", "", day(1), ".well-known/mcp/schemas/forecast/get_uv/", "",
				CommitLink(repo, "1111111111111111111111111111111111111111"), "", nil),
		},
		Gaps: []Gap{{
			Removed: Step{Time: day(2), Version: "1.0.0", Commit: CommitLink(repo, "2222222222222222222222222222222222222222")},
			Back:    &Step{Time: day(5), Version: "2.0.0", Commit: CommitLink(repo, "5555555555555555555555555555555555555555")},
		}},
	}
	server := &Server{
		Slug: "forecast", Name: "com.example.weather/forecast", Title: "Weather <Forecast>",
		Description: "Forecasts.", Version: "2.1.0",
		WebsiteURL: "https://weather.example.com/", Repository: repo,
		Remotes: []Remote{{
			Type: "streamable-http", URL: "https://weather.example.com/weather/mcp", ProtocolVersions: []string{"2025-06-18", "2025-11-25"},
			Headers: []Input{{Name: "Authorization", Description: "Bearer token", Required: true, Secret: true}},
		}},
		Documents: []Link{{Title: "Server Card", Path: "mcp/forecast/server-card.json"}},
		Tools:     []*Tool{forecast, fresh, removed, returned, hostile},
	}
	oldTool := &Tool{
		Name: "list_alerts", Description: "Alerts.",
		Object:     object(t, `{"name": "list_alerts", "description": "Alerts.", "inputSchema": {"type": "object"}}`),
		SchemaPath: ".well-known/mcp/schemas/alerts/list_alerts/1.0.0.json",
		Versions:   []Version{newVersion("1.0.0", "", day(1), ".well-known/mcp/schemas/alerts/list_alerts/", "", Commit{Short: "1111111"}, "", nil)},
		Removed:    &Removal{Time: day(4), Version: "1.0.0"},
		Gaps:       []Gap{{Removed: Step{Time: day(4), Version: "1.0.0", Commit: Commit{Short: "4444444"}}}},
	}
	gone := &Server{Slug: "alerts", Name: "com.example.weather/alerts", Version: "1.0.0", Removed: &Removal{Time: day(4), Version: "1.0.0"}, Tools: []*Tool{oldTool}}
	return &Site{
		Title:       "Example <Weather>",
		Description: "Forecasts for agents.",
		BaseURL:     "https://example.github.io/weather/",
		CatalogPath: ".well-known/ai-catalog.json",
		FeedPath:    ".well-known/agent-feed.xml",
		Content: Content{
			Home:       []byte("# Example Weather\n\nWelcome. See [the forecast server](/servers/forecast/).\n\n<script>alert('home')</script>\n"),
			ServerDocs: map[string][]byte{"forecast": []byte("# Tools\n\nRead [the guide](/guide/) and [this](javascript:alert(1)).\n")},
			Pages:      []*MarkdownPage{{Name: "guide", Title: "Guide", source: []byte("# Guide\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")}},
		},
		Servers: []*Server{server, gone},
		Agents:  []Agent{{Name: "Planner", Description: "Plans.", Version: "1.0.0", Provider: "Example", Skills: []string{"Plan a day"}, CardPath: "a2a/planner/agent-card.json"}},
		Entity: &Entity{
			Items: []EntityItem{{Name: "Example Weather Co.", Location: "Lyon, FR", MCPs: []EntityMCP{
				{Name: "com.example.weather/forecast", Provider: "example-weather", Level: 2, Expires: "2027-06-01"},
				{Name: "https://mcp.booking.example/", Provider: "booking", Level: 1},
			}}},
			CardPath: ".well-known/entity-card.json",
		},
		Documents: []Link{{Title: "AI Catalog", Path: ".well-known/ai-catalog.json"}, {Title: "Change feed", Path: ".well-known/agent-feed.xml"}},
		Changes: []Change{
			withPage(otherEntry(nil, ChangeDeprecation, "removed", day(4), "com.example.weather/alerts removed"), "com.example.weather/alerts", gone, nil),
			withPage(Change{version: &forecast.Versions[0]}, "com.example.weather/forecast#get_forecast", nil, forecast),
			withPage(otherEntry(nil, ChangeAnnouncement, "new", day(1), "get_forecast 1.0.0 on com.example.weather/forecast"), "com.example.weather/forecast#get_forecast", nil, forecast),
		},
		Verify: Verify{
			DID: "did:web:example.github.io:weather", DIDPath: "did.json", Command: "wellknown verify https://example.github.io/weather",
			Install: "go install github.com/wellknown-dev/wellknown@v1.2.3", InstallGuide: "https://github.com/wellknown-dev/wellknown#install",
			Keys: []Key{{ID: "key-1", Current: true, Base64URL: "uAAAA", Multikey: "z6MkAAAA", SHA256: "00ff"}},
		},
	}
}

// withPage is c about an endpoint, with the page of its server s or its
// tool t: a schema change's version, made by newVersion, is of a run of
// its own, which names the endpoint.
func withPage(c Change, endpoint string, s *Server, t *Tool) Change {
	a := &changeAbout{endpoint: endpoint, server: s, tool: t}
	if c.version != nil {
		c.version.run.about = a
	} else {
		c.other.about = a
	}
	return c
}

// newVersion is a version made on its own, held in memory (see
// versionMaker.make).
func newVersion(version, from string, at time.Time, folder, class string, commit Commit, release string, texts []string) Version {
	var mk versionMaker
	v := mk.make(version, from, at, folder, nil, class, commit, release, texts)
	mk.finish()
	return v
}

// schemaDiff is the change from the schema old to new, both in memory.
func schemaDiff(old, new []byte) *SchemaChange {
	return newSchemaChange(tools.Tool{Canonical: old}, tools.Tool{Canonical: new})
}
