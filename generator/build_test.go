package generator

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/cards"
	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/internal/gittest"
	"github.com/wellknown-dev/wellknown/internal/upstream"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testSeed is the signing key of every test build (not a secret).
var testSeed = bytes.Repeat([]byte{0x42}, ed25519.SeedSize)

// testEnv supplies the test key the way CI does, through the environment.
func testEnv(name string) string {
	if name == "WELLKNOWN_SIGNING_KEY" {
		return base64.RawURLEncoding.EncodeToString(testSeed)
	}
	return ""
}

// exampleSite commits a copy of the repository's example site to a new git
// repository and returns its site.toml.
func exampleSite(t *testing.T) string { return gittest.ExampleSite(t) }

// copyFile copies a file of a test's site.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func build(t *testing.T, config string, overrides ...string) *Result {
	t.Helper()
	res, err := Build(Options{ConfigPath: config, Overrides: overrides, Getenv: testEnv})
	if err != nil {
		t.Fatalf("build %s: %v", config, err)
	}
	return res
}

// The example site produces every document docs/output.md lists for what it configures.
func TestExampleSiteFiles(t *testing.T) {
	res := build(t, exampleSite(t))
	var got []string
	for _, f := range res.Bundle.Files() {
		got = append(got, f.Path)
	}
	want := []string{
		"/.well-known/agent-card.json",
		"/.well-known/agent-feed-snapshot.json", // the A2A card holds the snapshot's usual path
		"/.well-known/agent-feed.xml",
		"/.well-known/ai-cards.json",
		"/.well-known/ai-catalog.json",
		"/.well-known/did.json",
		"/.well-known/entity-card.json",
		"/.well-known/mcp-servers.json",
		"/.well-known/mcp/schemas/alerts/list_alerts/1.0.0.json",
		"/.well-known/mcp/schemas/alerts/watch_alerts/1.0.0.json",
		"/.well-known/mcp/schemas/forecast/get_current_conditions/1.0.0.json",
		"/.well-known/mcp/schemas/forecast/get_forecast/1.0.0.json",
		"/.well-known/mcp/server-card.json",
		"/404.html",
		"/CNAME",
		"/_headers",
		"/_redirects",
		"/a2a/planner/agent-card.json",
		"/assets/copy.js",
		"/assets/feed.xsl",
		"/assets/icon.png",
		"/assets/style.css",
		"/changelog/index.html",
		"/connecting/index.html", // content/pages/connecting.md
		"/index.html",
		"/mcp/alerts/server-card.json",
		"/mcp/forecast/server-card.json",
		"/mcp/server-card", // the reserved location of the on-origin remote https://weather.example.com/mcp
		"/servers/alerts/index.html",
		"/servers/alerts/tools/list_alerts/index.html",
		"/servers/alerts/tools/watch_alerts/index.html",
		"/servers/forecast/index.html",
		"/servers/forecast/tools/get_current_conditions/index.html",
		"/servers/forecast/tools/get_forecast/index.html",
		"/verify/index.html",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Counts.Servers != 2 || res.Counts.Tools != 4 || res.Counts.Agents != 1 || res.Counts.Entries != 6 {
		t.Errorf("counts = %+v", res.Counts)
	}
}

// Every document the example site emits passes the upstream JSON Schema of
// its format, and our own check of it.
func TestExampleSiteMatchesUpstreamSchemas(t *testing.T) {
	res := build(t, exampleSite(t))
	host := res.Config.Base().Hostname()
	validated := map[string]int{}
	for _, f := range res.Bundle.Files() {
		var schemas []string
		var own []cards.Problem
		switch {
		case f.ContentType == cards.TypeServerCard:
			// A card is the remote-only slice of a registry server.json, so it passes both.
			schemas, own = []string{"server-card", "registry-server"}, cards.CheckServerCard(f.Body)
		case strings.HasSuffix(f.Path, "/agent-card.json"):
			schemas, own = []string{"a2a-agent-card"}, cards.CheckAgentCard(f.Body)
		case f.Path == paths.AICards:
			schemas, own = []string{"ai-cards"}, cards.CheckAICards(f.Body)
		case f.Path == paths.EntityCard:
			schemas, own = []string{"edp-entity-card"}, cards.CheckEntityCard(f.Body, host)
		case f.Path == paths.Catalog:
			own = cards.CheckAICatalog(f.Body) // the AI Catalog publishes no schema
		case f.Path == paths.ServerList:
			own = cards.CheckServerList(f.Body)
		}
		if len(own) > 0 {
			t.Errorf("%s fails our own check: %v", f.Path, own)
		}
		for _, s := range schemas {
			if err := upstream.Validate(t, s, f.Body); err != nil {
				t.Errorf("%s does not validate against upstream %s:\n%v", f.Path, s, err)
			}
			validated[s]++
		}
	}
	for _, s := range []string{"server-card", "registry-server", "a2a-agent-card", "ai-cards", "edp-entity-card"} {
		if validated[s] == 0 {
			t.Errorf("no document was validated against %s", s)
		}
	}
	if errs := didweb.Check(mustGet(t, res, "/.well-known/did.json"), "did:web:weather.example.com"); len(errs) > 0 {
		t.Errorf("did.json: %v", errs)
	}
}

// The EDP 0.1.0 shape (domain + top-level mcps) is produced too, and its MCP
// entries satisfy the upstream 0.2.0 schema's MCP definition.
func TestEntityCardSchema010(t *testing.T) {
	config := exampleSite(t)
	src, _ := os.ReadFile(config)
	old := "[entity]\nschema_version = \"0.2.0\"\n\n[[entity.entities]]\nname = \"Example Weather Co.\"\n\n[entity.entities.location]\ncity = \"Lyon\"\ncountry = \"FR\"\n\n[[entity.entities.mcps]]"
	if !bytes.Contains(src, []byte(old)) {
		t.Fatal("site.example.toml's [entity] section changed; update this test")
	}
	src = bytes.Replace(src, []byte(old), []byte("[entity]\nschema_version = \"0.1.0\"\n\n[[entity.mcps]]"), 1)
	if err := os.WriteFile(config, src, 0o644); err != nil {
		t.Fatal(err)
	}
	res := build(t, config)
	card := mustGet(t, res, paths.EntityCard)
	if !bytes.Contains(card, []byte(`"schema_version": "0.1.0"`)) || bytes.Contains(card, []byte("entities")) {
		t.Fatalf("not a 0.1.0 card:\n%s", card)
	}
	if home := mustGet(t, res, "/index.html"); !bytes.Contains(home, []byte("<h3>weather.example.com</h3>")) ||
		!bytes.Contains(home, []byte("<code>com.example.weather/forecast</code>, by example-weather: EDP level 1")) {
		t.Errorf("the home page does not list the top-level entry under the site's host")
	}
	wrapped := bytes.Replace(card, []byte(`"mcps":`), []byte(`"entities": [{"name": "x", "mcps":`), 1)
	wrapped = append(bytes.TrimRight(bytes.TrimSpace(wrapped), "}"), []byte("}]}")...)
	if err := upstream.Validate(t, "edp-entity-card", bytes.Replace(wrapped, []byte(`"0.1.0"`), []byte(`"0.2.0"`), 1)); err != nil {
		t.Errorf("0.1.0 card's mcps fail the upstream definition: %v\n%s", err, wrapped)
	}
}

// Two builds of the same inputs, created on disk in different orders, write
// byte-identical trees.
func TestBuildIsDeterministic(t *testing.T) {
	var trees []string
	for _, reversed := range []bool{false, true} {
		g := gittest.New(t, t.TempDir())
		if err := gittest.CopyExampleSite(g.Dir, reversed); err != nil {
			t.Fatal(err)
		}
		g.Commit("the example site")
		config := filepath.Join(g.Dir, "site.toml")
		res := build(t, config)
		out := filepath.Join(filepath.Dir(config), "public")
		if err := res.Write(out, false); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, treeDigest(t, out))
	}
	if trees[0] != trees[1] {
		t.Errorf("two builds differ:\n%s\n---\n%s", trees[0], trees[1])
	}
}

func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel + "\n" + string(data) + "\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// No encoding of the private key appears anywhere in the output, whether the
// key came from the environment or is the development key.
func TestNoPrivateKeyInOutput(t *testing.T) {
	config := exampleSite(t)
	for _, tc := range []struct {
		name   string
		getenv func(string) string
	}{
		{"environment key", testEnv},
		{"development key", nil},
	} {
		res, err := Build(Options{ConfigPath: config, Getenv: tc.getenv})
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(filepath.Dir(config), "public")
		if err := res.Write(out, false); err != nil {
			t.Fatal(err)
		}
		secrets := keyEncodings(res.Key.Private)
		err = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			for name, secret := range secrets {
				if bytes.Contains(data, secret) {
					t.Errorf("%s: %s contains the private key (%s)", tc.name, p, name)
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// keyEncodings returns the ways a private key could leak: raw, base64 and
// base64url (padded or not), hex, and the body of its PEM form.
func keyEncodings(key ed25519.PrivateKey) map[string][]byte {
	out := map[string][]byte{}
	for name, raw := range map[string][]byte{"seed": key.Seed(), "private key": key} {
		out[name+" raw"] = raw
		out[name+" hex"] = []byte(hex.EncodeToString(raw))
		out[name+" HEX"] = []byte(strings.ToUpper(hex.EncodeToString(raw)))
		for encName, enc := range map[string]*base64.Encoding{
			"base64": base64.StdEncoding, "base64 unpadded": base64.RawStdEncoding,
			"base64url": base64.URLEncoding, "base64url unpadded": base64.RawURLEncoding,
		} {
			// The first 40 characters: long enough to be the key, short enough to
			// match wherever the encoding is cut or wrapped.
			s := enc.EncodeToString(raw)
			out[name+" "+encName] = []byte(s[:40])
		}
	}
	pemBody := strings.Split(string(didweb.MarshalPEM(key)), "\n")[1]
	out["PEM body"] = []byte(pemBody)
	return out
}

// The example site's output is reviewed once and kept in testdata/example;
// any change to it shows up here. Run with -update to accept a change.
func TestExampleSiteGolden(t *testing.T) {
	res := build(t, exampleSite(t))
	golden := filepath.Join("testdata", "example")
	if *update {
		if err := os.RemoveAll(golden); err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Bundle.Files() {
			p := filepath.Join(golden, filepath.FromSlash(f.Path[1:]))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	seen := map[string]bool{}
	for _, f := range res.Bundle.Files() {
		seen[f.Path] = true
		want, err := os.ReadFile(filepath.Join(golden, filepath.FromSlash(f.Path[1:])))
		if err != nil {
			t.Errorf("%s: no golden file (run go test -update): %v", f.Path, err)
			continue
		}
		if !bytes.Equal(f.Body, want) {
			t.Errorf("%s differs from its golden file (run go test -update after review):\n%s", f.Path, f.Body)
		}
	}
	filepath.WalkDir(golden, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(golden, p)
			if !seen["/"+filepath.ToSlash(rel)] {
				t.Errorf("golden file %s is no longer produced", rel)
			}
		}
		return err
	})
}

func mustGet(t *testing.T, res *Result, path string) []byte {
	t.Helper()
	f, ok := res.Bundle.Get(path)
	if !ok {
		t.Fatalf("%s was not built", path)
	}
	return f.Body
}

// A build names each stage as it starts, in order, for a person watching.
func TestProgressNamesEachStage(t *testing.T) {
	var stages []string
	_, err := Build(Options{ConfigPath: exampleSite(t), Getenv: testEnv, Progress: func(s string) { stages = append(stages, s) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"read: the site definition, tool files and key", "read: git history", "diff: replaying the history", "sign: the feed", "render: documents and pages"}
	if strings.Join(stages, "\n") != strings.Join(want, "\n") {
		t.Errorf("stages = %q, want %q", stages, want)
	}
}
