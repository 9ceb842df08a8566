package cards

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/site"
)

func validCard() map[string]any {
	card := NewServerCard(site.Identity{
		Name: "com.example/weather", Description: "Weather.", Version: "1.0.0",
		Remotes: []site.Remote{{Type: "streamable-http", URL: "https://example.com/mcp", SupportedProtocolVersions: []string{"2025-06-18"}}},
		Icons:   []site.Icon{{Src: "https://example.com/i.png", MimeType: "image/png", Sizes: []string{"48x48"}}},
	})
	data, _ := json.Marshal(card)
	var m map[string]any
	json.Unmarshal(data, &m)
	return m
}

// Every rule of a Server Card rejects a card that breaks it, at the right path.
func TestServerCardRules(t *testing.T) {
	if p := CheckServerCard(encode(validCard())); len(p) > 0 {
		t.Fatalf("valid card rejected: %v", p)
	}
	for _, tc := range []struct {
		mutate func(m map[string]any)
		path   string
	}{
		{func(m map[string]any) {
			m["$schema"] = "https://static.modelcontextprotocol.io/schemas/v1/server.schema.json"
		}, "$schema"},
		{func(m map[string]any) { delete(m, "$schema") }, "$schema"},
		{func(m map[string]any) { m["name"] = "noslash" }, "name"},
		{func(m map[string]any) { m["name"] = "a/" + strings.Repeat("b", 200) }, "name"},
		{func(m map[string]any) { delete(m, "version") }, "version"},
		{func(m map[string]any) { m["version"] = strings.Repeat("1", 256) }, "version"},
		{func(m map[string]any) { m["description"] = "" }, "description"},
		{func(m map[string]any) { m["description"] = strings.Repeat("é", 101) }, "description"},
		{func(m map[string]any) { m["title"] = 5 }, "title"},
		{func(m map[string]any) { m["websiteUrl"] = "example.com" }, "websiteUrl"},
		{func(m map[string]any) { m["repository"] = map[string]any{"url": "https://x"} }, "repository.source"},
		{func(m map[string]any) { m["icons"].([]any)[0].(map[string]any)["src"] = "ftp://x/i.png" }, "icons[0].src"},
		{func(m map[string]any) { m["icons"].([]any)[0].(map[string]any)["sizes"] = []any{"big"} }, "icons[0].sizes[0]"},
		{func(m map[string]any) { m["icons"].([]any)[0].(map[string]any)["theme"] = "blue" }, "icons[0].theme"},
		{func(m map[string]any) { m["remotes"].([]any)[0].(map[string]any)["type"] = "websocket" }, "remotes[0].type"},
		{func(m map[string]any) { m["remotes"].([]any)[0].(map[string]any)["url"] = "wss://x" }, "remotes[0].url"},
		{func(m map[string]any) {
			m["remotes"].([]any)[0].(map[string]any)["supportedProtocolVersions"] = []any{"latest"}
		}, "remotes[0].supportedProtocolVersions[0]"},
		{func(m map[string]any) {
			m["remotes"].([]any)[0].(map[string]any)["headers"] = []any{map[string]any{"isRequired": true}}
		}, "remotes[0].headers[0].name"},
		{func(m map[string]any) { m["_meta"] = map[string]any{"bad key!": 1} }, "_meta.bad key!"},
		{func(m map[string]any) { m["remotes"] = "https://x" }, "remotes"},
	} {
		m := validCard()
		tc.mutate(m)
		problems := CheckServerCard(encode(m))
		if len(problems) == 0 || problems[0].Path != tc.path {
			t.Errorf("mutation at %s: problems = %v", tc.path, problems)
		}
	}
	if p := CheckServerCard([]byte("[1,2]")); len(p) != 1 || p[0].Msg != "not a JSON object" {
		t.Errorf("non-object: %v", p)
	}
}

func TestTemplatedRemoteURLIsAccepted(t *testing.T) {
	m := validCard()
	m["remotes"].([]any)[0].(map[string]any)["url"] = "{tenant_url}/mcp"
	if p := CheckServerCard(encode(m)); len(p) > 0 {
		t.Errorf("templated remote rejected: %v", p)
	}
}

func TestAgentCardRules(t *testing.T) {
	agent := site.Agent{
		Name: "A", Description: "d", Version: "1", DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		SupportedInterfaces: []site.AgentInterface{{URL: "https://example.com/a2a", ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"}},
		Skills:              []site.AgentSkill{{ID: "s", Name: "S", Description: "d", Tags: []string{}}},
	}
	data, _ := json.Marshal(agent)
	if p := CheckAgentCard(data); len(p) > 0 {
		t.Fatalf("valid agent card rejected: %v", p)
	}
	for _, tc := range []struct{ old, new, path string }{
		{`"name":"A",`, ``, "name"},
		{`"url":"https://example.com/a2a"`, `"url":"http://example.com/a2a"`, "supportedInterfaces[0].url"},
		{`"protocolBinding":"JSONRPC",`, ``, "supportedInterfaces[0].protocolBinding"},
		{`"defaultInputModes":["text/plain"]`, `"defaultInputModes":[]`, "defaultInputModes"},
		{`"tags":[]`, `"tags":"x"`, "skills[0].tags"},
		{`"version":"1"`, `"version":"1","url":"https://x"`, "url"},
	} {
		mutated := strings.Replace(string(data), tc.old, tc.new, 1)
		if p := CheckAgentCard([]byte(mutated)); len(p) == 0 || p[0].Path != tc.path {
			t.Errorf("%s: problems = %v\n%s", tc.path, p, mutated)
		}
	}
	grpc := strings.Replace(string(data), `"url":"https://example.com/a2a","protocolBinding":"JSONRPC"`, `"url":"agent.example.com:443","protocolBinding":"GRPC"`, 1)
	if p := CheckAgentCard([]byte(grpc)); len(p) > 0 {
		t.Errorf("gRPC host:port interface rejected: %v", p)
	}
}

func TestEntityCardRules(t *testing.T) {
	v2 := `{"schema_version":"0.2.0","domain":"example.com","entities":[{"name":"E","path":"/paris","location":{"country":"FR","coordinates":{"lat":48.8,"lng":2.3}},"mcps":[{"provider":"p-1","endpoint":"https://mcp.example.com","priority":10}]}]}`
	v1 := `{"schema_version":"0.1.0","domain":"example.com","mcps":[{"provider":"p","endpoint":"https://mcp.example.com"}]}`
	for _, doc := range []string{v1, v2} {
		if p := CheckEntityCard([]byte(doc), "example.com"); len(p) > 0 {
			t.Errorf("valid card rejected: %v\n%s", p, doc)
		}
	}
	if p := CheckEntityCard([]byte(v2), "other.example"); len(p) != 1 || p[0].Path != "domain" {
		t.Errorf("domain mismatch: %v", p)
	}
	for _, tc := range []struct{ old, new, path string }{
		{`"https://mcp.example.com","priority"`, `"http://mcp.example.com","priority"`, "entities[0].mcps[0].endpoint"},
		{`"p-1"`, `"P 1"`, "entities[0].mcps[0].provider"},
		{`"priority":10`, `"priority":101`, "entities[0].mcps[0].priority"},
		{`"FR"`, `"France"`, "entities[0].location.country"},
		{`"lat":48.8`, `"lat":91`, "entities[0].location.coordinates.lat"},
		{`"/paris"`, `"paris"`, "entities[0].path"},
		{`"0.2.0"`, `"two"`, "schema_version"},
	} {
		mutated := strings.Replace(v2, tc.old, tc.new, 1)
		if p := CheckEntityCard([]byte(mutated), "example.com"); len(p) == 0 || p[0].Path != tc.path {
			t.Errorf("%s: problems = %v", tc.path, p)
		}
	}
}

func TestAICardsRules(t *testing.T) {
	doc := AICards{Schema: AICardsSchema, Protocols: []AICardProtocol{{
		Type: "mcp", Endpoints: []AICardEndpoint{{URL: "/mcp"}}, Metadata: AICardMetadata{Type: "mcp-server-card", URL: "./server-card.json"},
	}}}
	data, _ := json.Marshal(doc)
	if p := CheckAICards(data); len(p) > 0 {
		t.Fatalf("valid document rejected: %v", p)
	}
	for _, tc := range []struct{ old, new, path string }{
		{`"/mcp"`, `"../mcp"`, "protocols[0].endpoints[0].url"},
		{`"type":"mcp",`, `"type":"grpc",`, "protocols[0].type"},
		{`"protocols":[`, `"extra":1,"protocols":[`, "extra"},
		{`"endpoints":[{"url":"/mcp"}]`, `"endpoints":[]`, "protocols[0].endpoints"},
	} {
		mutated := strings.Replace(string(data), tc.old, tc.new, 1)
		if p := CheckAICards([]byte(mutated)); len(p) == 0 || p[0].Path != tc.path {
			t.Errorf("%s: problems = %v", tc.path, p)
		}
	}
}

func TestAICatalogUniqueness(t *testing.T) {
	entry := func(id, version string) CatalogEntry {
		return CatalogEntry{Identifier: id, Type: TypeServerCard, URL: "https://example.com/c.json", Version: version}
	}
	for _, tc := range []struct {
		entries []CatalogEntry
		ok      bool
	}{
		{[]CatalogEntry{entry("urn:a", ""), entry("urn:b", "")}, true},
		{[]CatalogEntry{entry("urn:a", "1"), entry("urn:a", "2")}, true},
		{[]CatalogEntry{entry("urn:a", ""), entry("urn:a", "")}, false},
		{[]CatalogEntry{entry("urn:a", "1"), entry("urn:a", "1")}, false},
		{[]CatalogEntry{entry("urn:a", ""), entry("urn:a", "1")}, false},
		{[]CatalogEntry{entry("not a uri", "")}, false},
	} {
		data, _ := json.Marshal(Catalog{SpecVersion: "1.0", Entries: tc.entries})
		if p := CheckAICatalog(data); (len(p) == 0) != tc.ok {
			t.Errorf("%+v: problems = %v, want ok=%v", tc.entries, p, tc.ok)
		}
	}
}

func encode(m map[string]any) []byte {
	data, _ := json.Marshal(m)
	return data
}

// Length problems are written in correct English: 1 character, 2 characters.
func TestLengthMessagesUsePlurals(t *testing.T) {
	m := validCard()
	m["description"] = ""
	p := CheckServerCard(encode(m))
	if len(p) != 1 || p[0].Msg != "must be at least 1 character (has 0)" {
		t.Errorf("empty description: %v", p)
	}
	m["description"] = strings.Repeat("x", 101)
	if p := CheckServerCard(encode(m)); len(p) != 1 || p[0].Msg != "must be at most 100 characters (has 101)" {
		t.Errorf("long description: %v", p)
	}
}
