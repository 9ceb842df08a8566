package agentfeed

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/wellknown-dev/wellknown/format/schemadiff"
)

// The test key comes from a fixed seed; it is not a secret.
var testKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, ed25519.SeedSize))

const testKeyID = "did:web:example.com#key-1"

func testSigner() Signer { return NewSigner(testKeyID, testKey) }

func testVerifier() Verifier {
	return NewVerifier(testKeyID, testKey.Public().(ed25519.PublicKey))
}

func ptr(s string) *string { return &s }

// exampleFeed is the feed of the package documentation's worked example.
func exampleFeed(t testing.TB) *Feed {
	t.Helper()
	const (
		server = "com.example/weather"
		tool   = server + "#get_forecast"
		remote = "https://example.com/mcp"
	)
	sign := func(typ, key, title, updated, summary string, payload any) Entry {
		e, err := NewEntry(testSigner(), EntryID("example.com", typ, tool, key), typ, updated, summary, payload)
		if err != nil {
			t.Fatal(err)
		}
		e.Title, e.Link = title, "https://example.com/servers/weather/tools/get_forecast/"
		return e
	}
	return &Feed{
		ID:           "did:web:example.com",
		Title:        "example.com agent feed",
		Updated:      "2026-05-02T09:30:00Z",
		AuthorName:   "Example Weather",
		SelfURL:      "https://example.com/.well-known/agent-feed.xml",
		AlternateURL: "https://example.com/changelog/",
		SpecVersion:  SpecVersion,
		Status:       StatusActive,
		Entries: []Entry{
			sign(TypeAnnouncement, "1.0.0", "get_forecast 1.0.0 published", "2026-04-27T12:00:00Z", "get_forecast 1.0.0", Announcement{
				EndpointID: tool,
				Endpoint:   remote,
				Protocol:   "mcp-tool",
				Version:    "1.0.0",
				AssertedAt: "2026-04-27T12:00:00Z",
			}),
			sign(TypeSchemaChange, "1.1.0", "get_forecast 1.1.0: new optional input units (compatible)", "2026-05-02T09:30:00Z", "get_forecast 1.0.0 → 1.1.0: new optional input units", SchemaChange{
				EndpointID:  tool,
				FromVersion: "1.0.0",
				ToVersion:   "1.1.0",
				EffectiveAt: "2026-05-02T09:30:00Z",
				Migration:   schemadiff.Migration{Add: []string{"/inputSchema/properties/units"}},
				Compat:      "compatible",
			}),
		},
	}
}
