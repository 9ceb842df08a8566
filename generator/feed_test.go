package generator

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed/atom"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

const fixtureSite = `base_url = "https://weather.example.com/"
title = "Fixture Weather"

[[servers]]
name = "com.example.weather/forecast"
description = "Forecasts."
version = "%s"
tools = "tools/**/*.json"

[[servers.remotes]]
type = "streamable-http"
url = "https://weather.example.com/mcp"
`

// The fixture's tool, as it evolves.
const (
	forecastV1 = `{
  "name": "get_forecast",
  "description": "Forecast for a city.",
  "inputSchema": {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"]
  }
}
`
	forecastOptional = `{
  "name": "get_forecast",
  "description": "Forecast for a city.",
  "inputSchema": {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"]
  }
}
`
	forecastRenamed = `{
  "name": "get_forecast",
  "description": "Forecast for a city.",
  "inputSchema": {
    "type": "object",
    "properties": {"location": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["location"]
  }
}
`
	forecastRetyped = `{
  "name": "get_forecast",
  "description": "Forecast for a city.",
  "inputSchema": {
    "type": "object",
    "properties": {"location": {"type": "string"}, "days": {"type": "string"}},
    "required": ["location"]
  }
}
`
	forecastRequired = `{
  "name": "get_forecast",
  "description": "Forecast for a city.",
  "inputSchema": {
    "type": "object",
    "properties": {"location": {"type": "string"}, "days": {"type": "string"}, "units": {"type": "string"}},
    "required": ["location", "units"]
  }
}
`
	forecastDescribed = `{
  "name": "get_forecast",
  "description": "Daily forecast for a place.",
  "inputSchema": {
    "type": "object",
    "properties": {"location": {"type": "string"}, "days": {"type": "string"}, "units": {"type": "string"}},
    "required": ["location", "units"]
  }
}
`
	forecastReformatted = `{"name":"get_forecast","description":"Daily forecast for a place.","inputSchema":{"type":"object","required":["location","units"],"properties":{"units":{"type":"string"},"location":{"type":"string"},"days":{"type":"string"}}}}`
	alertsV1            = `{"name": "list_alerts", "description": "Alerts.", "inputSchema": {"type": "object"}}`
	alertsV2            = `{"name": "list_alerts", "description": "Active alerts for a region.", "inputSchema": {"type": "object"}}`
)

// fixtureRepo builds the story the feed is tested against, one commit per
// step, and returns the site.toml path.
func fixtureRepo(t *testing.T) (*gittest.Repo, string) {
	t.Helper()
	g := gittest.New(t, t.TempDir())
	site := func(version string) { g.Write("site.toml", strings.Replace(fixtureSite, "%s", version, 1)) }
	site("1.0.0")
	g.Write("tools/get_forecast.json", forecastV1)
	g.Commit("tool added")
	g.Write("tools/get_forecast.json", forecastOptional)
	g.Commit("optional parameter added")
	g.Write("tools/get_forecast.json", forecastRenamed)
	g.Commit("parameter renamed")
	g.Write("tools/get_forecast.json", forecastRetyped)
	g.Commit("parameter retyped")
	g.Write("tools/get_forecast.json", forecastRequired)
	g.Commit("required parameter added")
	g.Write("tools/get_forecast.json", forecastDescribed)
	g.Commit("description edited")
	g.Write("tools/forecast/get_forecast.json", forecastDescribed)
	g.Git("rm", "-q", "tools/get_forecast.json")
	g.Commit("file moved")
	g.Write("tools/forecast/get_forecast.json", forecastReformatted)
	g.Commit("formatting only")

	g.Git("checkout", "-q", "-b", "alerts")
	g.Write("tools/list_alerts.json", alertsV1)
	g.Commit("alerts tool, first draft")
	g.Write("tools/list_alerts.json", alertsV2)
	g.Commit("alerts tool, reviewed")
	g.Git("checkout", "-q", "main")
	g.When = g.When.Add(time.Hour)
	g.Git("merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge the alerts tool", "alerts")

	g.Git("rm", "-q", "tools/forecast/get_forecast.json")
	site("1.1.0")
	g.Commit("tool removed, server 1.1.0")
	g.Write("tools/forecast/get_forecast.json", forecastDescribed)
	g.Commit("tool re-added")
	return g, filepath.Join(g.Dir, "site.toml")
}

// Every step of the story gives the entry it must, with the
// right versions, migration and classification.
func TestFeedFromHistory(t *testing.T) {
	_, config := fixtureRepo(t)
	res := build(t, config)
	type want struct{ typ, endpoint, versions, compat, migration, at string }
	const tool = "com.example.weather/forecast#get_forecast"
	wants := []want{
		{"endpoint-announcement", "com.example.weather/forecast", "1.0.0", "", "", "2026-04-01T10:00:00Z"},
		{"endpoint-announcement", tool, "1.0.0", "", "", "2026-04-01T10:00:00Z"},
		{"schema-change", tool, "1.0.0>1.1.0", "compatible", `{"add":["/inputSchema/properties/days"]}`, "2026-04-01T11:00:00Z"},
		{"schema-change", tool, "1.1.0>2.0.0", "breaking", `{"rename":{"/inputSchema/properties/city":"/inputSchema/properties/location"}}`, "2026-04-01T12:00:00Z"},
		{"schema-change", tool, "2.0.0>3.0.0", "breaking", `{"retype":{"/inputSchema/properties/days":{"from":"number","to":"string"}}}`, "2026-04-01T13:00:00Z"},
		{"schema-change", tool, "3.0.0>4.0.0", "breaking", `{"add":["/inputSchema/properties/units"]}`, "2026-04-01T14:00:00Z"},
		{"schema-change", tool, "4.0.0>4.0.1", "cosmetic", `{}`, "2026-04-01T15:00:00Z"},
		// the move and the reformatting give nothing; the merge gives the branch's final state at merge time
		{"endpoint-announcement", "com.example.weather/forecast#list_alerts", "1.0.0", "", "", "2026-04-01T20:00:00Z"},
		{"endpoint-announcement", "com.example.weather/forecast", "1.1.0", "", "", "2026-04-01T21:00:00Z"},
		{"deprecation", tool, "", "", "", "2026-04-01T21:00:00Z"},
		{"endpoint-announcement", tool, "4.0.1", "", "", "2026-04-01T22:00:00Z"},
	}
	if len(res.Entries) != len(wants) {
		t.Fatalf("%d entries, want %d:\n%s", len(res.Entries), len(wants), summaries(res.Entries))
	}
	ids := map[string]bool{}
	for i, e := range res.Entries {
		w := wants[i]
		var p map[string]any
		if err := json.Unmarshal(e.Content, &p); err != nil {
			t.Fatal(err)
		}
		versions, _ := p["version"].(string)
		if p["from-version"] != nil {
			versions = p["from-version"].(string) + ">" + p["to-version"].(string)
		}
		compat, _ := p["x-compat"].(string)
		migration := ""
		if m, ok := p["migration"]; ok {
			data, _ := json.Marshal(m)
			migration = string(data)
		}
		at := e.Updated
		if e.Type != w.typ || p["endpoint-id"] != w.endpoint || versions != w.versions || compat != w.compat || migration != w.migration || at != w.at {
			t.Errorf("entry %d = %s %v %s %s %s %s\nwant %+v", i, e.Type, p["endpoint-id"], versions, compat, migration, at, w)
		}
		if ids[e.ID] {
			t.Errorf("entry id %s is used twice", e.ID)
		}
		ids[e.ID] = true
	}
	removal := payload(t, res.Entries[9])
	if removal["announced-at"] != "2026-04-01T21:00:00Z" || removal["sunset"] != "2026-04-01T21:00:00Z" || removal["replacement"] != nil {
		t.Errorf("removal = %v", removal)
	}
}

func payload(t *testing.T, e agentfeed.Entry) map[string]any {
	var p map[string]any
	if err := json.Unmarshal(e.Content, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// datedSummaries lists each entry's time and summary.
func datedSummaries(entries []agentfeed.Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Updated+" "+e.Summary)
	}
	return out
}

func summaries(entries []agentfeed.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.Updated + " " + e.Type + " " + e.Summary + "\n")
	}
	return b.String()
}

// The fixture's feed was reviewed by hand once; any change to it shows here.
// Run with -update to accept a reviewed change.
func TestFeedGolden(t *testing.T) {
	_, config := fixtureRepo(t)
	checkGolden(t, "fixture-feed.xml", mustGet(t, build(t, config), paths.Feed))
}

// checkGolden compares got with the golden file testdata/name, which -update
// rewrites.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file %s (run go test -update after review):\n%s", name, golden, got)
	}
}

// The cards, the snapshot and the archive come from one replayed state.
func TestCardsSnapshotArchiveAgree(t *testing.T) {
	_, config := fixtureRepo(t)
	res := build(t, config)
	var snapshot struct {
		Endpoints []struct {
			ID       string `json:"endpoint-id"`
			Version  string `json:"version"`
			Endpoint string `json:"endpoint"`
		} `json:"endpoints"`
	}
	if err := json.Unmarshal(mustGet(t, res, paths.Snapshot), &snapshot); err != nil {
		t.Fatal(err)
	}
	var card struct{ Name, Version string }
	json.Unmarshal(mustGet(t, res, paths.ServerCardOf("forecast")), &card)
	latestSHA := map[string]string{}
	for _, e := range res.Entries {
		if sha, ok := payload(t, e)["x-schema-sha256"].(string); ok {
			latestSHA[payload(t, e)["endpoint-id"].(string)] = sha
		}
	}
	checked := 0
	for _, ep := range snapshot.Endpoints {
		server, tool, isTool := strings.Cut(ep.ID, "#")
		if !isTool {
			if ep.ID != card.Name || ep.Version != card.Version {
				t.Errorf("snapshot has %s %s, the card %s %s", ep.ID, ep.Version, card.Name, card.Version)
			}
			continue
		}
		archived := mustGet(t, res, paths.ToolVersion("forecast", tool, ep.Version))
		sum := sha256.Sum256(archived)
		if hex.EncodeToString(sum[:]) != latestSHA[ep.ID] {
			t.Errorf("%s: archive %s does not hash to the signed x-schema-sha256", ep.ID, ep.Version)
		}
		if server != card.Name {
			t.Errorf("tool %s belongs to no card", ep.ID)
		}
		checked++
	}
	if checked != 2 {
		t.Errorf("checked %d tools in the snapshot, want 2", checked)
	}
	// Every version of every tool is archived.
	for _, v := range []string{"1.0.0", "1.1.0", "2.0.0", "3.0.0", "4.0.0", "4.0.1"} {
		mustGet(t, res, paths.ToolVersion("forecast", "get_forecast", v))
	}
}

// A verifier written here with only encoding/xml and crypto/ed25519 (no
// code shared with the signer) accepts every entry, and an independent Atom
// parser reads the feed.
func TestFeedVerifiesIndependently(t *testing.T) {
	_, config := fixtureRepo(t)
	verifyIndependently(t, build(t, config))
}

// verifyIndependently checks a build's feed with an Atom parser and
// ed25519 from the standard library, against the key did.json publishes.
func verifyIndependently(t *testing.T, res *Result) {
	t.Helper()
	var did struct {
		VerificationMethod []struct{ ID, PublicKeyMultibase string }
	}
	json.Unmarshal(mustGet(t, res, "/.well-known/did.json"), &did)
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(did.VerificationMethod[0].PublicKeyMultibase, "u"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Entries []struct {
			ID      string `xml:"id"`
			Content string `xml:"content"`
			Sig     string `xml:"https://agent-feed.dev/ns/v0 sig"`
			Signer  string `xml:"https://agent-feed.dev/ns/v0 signer"`
		} `xml:"entry"`
	}
	feed := mustGet(t, res, paths.Feed)
	if err := xml.Unmarshal(feed, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Entries) != len(res.Entries) || len(doc.Entries) == 0 {
		t.Fatalf("independent parse found %d entries, want %d", len(doc.Entries), len(res.Entries))
	}
	for _, e := range doc.Entries {
		sig, err := base64.RawURLEncoding.DecodeString(e.Sig)
		if err != nil || !ed25519.Verify(ed25519.PublicKey(raw), []byte(e.Content), sig) {
			t.Errorf("entry %s does not verify", e.ID)
		}
		if e.Signer != did.VerificationMethod[0].ID {
			t.Errorf("entry %s af:signer = %s, want %s", e.ID, e.Signer, did.VerificationMethod[0].ID)
		}
	}
	parsed, err := (&atom.Parser{}).Parse(bytes.NewReader(feed))
	if err != nil {
		t.Fatal(err)
	}
	if parsed.ID == "" || parsed.Title == "" || parsed.Updated == "" || len(parsed.Authors) == 0 || len(parsed.Entries) != len(res.Entries) {
		t.Errorf("Atom feed lacks required elements: %+v", parsed)
	}
	for _, e := range parsed.Entries {
		if e.ID == "" || e.Title == "" || e.Updated == "" {
			t.Errorf("Atom entry lacks id, title or updated: %+v", e)
		}
	}
}

// Rewriting published history is caught by --previous. Entry ids do not
// depend on commit hashes: amending a commit keeps its entries' ids, and the
// guard reports their changed times as changed payloads, not as new entries.
func TestAppendOnlyGuard(t *testing.T) {
	g, config := fixtureRepo(t)
	published := filepath.Join(t.TempDir(), "agent-feed.xml")
	if err := os.WriteFile(published, mustGet(t, build(t, config), paths.Feed), 0o644); err != nil {
		t.Fatal(err)
	}

	// The same content at a new hash and time.
	g.When = g.When.Add(time.Hour)
	g.Git("commit", "-q", "--amend", "--no-gpg-sign", "--no-edit", "--date", g.When.Format("2006-01-02T15:04:05Z"))
	_, err := Build(Options{ConfigPath: config, Getenv: testEnv, Previous: published})
	if errs := diag.List(err); len(errs) != 1 || !strings.Contains(errs[0].Error(), "get_forecast 4.0.1 on com.example.weather/forecast) would change its payload") {
		t.Errorf("after an amend, guard = %v; want exactly the amended commit's entry, changed", err)
	}

	// A rewritten history: the last two commits replaced by a different change.
	g.Git("reset", "-q", "--hard", "HEAD~2")
	g.Write("tools/forecast/get_forecast.json", forecastV1)
	g.Commit("rewritten")
	_, err = Build(Options{ConfigPath: config, Getenv: testEnv, Previous: published})
	if err == nil {
		t.Fatal("a rewritten history passed the append-only guard")
	}
	for _, want := range []string{"get_forecast 4.0.1 removed from com.example.weather/forecast) would disappear", "restore the history"} {
		if !strings.Contains(err.Error()+hints(err), want) {
			t.Errorf("guard error lacks %q:\n%v", want, err)
		}
	}
}

// hints joins the hints of every problem of err.
func hints(err error) string {
	var b strings.Builder
	for _, e := range diag.List(err) {
		b.WriteString(diag.Hint(e) + "\n")
	}
	return b.String()
}

// --previous reads the live feed over http(s): a 404 (the first deploy)
// is a notice, and a rewritten history is caught as with a file.
func TestAppendOnlyGuardOverHTTP(t *testing.T) {
	g, config := fixtureRepo(t)
	published := mustGet(t, build(t, config), paths.Feed)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case paths.Feed:
			w.Write(published)
		case "/moved":
			http.Redirect(w, r, "http://feed.example/agent-feed.xml", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	res, err := Build(Options{ConfigPath: config, Getenv: testEnv, Previous: srv.URL + "/nothing-yet.xml"})
	if err != nil || !slices.ContainsFunc(res.Notices, func(w string) bool { return strings.Contains(w, "nothing published yet") }) {
		t.Errorf("a 404: %v, notices %q", err, res.Notices)
	}
	for _, tc := range []struct{ url, want string }{
		{"http://feed.example/agent-feed.xml", "fetched over https"},
		{srv.URL + "/moved", "fetched over https"},
	} {
		if _, err := Build(Options{ConfigPath: config, Getenv: testEnv, Previous: tc.url}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--previous %s: %v, want an error containing %q", tc.url, err, tc.want)
		}
	}
	if _, err := Build(Options{ConfigPath: config, Getenv: testEnv, Previous: srv.URL + paths.Feed}); err != nil {
		t.Errorf("the unchanged history: %v", err)
	}
	g.Git("reset", "-q", "--hard", "HEAD~1")
	if _, err := Build(Options{ConfigPath: config, Getenv: testEnv, Previous: srv.URL + paths.Feed}); err == nil || !strings.Contains(err.Error(), "would disappear") {
		t.Errorf("a rewritten history: %v", err)
	}
}

// Histories that went wrong for a while: the feed keeps to what the site
// published.
func TestHistoryMishaps(t *testing.T) {
	const server = `
[[servers]]
name = "com.example/weather"
description = "Weather."
version = "1.0.0"
tools = "tools/*.json"
`
	base := "base_url = \"https://example.com/\"\n"
	tool := func(prop string) string {
		return `{"name": "a", "inputSchema": {"type": "object", "properties": {"` + prop + `": {"type": "string"}}}}`
	}

	t.Run("a server leaves site.toml and comes back", func(t *testing.T) {
		g := gittest.New(t, t.TempDir())
		g.Write("site.toml", base+server)
		g.Write("tools/a.json", tool("x"))
		g.Commit("server with a{x}")
		g.Write("site.toml", base)
		g.Commit("server removed")
		g.Write("tools/a.json", tool("y"))
		g.Commit("a changes while the server is away")
		g.Write("site.toml", base+server)
		g.Commit("server back")
		res, err := Build(Options{ConfigPath: filepath.Join(g.Dir, "site.toml"), Getenv: testEnv, Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		// The change leaves from the version a reader holds; the return
		// announces the version it leads to.
		change, back := payload(t, res.Entries[len(res.Entries)-2]), payload(t, res.Entries[len(res.Entries)-1])
		if change["endpoint-id"] != "com.example/weather#a" || change["from-version"] != "1.0.0" || change["to-version"] != "2.0.0" ||
			back["endpoint-id"] != "com.example/weather#a" || back["version"] != "2.0.0" {
			t.Errorf("the last entries are %v and %v, want a's change to 2.0.0, then its announcement, when the server came back\n%s", change, back, summaries(res.Entries))
		}
	})

	t.Run("a commit with a broken import", func(t *testing.T) {
		g := gittest.New(t, t.TempDir())
		g.Write("server.json", `{"name": "com.example/weather", "description": "Weather.", "version": "1.0.0"}`)
		g.Write("site.toml", base+"[[servers]]\nimport = \"server.json\"\ntools = \"tools/*.json\"\n")
		g.Write("tools/a.json", tool("x"))
		g.Commit("imported server")
		g.Write("server.json", `{"name": "com.example/weather",`)
		g.Commit("broken import")
		g.Write("server.json", `{"name": "com.example/weather", "description": "Weather.", "version": "1.0.0"}`)
		g.Commit("repaired")
		res, err := Build(Options{ConfigPath: filepath.Join(g.Dir, "site.toml"), Getenv: testEnv})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Entries) != 2 {
			t.Errorf("entries:\n%s want the two announcements only", summaries(res.Entries))
		}
		if !slices.ContainsFunc(res.Warnings, func(w *diag.Error) bool { return strings.Contains(w.Msg, "site.toml is left out of the feed") }) {
			t.Errorf("no warning about the broken commit: %q", res.Warnings)
		}
	})

	t.Run("a server's slug changes", func(t *testing.T) {
		g := gittest.New(t, t.TempDir())
		g.Write("site.toml", base+server)
		g.Write("tools/a.json", tool("x"))
		g.Commit("weather")
		g.Write("site.toml", base+strings.Replace(server, "tools = ", "slug = \"forecast\"\ntools = ", 1))
		g.Write("tools/a.json", tool("y"))
		g.Commit("slug forecast")
		res, err := Build(Options{ConfigPath: filepath.Join(g.Dir, "site.toml"), Getenv: testEnv})
		if err != nil {
			t.Fatal(err)
		}
		// Published URLs stay where they were published.
		mustGet(t, res, paths.ToolVersion("weather", "a", "1.0.0"))
		mustGet(t, res, paths.ToolVersion("forecast", "a", "2.0.0"))
	})

	t.Run("a commit that configured a server twice", func(t *testing.T) {
		g := gittest.New(t, t.TempDir())
		g.Write("site.toml", base+server)
		g.Write("tools/a.json", tool("x"))
		g.Commit("server")
		g.Write("site.toml", base+server+server)
		g.Commit("oops")
		g.Write("site.toml", base+server)
		g.Commit("fixed")
		res, err := Build(Options{ConfigPath: filepath.Join(g.Dir, "site.toml"), Getenv: testEnv})
		if err != nil {
			t.Fatalf("a past mistake fails every build: %v", err)
		}
		if len(res.Entries) != 2 || !slices.ContainsFunc(res.Warnings, func(w *diag.Error) bool { return strings.Contains(w.Msg, "configured twice") }) {
			t.Errorf("entries:\n%s warnings %q", summaries(res.Entries), res.Warnings)
		}
	})

	t.Run("a past tool file over the limits", func(t *testing.T) {
		g := gittest.New(t, t.TempDir())
		g.Write("site.toml", base+server)
		g.Write("tools/a.json", tool("x"))
		g.Commit("server")
		deep := strings.Repeat("[", tools.MaxDepth) + strings.Repeat("]", tools.MaxDepth)
		g.Write("tools/a.json", `{"name": "a", "inputSchema": {"type": "object", "x": `+deep+`}}`)
		g.Commit("too deep")
		hash := strings.TrimSpace(g.Git("rev-parse", "--short=12", "HEAD"))
		g.Write("tools/a.json", tool("y"))
		g.Commit("fixed")
		_, err := Build(Options{ConfigPath: filepath.Join(g.Dir, "site.toml"), Getenv: testEnv})
		want := "commit " + hash + ": tools/a.json:1: objects and arrays nest more than 64 deep (the limit)"
		if err == nil || err.Error() != want {
			t.Errorf("Build = %v\nwant %s", err, want)
		}
	})

	// A blob over the size limit is refused by its size, before it is read:
	// no build holds it in memory.
	t.Run("a past tool file over the size limit", func(t *testing.T) {
		g := gittest.New(t, t.TempDir())
		g.Write("site.toml", base+server)
		g.Write("tools/a.json", tool("x"))
		g.Commit("server")
		g.Write("tools/a.json", strings.Repeat(" ", 3*tools.MaxFileBytes)+tool("x"))
		g.Commit("padded")
		hash := strings.TrimSpace(g.Git("rev-parse", "--short=12", "HEAD"))
		g.Write("tools/a.json", tool("y"))
		g.Commit("fixed")
		_, err := Build(Options{ConfigPath: filepath.Join(g.Dir, "site.toml"), Getenv: testEnv})
		want := fmt.Sprintf("commit %s: tools/a.json: tool file is %d bytes; the limit is %d", hash, 3*tools.MaxFileBytes+len(tool("x")), tools.MaxFileBytes)
		if err == nil || err.Error() != want {
			t.Errorf("Build = %v\nwant %s", err, want)
		}
	})

	t.Run("a past site.toml over the size limit", func(t *testing.T) {
		g := gittest.New(t, t.TempDir())
		g.Write("site.toml", base+server+"# "+strings.Repeat("x", tools.MaxFileBytes)+"\n")
		g.Write("tools/a.json", tool("x"))
		g.Commit("a huge comment")
		g.Write("site.toml", base+server)
		g.Commit("fixed")
		_, err := Build(Options{ConfigPath: filepath.Join(g.Dir, "site.toml"), Getenv: testEnv})
		if err == nil || !strings.HasPrefix(err.Error(), "site.toml: a version of this file in git history (blob ") || !strings.HasSuffix(err.Error(), fmt.Sprintf("; the limit is %d", tools.MaxFileBytes)) {
			t.Errorf("Build = %v", err)
		}
	})
}

// A server's tools may live in another local repository (repo = in
// site.toml): its history is read there and interleaved with the site's by
// commit time.
func TestToolsInAnotherRepository(t *testing.T) {
	root := t.TempDir()
	tools := gittest.New(t, filepath.Join(root, "weather-server"))
	site := gittest.New(t, filepath.Join(root, "site"))
	site.Write("site.toml", `base_url = "https://example.com/"
[[servers]]
name = "com.example/weather"
description = "Weather."
version = "1.0.0"
repo = "../weather-server"
tools = "schemas/*.json"
`)
	site.Commit("the site") // 10:00
	tools.When = site.When
	tools.Write("schemas/a.json", `{"name": "a", "inputSchema": {"type": "object"}}`)
	tools.Commit("tool a") // 11:00
	site.When = tools.When
	site.Write("site.toml", strings.Replace(site.Git("show", "HEAD:site.toml"), `version = "1.0.0"`, `version = "1.1.0"`, 1))
	site.Commit("server 1.1.0") // 12:00
	tools.When = site.When
	tools.Write("schemas/a.json", `{"name": "a", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}`)
	tools.Commit("a takes q") // 13:00

	res, err := Build(Options{ConfigPath: filepath.Join(site.Dir, "site.toml"), Getenv: testEnv, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	got := datedSummaries(res.Entries)
	want := []string{
		"2026-04-01T10:00:00Z com.example/weather 1.0.0 at " + res.Config.URL("/mcp/weather/server-card.json"),
		"2026-04-01T11:00:00Z a 1.0.0 on com.example/weather",
		"2026-04-01T12:00:00Z com.example/weather 1.1.0 at " + res.Config.URL("/mcp/weather/server-card.json"),
		"2026-04-01T13:00:00Z a 1.0.0 → 1.1.0 (compatible): new optional parameter `q`",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Every entry is titled for people and links to a page of the site that
// exists, and the feed links to the changelog: what a feed reader shows.
func TestFeedLinksToPages(t *testing.T) {
	_, config := fixtureRepo(t)
	res := build(t, config)
	doc := mustGet(t, res, paths.Feed)
	if bytes.Contains(doc, []byte("&")) {
		t.Error("the feed holds a character or entity reference, which the reference reader counts against its limit")
	}
	feed, err := agentfeed.Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	base := res.Config.URL("/")
	page := func(url string) bool {
		path, ok := strings.CutPrefix(url, base)
		if !ok {
			return false
		}
		_, ok = res.Bundle.Get("/" + path + "index.html")
		return ok
	}
	if feed.AlternateURL != base+"changelog/" || !page(feed.AlternateURL) {
		t.Errorf("the feed links to %q, want the changelog page", feed.AlternateURL)
	}
	for _, e := range feed.Entries {
		if e.Title == "" || e.Title == e.Type {
			t.Errorf("entry %s is titled %q", e.ID, e.Title)
		}
		if !page(e.Link) {
			t.Errorf("entry %s (%s) links to %q, which is no page of the site", e.ID, e.Title, e.Link)
		}
		endpoint, _ := payload(t, e)["endpoint-id"].(string)
		_, tool, isTool := strings.Cut(endpoint, "#")
		if isTool != strings.HasSuffix(e.Link, "/tools/"+tool+"/") {
			t.Errorf("entry %s about %s links to %s", e.ID, endpoint, e.Link)
		}
	}
}
