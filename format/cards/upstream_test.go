package cards

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/upstream"
)

// examples returns the upstream example documents under schemas/examples/dir/kind.
func examples(t *testing.T, dir, kind string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(upstream.Path(t, "schemas", "examples", dir, kind), "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no upstream examples in %s/%s (%v)", dir, kind, err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = data
	}
	return out
}

// Our own checks agree with upstream: they accept every valid example and
// reject every invalid one.
func TestUpstreamExamples(t *testing.T) {
	for _, tc := range []struct {
		dir, kind string
		check     func([]byte) []Problem
		valid     bool
	}{
		{"mcp-server-card", "valid", CheckServerCard, true},
		{"mcp-server-card", "composed", CheckServerCard, true},
		{"mcp-server-card", "invalid", CheckServerCard, false},
		{"mcp-registry-server", "valid", CheckRegistryServer, true},
		{"mcp-registry-server", "invalid", CheckRegistryServer, false},
		{"ai-catalog", "valid", CheckAICatalog, true},
		{"ai-catalog", "composed", CheckAICatalog, true},
		{"ai-catalog", "invalid", CheckAICatalog, false},
		{"ai-card-v0/composed", "valid", CheckAICards, true},
		{"ai-card-v0/composed", "invalid", CheckAICards, false},
		{"a2a-agent-card", "composed", CheckAgentCard, true},
		{"edp-entity-card", "valid", checkEntityCardOwnDomain, true},
	} {
		for name, data := range examples(t, tc.dir, tc.kind) {
			problems := tc.check(data)
			if tc.valid && len(problems) > 0 {
				t.Errorf("%s/%s/%s: rejected a valid example: %v", tc.dir, tc.kind, name, problems)
			}
			if !tc.valid && len(problems) == 0 {
				t.Errorf("%s/%s/%s: accepted an invalid example", tc.dir, tc.kind, name)
			}
		}
	}
}

// checkEntityCardOwnDomain checks an entity card as served by its own domain.
func checkEntityCardOwnDomain(data []byte) []Problem {
	var card struct{ Domain string }
	json.Unmarshal(data, &card)
	return CheckEntityCard(data, card.Domain)
}
