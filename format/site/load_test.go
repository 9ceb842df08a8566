package site

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/diag"
)

const minimal = `base_url = "https://example.com/"
[[servers]]
name = "com.example/weather"
description = "Weather."
version = "1.0.0"
`

func parse(t *testing.T, src string, overrides ...string) (*Config, error) {
	t.Helper()
	return Parse("site.toml", src, overrides)
}

func TestDefaults(t *testing.T) {
	c, err := parse(t, minimal)
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "example.com" || c.Author != "example.com" {
		t.Errorf("title, author = %q, %q; want the host", c.Title, c.Author)
	}
	if c.Signing.KeyEnv != DefaultKeyEnv || c.Signing.KeyID != DefaultKeyID || c.Feed.Status != StatusActive {
		t.Errorf("signing/feed defaults = %+v %+v", c.Signing, c.Feed)
	}
	if c.Servers[0].Slug != "weather" {
		t.Errorf("slug = %q, want weather", c.Servers[0].Slug)
	}
	if got := c.URL("/x.json"); got != "https://example.com/x.json" {
		t.Errorf("URL = %s", got)
	}
}

func TestBaseURLWithPathKeepsPathInURLs(t *testing.T) {
	c, err := parse(t, strings.Replace(minimal, "https://example.com/", "https://example.github.io/repo/", 1))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.URL("/index.html"); got != "https://example.github.io/repo/index.html" {
		t.Errorf("URL = %s", got)
	}
}

// Each problem is its own error, located at its line, so all can be fixed in one pass.
func TestValidationProblems(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // each must appear in one error, in order
	}{
		{"missing base_url", `title = "x"`, []string{"site.toml: base_url is required"}},
		{"http base_url", `base_url = "http://example.com"`, []string{"site.toml:1: base_url \"http://example.com\" must use https"}},
		{"base_url with query", `base_url = "https://example.com/?a=1"`, []string{"not an origin URL"}},
		{"base_url with a bad host", `base_url = "https://a$(id)b.com/"`, []string{`site.toml:1: base_url "https://a$(id)b.com/" does not have a valid host name`}},
		{"two problems", "base_url = \"https://example.com\"\n[feed]\nstatus = \"paused\"\n[signing]\nkey_id = \"a b\"",
			[]string{"site.toml:5: signing.key_id", "site.toml:3: feed.status \"paused\""}},
		{"migrated without target", "base_url = \"https://example.com\"\n[feed]\nstatus = \"migrated\"", []string{"feed.migrated_to must be the https URL"}},
		{"duplicate server names", minimal + "[[servers]]\nname = \"com.example/weather\"\nslug = \"w2\"\n",
			[]string{"site.toml:7: server name \"com.example/weather\" is already used by servers[0]"}},
		{"duplicate slugs", minimal + "[[servers]]\nname = \"org.other/weather\"\n",
			[]string{"site.toml:6: slug \"weather\" is already used by entry 0"}},
		{"server without name", "base_url = \"https://example.com\"\n[[servers]]\ntitle = \"x\"", []string{"site.toml:2: servers[0] has no name"}},
		{"bad glob", minimal + "tools = \"[*.json\"\n", []string{"site.toml:6: tools glob \"[*.json\" is malformed"}},
		{"escaping glob", minimal + "tools = \"../other/*.json\"\n", []string{"must be relative and stay inside"}},
		{"entity shape", "base_url = \"https://example.com\"\n[entity]\nschema_version = \"0.2.0\"\n[[entity.mcps]]\nprovider = \"p\"",
			[]string{"site.toml:2: entity schema_version 0.2.0 lists [[entity.entities]]"}},
		{"entity version", "base_url = \"https://example.com\"\n[entity]\nschema_version = \"1.0\"", []string{"site.toml:3: entity schema_version \"1.0\""}},
		{"deprecation dates", "base_url = \"https://example.com\"\n[[deprecations]]\nendpoint = \"a/b\"\nannounced_at = \"2026-05-01\"\nsunset = \"2026-01-01T00:00:00Z\"",
			[]string{"site.toml:4: announced_at \"2026-05-01\" is not an RFC 3339 time"}},
		{"sunset before announcement", "base_url = \"https://example.com\"\n[[deprecations]]\nendpoint = \"a/b\"\nannounced_at = \"2026-05-01T00:00:00Z\"\nsunset = \"2026-01-01T00:00:00Z\"",
			[]string{"site.toml:5: sunset 2026-01-01T00:00:00Z is before announced_at"}},
		{"deploy", "base_url = \"https://example.com\"\n[deploy]\ntargets = [\"vercel\"]\ncname = \"Not A Host\"\n[[deploy.redirects]]\nfrom = \"x\"\nto = \"/y\"\nstatus = 418",
			[]string{"deploy target \"vercel\"", "deploy.cname", "site.toml:6: redirect from \"x\"", "site.toml:8: redirect status 418"}},
		{"breaking acknowledgements", "base_url = \"https://example.com\"\n[[breaking]]\nendpoint = \"weather#get\"\nto = \"2\"\n[[breaking]]\nendpoint = \"com.example/weather#get forecast\"\nto = \"removed\"\n[[breaking]]\nendpoint = \"com.example/weather\"\nto = \"removed\"\n[[breaking]]\nendpoint = \"com.example/weather#get_forecast\"\nto = \"2.0.0\"\nreason = \"r\"",
			[]string{"site.toml:3: breaking endpoint \"weather#get\" is not a server name", "site.toml:4: breaking to \"2\" is neither a version like 2.0.0 nor \"removed\"", "site.toml:6: breaking endpoint \"com.example/weather#get forecast\""}},
		{"previous key", "base_url = \"https://example.com\"\n[[signing.previous]]\nid = \"key-0\"\npublic_key = \"zNope\"", []string{"site.toml:4: signing.previous \"key-0\""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, tc.src)
			errs := diag.List(err)
			if len(errs) != len(tc.want) {
				t.Fatalf("got %d errors, want %d: %v", len(errs), len(tc.want), err)
			}
			for i, w := range tc.want {
				if !strings.Contains(errs[i].Error(), w) {
					t.Errorf("error %d = %q, want it to contain %q", i, errs[i], w)
				}
			}
		})
	}
}

func TestUnknownKeys(t *testing.T) {
	src := "base_url = \"https://example.com\"\ncolour = 1\n[[servers]]\nname = \"a/b\"\n[[servers]]\nname = \"a/c\"\nbogus = 2\n[mystery]\nx = 1\n"
	_, err := parse(t, src)
	var got []string
	for _, e := range diag.List(err) {
		got = append(got, e.Error())
	}
	want := []string{
		`site.toml:2: unknown key "colour"`,
		`site.toml:7: unknown key "servers.bogus"`,
		`site.toml:8: unknown key "mystery"`, // its keys are not repeated
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A misspelt key gets the key of its table that was meant; a key far from
// all of them gets the general hint.
func TestUnknownKeyHints(t *testing.T) {
	src := "base_url = \"https://example.com\"\ntitel = \"T\"\n[signing]\nkye_id = \"k\"\n[[servers]]\nname = \"a/b\"\ndescripton = \"d\"\ncolour = 1\n"
	_, err := parse(t, src)
	var got []string
	for _, e := range diag.List(err) {
		got = append(got, e.Error()+" / "+diag.Hint(e))
	}
	want := []string{
		`site.toml:2: unknown key "titel" / did you mean "title"?`,
		`site.toml:4: unknown key "signing.kye_id" / did you mean "signing.key_id"?`,
		`site.toml:7: unknown key "servers.descripton" / did you mean "servers.description"?`,
		`site.toml:8: unknown key "servers.colour" / keys are snake_case; every key is listed in wellknown's docs/site-toml.md`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDecodeErrorsAreLocated(t *testing.T) {
	for src, want := range map[string]string{
		"base_url = \"https://example.com\"\ntitle = \"unterminated\n": "site.toml:2: ",
		// A value of the wrong type names its key and both types.
		"base_url = \"https://example.com\"\n[[servers]]\nname = 42\n":       "site.toml:3: servers.name must be a string, not an integer",
		"base_url = \"https://example.com\"\n[signing]\nkey_id = true\n":     "site.toml:3: signing.key_id must be a string, not a boolean",
		"base_url = \"https://example.com\"\n[[servers]]\nversion = [1.5]\n": "site.toml:3: servers.version must be a string, not an array",
	} {
		_, err := parse(t, src)
		if errs := diag.List(err); len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), want) {
			t.Errorf("%q: got %v, want one error starting %q", src, err, want)
		}
	}
}

func TestOverrides(t *testing.T) {
	c, err := parse(t, minimal, "servers.weather.version=2.0.0", "base_url=https://other.example/", "title=T", "feed.status=terminated")
	if err != nil {
		t.Fatal(err)
	}
	if c.Servers[0].Version != "2.0.0" || c.Host() != "other.example" || c.Title != "T" || c.Feed.Status != StatusTerminated {
		t.Errorf("overrides not applied: %+v", c)
	}
	for _, o := range []string{"nope", "servers.weather.name=x", "servers.rain.version=1", "colour=red"} {
		if _, err := parse(t, minimal, o); err == nil {
			t.Errorf("override %q accepted", o)
		}
	}
}

func TestImport(t *testing.T) {
	dir := t.TempDir()
	serverJSON := `{"name": "io.github.x/imported", "title": "Imported", "description": "From the registry.",
		"version": "${VERSION}", "websiteUrl": "https://x.example/", "remotes": [{"type": "sse", "url": "https://x.example/sse"}]}`
	if err := os.WriteFile(filepath.Join(dir, "server.json"), []byte(serverJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "base_url = \"https://example.com\"\n[[servers]]\nimport = \"server.json\"\ntitle = \"Mine\"\n"
	path := filepath.Join(dir, "site.toml")

	_, err := Parse(path, src, nil)
	if err == nil || !strings.Contains(err.Error(), `version "${VERSION}" imported from here is a placeholder`) ||
		!strings.Contains(diag.Hint(diag.List(err)[0]), "version_tags") {
		t.Fatalf("placeholder not reported with its fix: %v", err)
	}
	for name, c := range map[string]func() (*Config, error){
		"--set":     func() (*Config, error) { return Parse(path, src, []string{"servers.imported.version=1.2.3"}) },
		"site.toml": func() (*Config, error) { return Parse(path, src+"version = \"1.2.3\"\n", nil) },
	} {
		cfg, err := c()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := cfg.Servers[0]
		if s.Name != "io.github.x/imported" || s.Title != "Mine" || s.Version != "1.2.3" || len(s.Remotes) != 1 || s.Slug != "imported" {
			t.Errorf("%s: merged identity = %+v", name, s.Identity)
		}
		// A version given with --set is the flag's, not the import's.
		if strings.Join(s.ImportedFields, ",") != "name,description,websiteUrl,remotes" && name == "--set" {
			t.Errorf("imported fields = %v", s.ImportedFields)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "server.json"), []byte("{\n  \"name\": oops\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(path, src, nil); err == nil || !strings.Contains(err.Error(), "server.json:2: invalid JSON") {
		t.Errorf("invalid server.json: %v", err)
	}
}

func TestServerProblemTracesFields(t *testing.T) {
	src := minimal + "[[servers.remotes]]\ntype = \"sse\"\nurl = \"x\"\nsupported_protocol_versions = [\"v1\"]\n"
	c, err := parse(t, src)
	if err != nil {
		t.Fatal(err)
	}
	for jsonPath, want := range map[string]string{
		"description":    "site.toml:4:",
		"remotes[0].url": "site.toml:8:",
		"remotes[0].supportedProtocolVersions[0]": "site.toml:9:",
		"name": "site.toml:3:",
	} {
		if got := c.ServerProblem(0, jsonPath, "m").Error(); !strings.HasPrefix(got, want) {
			t.Errorf("ServerProblem(%s) = %q, want prefix %q", jsonPath, got, want)
		}
	}
}

// A base_url that no DID or URL can be made from is refused, as are paths
// with segments a server would resolve away.
func TestParseBaseURL(t *testing.T) {
	for s, want := range map[string]string{
		"https://example.com/":          "",
		"https://example.com:8443/":     "",
		"http://localhost:1313/":        "",
		"https://example.com/docs/":     "",
		"https://example.com:99999/":    `has port "99999"`,
		"https://example.com:0/":        `has port "0"`,
		"https://example.com:/":         `has port ""`,
		"https://example.com:0443/":     `has port "0443"`,
		"https://example.com:443/":      `default port, which would change the site's DID; write it without: https://example.com/`,
		"http://localhost:80/":          `write it without: http://localhost/`,
		"https://example.com/a/../b/":   `write it as "/b/"`,
		"https://example.com/a/./b/":    `write it as "/a/b/"`,
		"https://example.com//a/":       `write it as "/a/"`,
		"https://example.com/a/%2e%2e/": `write it as "/"`,
	} {
		_, err := ParseBaseURL(s)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", s, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: got %v, want an error containing %s", s, err, want)
		}
	}
}

// A problem with a value given by --set names the flag, never the line of
// site.toml the value replaced.
func TestOverrideProblemsBlameTheFlag(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"base_url=http://example.com/", `--set base_url=http://example.com/: base_url "http://example.com/" must use https`},
		{"servers.weather.version=${VERSION}", `--set servers.weather.version=${VERSION}: server com.example/weather: version "${VERSION}" is a placeholder`},
		{"feed.status=paused", `--set feed.status=paused: feed.status "paused" is not one of`},
	} {
		_, err := parse(t, minimal, tc.set)
		if errs := diag.List(err); len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.want) {
			t.Errorf("--set %s: got %v, want %q", tc.set, err, tc.want)
		}
	}
}

// The adoption settings are checked where they are written.
func TestAdoptionSettings(t *testing.T) {
	const server = "base_url = \"https://example.com\"\n%s\n[[servers]]\nname = \"a/b\"\ndescription = \"B.\"\nversion = \"1.0.0\"\ntools = \"t/*.json\"\n%s\n"
	for _, tc := range []struct{ site, server, want string }{
		{`history_from = "2025-01-31"`, `history_from = "2025-06-01T12:00:00Z"`, ""},
		{`history_from = "v1.2.0"`, `exclude = ["**/*_ff_*.json"]`, ""},
		{"", `version_tags = "v*"`, ""},
		{`history_from = "last week"`, "", `site.toml:2: history_from "last week" is neither a date (2025-01-31) nor a commit`},
		{"", `history_from = "--all"`, `site.toml:8: history_from "--all" is neither a date`},
		{"", `exclude = ["[x"]`, `site.toml:8: exclude glob "[x" is malformed`},
		{"", `version_tags = "v[1"`, `site.toml:8: version_tags pattern "v[1" is malformed`},
	} {
		_, err := parse(t, fmt.Sprintf(server, tc.site, tc.server))
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s / %s: %v, want %q", tc.site, tc.server, err, tc.want)
		}
	}
}
