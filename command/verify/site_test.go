package verify

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// buildExample commits the repository's example site (site.example.toml and
// content/) to a new git repository and builds it, for base when set.
func buildExample(t *testing.T, base string) *generator.Result {
	t.Helper()
	var overrides []string
	if base != "" {
		overrides = append(overrides, "base_url="+base)
	}
	seed := base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{0x42}, ed25519.SeedSize))
	res, err := generator.Build(generator.Options{
		ConfigPath: gittest.ExampleSite(t),
		Overrides:  overrides,
		Getenv: func(name string) string {
			if name == "WELLKNOWN_SIGNING_KEY" {
				return seed
			}
			return ""
		},
	})
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return res
}

func (o *origin) serveBundle(b *bundle.Bundle) {
	for _, f := range b.Files() {
		o.put(f.Path, f.Body, f.Header)
	}
}

// builtOrigin builds the example site for a new loopback origin and serves it.
func builtOrigin(t *testing.T, style hostStyle) (*origin, *generator.Result) {
	t.Helper()
	o := newOrigin(t, style)
	res := buildExample(t, o.base.String())
	o.serveBundle(res.Bundle)
	return o, res
}

// Our own build, written to a directory, verifies without a single finding.
func TestBuiltSiteDirectory(t *testing.T) {
	res := buildExample(t, "")
	out := filepath.Join(t.TempDir(), "public")
	if err := res.Write(out, true); err != nil {
		t.Fatal(err)
	}
	rep := run(t, Options{Target: out})
	if !rep.OK || rep.Warnings != 0 {
		t.Fatalf("ok %v:%s", rep.OK, dump(rep))
	}
	o := rep.Origins[0]
	if o.URL != "https://weather.example.com/" || o.DID != "did:web:weather.example.com" || o.Dir != out {
		t.Errorf("origin %s (%s) from %s", o.URL, o.DID, o.Dir)
	}
	if !o.Trusted || o.Entries != len(res.Entries) || o.Verified != len(res.Entries) {
		t.Errorf("trusted %v, %d of %d entries verified, want all %d", o.Trusted, o.Verified, o.Entries, len(res.Entries))
	}
	// did.json, feed, snapshot, A2A card, catalog, the reserved card and two
	// more cards, mcp-servers.json, the alias, the entity card, ai-cards.json,
	// four archived tool versions.
	if o.Documents != 16 {
		t.Errorf("%d documents read, want 16", o.Documents)
	}
}

// The same build served by a host that sends its headers verifies without a
// finding; on GitHub Pages, which cannot set them, with warnings only (its
// ten minutes of caching is far from the archived schemas' year); on a host
// without CORS whose ETags do not work, it fails.
func TestBuiltSiteLive(t *testing.T) {
	tests := []struct {
		name             string
		style            hostStyle
		errors, warnings []string
	}{
		{"headers", hostHeaders, nil, nil},
		{"GitHub Pages", hostGitHub, nil, []string{codeCache, codeContentType}},
		{"careless host", hostBare, []string{codeCORS, codeETag}, []string{codeCache, codeContentType}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, res := builtOrigin(t, tt.style)
			rep := run(t, Options{Target: o.base.String()})
			if got := codes(rep, SeverityError); !slices.Equal(got, tt.errors) {
				t.Errorf("errors = %v, want %v:%s", got, tt.errors, dump(rep))
			}
			if got := codes(rep, SeverityWarning); !slices.Equal(got, tt.warnings) {
				t.Errorf("warnings = %v, want %v:%s", got, tt.warnings, dump(rep))
			}
			if got := rep.Origins[0].Verified; got != len(res.Entries) {
				t.Errorf("%d entries verified, want %d", got, len(res.Entries))
			}
		})
	}
}

// A tampered build fails, and says where.
func TestBuiltSiteTampered(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, o *origin, res *generator.Result)
		errors []string
		// code's first finding must name doc.
		code, doc string
	}{
		{"archived schema replaced", func(t *testing.T, o *origin, res *generator.Result) {
			o.put("/.well-known/mcp/schemas/forecast/get_forecast/1.0.0.json", []byte(`{"name":"get_forecast","inputSchema":{"type":"object"}}`), nil)
		}, []string{codeSchemaHash}, codeSchemaHash, "/.well-known/mcp/schemas/forecast/get_forecast/1.0.0.json"},
		{"archived schema missing", func(t *testing.T, o *origin, res *generator.Result) {
			o.remove("/.well-known/mcp/schemas/alerts/list_alerts/1.0.0.json")
		}, []string{codeNotFound}, codeNotFound, "/.well-known/mcp/schemas/alerts/list_alerts/1.0.0.json"},
		{"a catalog URL that 404s", func(t *testing.T, o *origin, res *generator.Result) {
			o.remove("/mcp/alerts/server-card.json")
		}, []string{codeNotFound}, codeNotFound, "/mcp/alerts/server-card.json"},
		{"a card the feed disagrees with", func(t *testing.T, o *origin, res *generator.Result) {
			o.edit(res, "/mcp/forecast/server-card.json", `"version": "2.1.0"`, `"version": "2.2.0"`)
		}, []string{codeCardFeed}, codeCardFeed, "/mcp/forecast/server-card.json"},
		// The card is also one the feed never announced.
		{"an invalid card", func(t *testing.T, o *origin, res *generator.Result) {
			o.edit(res, "/mcp/alerts/server-card.json", `"name": "com.example.weather/alerts"`, `"name": "no slash"`)
		}, []string{codeCardFeed, codeInvalidDocument}, codeInvalidDocument, "/mcp/alerts/server-card.json"},
		// Without the entry, the feed no longer replays to the snapshot and
		// the card: both disagree.
		{"a payload changed after signing", func(t *testing.T, o *origin, res *generator.Result) {
			o.edit(res, paths.Feed, `"version":"2.1.0"`, `"version":"2.1.1"`)
		}, []string{codeCardFeed, codeSnapshotDisagreement, codeUnverified}, codeUnverified, paths.Feed},
		{"a snapshot changed after signing", func(t *testing.T, o *origin, res *generator.Result) {
			o.edit(res, paths.SnapshotBesideA2A, `"version": "2.1.0"`, `"version": "2.1.1"`)
		}, []string{codeSnapshotDisagreement, codeSnapshotUnverified}, codeSnapshotUnverified, paths.SnapshotBesideA2A},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, res := builtOrigin(t, hostHeaders)
			tt.tamper(t, o, res)
			rep := run(t, Options{Target: o.base.String()})
			if got := codes(rep, SeverityError); !slices.Equal(got, tt.errors) {
				t.Fatalf("errors = %v, want %v:%s", got, tt.errors, dump(rep))
			}
			if got := findings(rep, tt.code)[0].Document; got != tt.doc {
				t.Errorf("the %s finding names %s, want %s", tt.code, got, tt.doc)
			}
		})
	}
}

// edit serves a built file with old replaced by new, and its own headers.
func (o *origin) edit(res *generator.Result, p, old, new string) {
	o.t.Helper()
	f, ok := res.Bundle.Get(p)
	if !ok {
		o.t.Fatalf("the build has no %s", p)
	}
	o.put(p, replace(o.t, f.Body, old, new), f.Header)
}

// verify warns when a document's Cache-Control is missing or more than ten
// times off the lifetime the build gives it.
func TestCacheControl(t *testing.T) {
	for _, tc := range []struct {
		kind         kind
		cacheControl string
		warning      string // "" for none
	}{
		{kindFeed, "public, max-age=300", ""},
		{kindFeed, "max-age=600", ""},
		{kindFeed, "public, max-age=86400", "a change reaches readers up to 24h0m0s late; want max-age=300"},
		{kindFeed, "public, max-age=86400, s-maxage=60", ""},
		{kindCatalog, "", "Cache-Control is nothing, with no max-age"},
		{kindCatalog, "public", "Cache-Control is public, with no max-age"},
		{kindCatalog, "no-store", "readers download it again after 0s; want max-age=3600"},
		{kindSchema, "public, max-age=31536000, immutable", ""},
		{kindSchema, "max-age=600", "readers download it again after 10m0s; want max-age=31536000"},
	} {
		c := &checker{rep: &Origin{}}
		c.checkCache("/doc", tc.kind, tc.cacheControl)
		var got string
		for _, f := range c.rep.Findings {
			got += f.Message
		}
		if tc.warning == "" && got != "" || !strings.Contains(got, tc.warning) {
			t.Errorf("%s with %q: %q, want %q", tc.kind.name, tc.cacheControl, got, tc.warning)
		}
	}
}
