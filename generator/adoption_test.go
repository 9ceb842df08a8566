package generator

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/command/verify"
	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// A server repository with more than a year of tool history gets site.toml
// in its last commit: the feed holds that whole history, exactly as if
// site.toml had been there from the first commit, and as when the site
// lives in its own repository.
func TestAdoptingAnExistingRepository(t *testing.T) {
	last := build(t, gittest.NewAdoption(t, gittest.AdoptionStory{}).Config)

	counts := map[string]int{}
	for _, e := range last.Entries {
		counts[e.Type]++
	}
	// 5 first tools, 18 added later, search_code's return, and the server at
	// each of its 4 releases; one change per story step that changes a
	// schema; search_code's removal.
	want := map[string]int{agentfeed.TypeAnnouncement: 28, agentfeed.TypeSchemaChange: 102, agentfeed.TypeDeprecation: 1}
	if !maps.Equal(counts, want) {
		t.Errorf("entries by type = %v, want %v\n%s", counts, want, summaries(last.Entries))
	}
	if len(last.Warnings) != 0 {
		t.Errorf("warnings: %q", last.Warnings)
	}
	// server.json says "${VERSION}": the versions are the release tags',
	// announced at the tagged commits (which change no tool).
	var releases []string
	for _, e := range last.Entries {
		if strings.HasPrefix(e.Summary, "io.github.acme/tracker ") {
			releases = append(releases, e.Updated+" "+strings.Fields(e.Summary)[1])
		}
		if strings.Contains(string(e.Content), "${") {
			t.Errorf("entry %s signs a placeholder", e.ID)
		}
	}
	wantReleases := "2025-04-03T10:00:00Z 0.1.0, 2025-07-02T10:00:00Z 0.2.0, 2025-09-30T10:00:00Z 0.3.0, 2025-12-29T10:00:00Z 0.4.0"
	if got := strings.Join(releases, ", "); got != wantReleases {
		t.Errorf("server announcements: %s\nwant %s", got, wantReleases)
	}
	if card := string(mustGet(t, last, paths.ServerCardOf("tracker"))); !strings.Contains(card, `"version": "0.4.0"`) {
		t.Errorf("the Server Card does not carry the last release:\n%s", card)
	}

	versions := func(res *Result, tool string) string {
		var out []string
		for _, v := range res.Timeline.Servers[0].Tool(tool).Versions() {
			out = append(out, v.Time.Format(time.DateOnly)+" "+v.Version)
		}
		return strings.Join(out, ", ")
	}
	for tool, want := range map[string]string{
		// Its feature-flag variant (left out by exclude) changes nothing.
		"get_me": "2025-01-06 1.0.0, 2025-01-09 1.1.0, 2025-01-12 2.0.0, 2025-01-15 3.0.0, 2025-01-18 4.0.0, 2025-01-21 4.0.1",
		// Removed on 2025-05-21, back on 2025-09-18 with a new parameter.
		"search_code": "2025-01-06 1.0.0, 2025-03-04 1.1.0, 2025-03-07 2.0.0, 2025-03-10 3.0.0, 2025-03-13 4.0.0, 2025-03-16 4.0.1, 2025-09-18 4.1.0",
		// Moved into repos/ on 2025-07-05: nothing to say.
		"get_file": "2025-01-06 1.0.0, 2025-03-22 1.1.0, 2025-03-25 2.0.0, 2025-03-28 3.0.0, 2025-03-31 4.0.0, 2025-04-03 4.0.1",
	} {
		if got := versions(last, tool); got != want {
			t.Errorf("%s versions:\n got %s\nwant %s", tool, got, want)
		}
	}

	// The tool page tells search_code's whole life.
	page := string(mustGet(t, last, "/servers/tracker/tools/search_code/index.html"))
	for _, want := range []string{"<time datetime=\"2025-05-21T09:00:00Z\">2025-05-21</time> <span class=\"badge badge-removed\">removed</span>",
		"Removed from the server at version 4.0.1.", "<span class=\"badge badge-back\">back</span>", "Back on the server at version 4.1.0."} {
		if !strings.Contains(page, want) {
			t.Errorf("search_code's page lacks %q", want)
		}
	}

	verifyIndependently(t, last)
	out := filepath.Join(t.TempDir(), "public")
	if err := last.Write(out, true); err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Verify(context.Background(), verify.Options{Target: out, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.Warnings != 0 || rep.Origins[0].Verified != len(last.Entries) {
		t.Errorf("verify: ok %v, %d warnings, %d of %d entries verified", rep.OK, rep.Warnings, rep.Origins[0].Verified, len(last.Entries))
		for _, f := range rep.Origins[0].Findings {
			t.Logf("%+v", f)
		}

	}
	if n := len(archived(last)); n != 25+102-2 { // every version; the server and search_code's return archive nothing new
		t.Errorf("%d archived versions", n)
	}

	for name, opt := range map[string]gittest.AdoptionStory{
		"site.toml in the first commit":      {SiteFirst: true},
		"site.toml in a separate repository": {Separate: true},
	} {
		t.Run(name, func(t *testing.T) {
			other := build(t, gittest.NewAdoption(t, opt).Config)
			if len(other.Warnings) != 0 {
				t.Errorf("warnings: %q", other.Warnings)
			}
			for _, f := range last.Bundle.Files() {
				if strings.HasSuffix(f.Path, ".html") {
					continue // pages link commits, whose hashes differ
				}
				if got, ok := other.Bundle.Get(f.Path); !ok || !bytes.Equal(got.Body, f.Body) {
					t.Errorf("%s differs", f.Path)
				}
			}
			if got, want := len(other.Entries), len(last.Entries); got != want || !slices.Equal(archived(other), archived(last)) {
				t.Errorf("%d entries, want %d; archives %v, want %v", got, want, archived(other), archived(last))
			}
		})
	}
}

// archived lists the paths of a build's archived tool versions.
func archived(res *Result) []string {
	var out []string
	for _, f := range res.Bundle.Files() {
		if strings.HasPrefix(f.Path, "/.well-known/mcp/schemas/") {
			out = append(out, f.Path)
		}
	}
	return out
}

// adoptionTool is a tool file of the small adoption stories below.
func adoptionTool(name, prop string) string {
	return `{"name": "` + name + `", "inputSchema": {"type": "object", "properties": {"` + prop + `": {"type": "string"}}}}`
}

const adoptionServer = `
[[servers]]
name = "com.example/weather"
description = "Weather."
version = "1.0.0"
tools = "tools/**/*.json"
`

// The smaller cases of adoption: site.toml not committed yet, a server
// added to an established site, history_from.
func TestBackfill(t *testing.T) {
	base := "base_url = \"https://example.com/\"\n"
	// history: a{x} on day 1, a{y} on day 2, b on day 3.
	tools := func(t *testing.T) *gittest.Repo {
		g := gittest.New(t, t.TempDir())
		g.Write("tools/a.json", adoptionTool("a", "x"))
		g.Commit("a")
		g.When = g.When.Add(24 * time.Hour)
		g.Write("tools/a.json", adoptionTool("a", "y"))
		g.Commit("a takes y")
		g.When = g.When.Add(24 * time.Hour)
		g.Write("tools/b.json", adoptionTool("b", "x"))
		g.Commit("b")
		return g
	}

	t.Run("site.toml not committed yet", func(t *testing.T) {
		g := tools(t)
		g.Write("site.toml", base+adoptionServer)
		res := build(t, filepath.Join(g.Dir, "site.toml"))
		if len(res.Entries) != 4 || res.Entries[0].Updated != "2026-04-01T10:00:00Z" {
			t.Errorf("entries:\n%s want the server, a, a's change and b, from the first commit", summaries(res.Entries))
		}
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Msg, "site.toml is not committed yet") {
			t.Errorf("warnings %q, want one saying the feed is a preview", res.Warnings)
		}
	})

	t.Run("a server added to an established site", func(t *testing.T) {
		g := tools(t)
		other := gittest.New(t, filepath.Join(g.Dir, "..", "alerts"))
		other.When = g.When.Add(-72 * time.Hour)
		other.Write("schemas/list_alerts.json", adoptionTool("list_alerts", "region"))
		other.Commit("alerts")
		g.Write("site.toml", base+adoptionServer)
		g.Commit("the site")
		config := filepath.Join(g.Dir, "site.toml")
		published := filepath.Join(t.TempDir(), "agent-feed.xml")
		if err := os.WriteFile(published, mustGet(t, build(t, config), paths.Feed), 0o644); err != nil {
			t.Fatal(err)
		}
		g.Write("site.toml", base+adoptionServer+`
[[servers]]
name = "com.example/alerts"
description = "Alerts."
version = "2.0.0"
repo = "../alerts"
tools = "schemas/*.json"
`)
		g.Commit("the alerts server joins")
		res, err := Build(Options{ConfigPath: config, Getenv: testEnv, Previous: published, Strict: true})
		if err != nil {
			t.Fatalf("backfilled entries of a new server are appends: %v", err)
		}
		var alerts []string
		for _, e := range res.Entries {
			if strings.Contains(e.Summary, "alerts") {
				alerts = append(alerts, e.Updated+" "+e.Summary)
			}
		}
		// Its tool's history is backfilled; its pinned version is true from
		// the commit that pins it, and its repository has no release tags.
		if len(alerts) != 2 || !strings.HasPrefix(alerts[0], "2026-03-31T13:00:00Z list_alerts 1.0.0") ||
			!strings.HasPrefix(alerts[1], "2026-04-03T14:00:00Z com.example/alerts 2.0.0 at") {
			t.Errorf("alerts entries %q, want its tool dated at its first commit, before the site, and the server at the commit that configures it", alerts)
		}
		if !slices.ContainsFunc(res.Notices, func(n string) bool {
			return strings.Contains(n, "server com.example/alerts: ../alerts has no release tags")
		}) {
			t.Errorf("notices %q, want one saying where the server's versions come from", res.Notices)
		}
	})

	// Which files are tools is read at each commit, and before site.toml
	// from its first version: a directory moved with git mv, its glob
	// changed in the same commit, removes nothing.
	t.Run("a tools glob that follows a move", func(t *testing.T) {
		g := tools(t)
		g.Write("site.toml", base+adoptionServer)
		g.Commit("the site")
		g.Git("mv", "tools", "mcp")
		g.Write("site.toml", base+strings.Replace(adoptionServer, `"tools/**/*.json"`, `"mcp/**/*.json"`, 1))
		g.Commit("tools move to mcp/")
		res, err := Build(Options{ConfigPath: filepath.Join(g.Dir, "site.toml"), Getenv: testEnv, Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := summaries(res.Entries); strings.Count(got, "\n") != 4 || strings.Contains(got, "removed") {
			t.Errorf("entries\n%s want the server, a, a's change and b, and no removal", got)
		}
	})

	t.Run("history_from", func(t *testing.T) {
		g := tools(t)
		second := strings.TrimSpace(g.Git("rev-parse", "HEAD~1"))
		for _, from := range []string{`history_from = "2026-04-02"`, `history_from = "` + second[:10] + `"`} {
			g.Write("site.toml", base+strings.Replace(adoptionServer, "version =", from+"\nversion =", 1))
			g.Commit(from)
			res := build(t, filepath.Join(g.Dir, "site.toml"))
			if got := summaries(res.Entries); strings.Count(got, "\n") != 3 || !strings.HasPrefix(got, "2026-04-02T11:00:00Z") || strings.Contains(got, "1.0.0 → ") {
				t.Errorf("%s: entries\n%s want the server, a and b announced at 1.0.0 from the second commit on", from, got)
			}
		}
		g.Write("site.toml", base+`history_from = "nosuchcommit"`+"\n"+adoptionServer)
		g.Commit("a bad history_from")
		_, err := Build(Options{ConfigPath: filepath.Join(g.Dir, "site.toml"), Getenv: testEnv})
		if err == nil || !strings.Contains(err.Error(), `site.toml:2: history_from "nosuchcommit" is neither a date nor a commit`) {
			t.Errorf("err = %v", err)
		}
	})
}

// Two files declaring one tool is reported once per clash, judged after the
// whole commit, with the commits it lasted between; a git mv is no clash;
// exclude leaves the variants out, in history and in the working tree.
func TestClashesAndExclude(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\n"+adoptionServer)
	g.Write("tools/a.json", adoptionTool("a", "x"))
	g.Commit("a")
	g.Write("tools/a_ff_flag.json", adoptionTool("a", "flagged"))
	g.Commit("a variant")
	from := strings.TrimSpace(g.Git("rev-parse", "--short=12", "HEAD"))
	g.Write("tools/a_ff_flag.json", adoptionTool("a", "flagged2"))
	g.Write("tools/a.json", adoptionTool("a", "y"))
	g.Commit("both change")
	g.Git("rm", "-q", "tools/a_ff_flag.json")
	g.Commit("variant gone")
	until := strings.TrimSpace(g.Git("rev-parse", "--short=12", "HEAD"))
	g.Git("mv", "tools/a.json", "tools/z.json")
	g.Commit("moved")
	res := build(t, filepath.Join(g.Dir, "site.toml"))
	want := `server com.example/weather: tool "a" is declared by both tools/a.json and tools/a_ff_flag.json from commit ` + from + ` until commit ` + until + `; the feed uses tools/a.json`
	if len(res.Warnings) != 1 || res.Warnings[0].Msg != want || !strings.HasPrefix(res.Warnings[0].Hint, "leave the others out with exclude") {
		t.Errorf("warnings:\n%+v\nwant one: %s", res.Warnings, want)
	}

	g.Write("tools/a_ff_flag.json", adoptionTool("a", "flagged"))
	g.Write("site.toml", "base_url = \"https://example.com/\"\n"+strings.Replace(adoptionServer, "tools =", `exclude = ["**/*_ff_*.json"]`+"\ntools =", 1))
	g.Commit("exclude the variants")
	res = build(t, filepath.Join(g.Dir, "site.toml"))
	if len(res.Warnings) != 0 {
		t.Errorf("with exclude, warnings %q", res.Warnings)
	}
}

// A version stamped at release is never signed: the server is announced
// once a commit gives it a version, and a build whose last commit gives it
// none fails, even when --set supplies one.
func TestPlaceholderVersionIsNeverSigned(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("server.json", `{"name": "com.example/weather", "description": "Weather.", "version": "${VERSION}"}`)
	g.Write("site.toml", "base_url = \"https://example.com/\"\n[[servers]]\nimport = \"server.json\"\ntools = \"tools/*.json\"\n")
	g.Write("tools/a.json", adoptionTool("a", "x"))
	g.Commit("stamped at release")
	config := filepath.Join(g.Dir, "site.toml")
	_, err := Build(Options{ConfigPath: config, Getenv: testEnv, Overrides: []string{"servers.weather.version=1.2.3"}})
	if err == nil || !strings.Contains(err.Error(), `site.toml:2: server com.example/weather: its committed version "${VERSION}" is not a version`) ||
		!strings.Contains(hints(err), "version_tags") {
		t.Fatalf("err = %v (hints %s)", err, hints(err))
	}

	g.Write("site.toml", "base_url = \"https://example.com/\"\n[[servers]]\nimport = \"server.json\"\nversion = \"1.2.3\"\ntools = \"tools/*.json\"\n")
	g.Commit("version in site.toml")
	res := build(t, config)
	got := summaries(res.Entries)
	if strings.Contains(got, "${") || !strings.HasPrefix(got, "2026-04-01T10:00:00Z endpoint-announcement a 1.0.0") ||
		!strings.Contains(got, "2026-04-01T11:00:00Z endpoint-announcement com.example/weather 1.2.3") {
		t.Errorf("entries:\n%s", got)
	}
}

// An import outside the site's repository is a located error with the fix;
// once fixed, the past site.toml that named it is left out with one warning.
func TestImportOutsideTheSiteRepository(t *testing.T) {
	root := t.TempDir()
	server := gittest.New(t, filepath.Join(root, "server"))
	server.Write("server.json", `{"name": "com.example/weather", "description": "Weather.", "version": "1.0.0"}`)
	server.Write("tools/a.json", adoptionTool("a", "x"))
	server.Commit("the server")
	site := gittest.New(t, filepath.Join(root, "site"))
	site.When = server.When
	site.Write("site.toml", "base_url = \"https://example.com/\"\n[[servers]]\nimport = \"../server/server.json\"\nrepo = \"../server\"\ntools = \"tools/*.json\"\n")
	site.Commit("the site")
	config := filepath.Join(site.Dir, "site.toml")
	_, err := Build(Options{ConfigPath: config, Getenv: testEnv})
	if errs := diag.List(err); len(errs) != 1 || !strings.Contains(errs[0].Error(), "site.toml:3: import ../server/server.json is outside the site's repository") ||
		!strings.Contains(hints(err), "set name, description and version in site.toml") {
		t.Fatalf("err = %v", err)
	}

	site.Write("site.toml", "base_url = \"https://example.com/\"\n[[servers]]\nname = \"com.example/weather\"\ndescription = \"Weather.\"\nversion = \"1.0.0\"\nrepo = \"../server\"\ntools = \"tools/*.json\"\n")
	site.Commit("identity in site.toml")
	res := build(t, config)
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Msg, "site.toml is left out of the feed") || len(res.Entries) != 2 {
		t.Errorf("warnings %q, entries:\n%s", res.Warnings, summaries(res.Entries))
	}
}

// version_tags: the newest matching tag on the first-parent line at or
// before each commit is the server's version, announced at the tagged
// commit; other tags, and tags of merged branches, are not releases.
func TestVersionsFromReleaseTags(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\n"+strings.Replace(adoptionServer, `version = "1.0.0"`, `version_tags = "v*"`, 1))
	g.Write("tools/a.json", adoptionTool("a", "x"))
	g.Commit("a")
	config := filepath.Join(g.Dir, "site.toml")
	_, err := Build(Options{ConfigPath: config, Getenv: testEnv})
	if err == nil || !strings.Contains(err.Error(), `no tag matching "v*" is on the first-parent line`) || !strings.Contains(hints(err), "git tag v1.0.0") {
		t.Fatalf("untagged: %v", err)
	}

	g.Write("CHANGELOG.md", "1.0.0\n")
	g.Commit("release 1.0.0")
	g.Git("tag", "-a", "-m", "1.0.0", "v1.0.0")
	g.Git("tag", "nightly-2")
	g.Git("checkout", "-q", "-b", "side")
	g.Write("tools/b.json", adoptionTool("b", "x"))
	g.Commit("b, on a branch")
	g.Git("tag", "v9.9.9")
	g.Git("checkout", "-q", "main")
	g.When = g.When.Add(time.Hour)
	g.Git("merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge b", "side")
	g.Write("tools/a.json", adoptionTool("a", "y"))
	g.Commit("a takes y")
	g.Git("tag", "v1.1.0")
	g.Git("tag", "vnext") // matches v*, after v1.1.0 by name, but names no version: not a release

	res := build(t, config)
	got := datedSummaries(res.Entries)
	want := []string{
		"2026-04-01T10:00:00Z a 1.0.0 on com.example/weather",
		"2026-04-01T11:00:00Z com.example/weather 1.0.0 at https://example.com/mcp/weather/server-card.json",
		"2026-04-01T13:00:00Z b 1.0.0 on com.example/weather",
		"2026-04-01T14:00:00Z com.example/weather 1.1.0 at https://example.com/mcp/weather/server-card.json",
		"2026-04-01T14:00:00Z a 1.0.0 → 2.0.0 (breaking): parameter `x` renamed to `y`",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A version's commit links to the server's repository only when the tool
// files' commits are in it (one of its remotes); elsewhere the page shows
// the short hash, since a link would name another repository's commit.
func TestCommitLinksFollowTheRemote(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\n"+adoptionServer+"[servers.repository]\nurl = \"https://github.com/acme/weather\"\nsource = \"github\"\n")
	g.Write("tools/a.json", adoptionTool("a", "x"))
	g.Commit("the server")
	hash := strings.TrimSpace(g.Git("rev-parse", "HEAD"))
	config := filepath.Join(g.Dir, "site.toml")
	page := func() string { return string(mustGet(t, build(t, config), "/servers/weather/tools/a/index.html")) }

	link := "https://github.com/acme/weather/commit/" + hash
	if p := page(); strings.Contains(p, link) || !strings.Contains(p, hash[:7]) {
		t.Errorf("without a remote, the page links the commit or lacks its short hash %s", hash[:7])
	}
	g.Git("remote", "add", "origin", "git@github.com:acme/weather.git")
	if p := page(); !strings.Contains(p, `href="`+link+`"`) {
		t.Errorf("with the repository as a remote, the page does not link %s", link)
	}
}

// A server that switches from a pinned version to version_tags announces
// the releases tagged since its history began, each at its tagged commit:
// appends, the entries published before unchanged.
func TestSwitchToReleaseTags(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\n"+adoptionServer)
	g.Write("tools/a.json", adoptionTool("a", "x"))
	g.Commit("a")
	g.Write("tools/a.json", adoptionTool("a", "y"))
	g.Commit("a takes y")
	g.Git("tag", "v1.1.0")
	config := filepath.Join(g.Dir, "site.toml")
	published := filepath.Join(t.TempDir(), "agent-feed.xml")
	if err := os.WriteFile(published, mustGet(t, build(t, config), paths.Feed), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Write("site.toml", "base_url = \"https://example.com/\"\n"+strings.Replace(adoptionServer, `version = "1.0.0"`, `version_tags = "v*"`, 1))
	g.Commit("versions from tags")
	res, err := Build(Options{ConfigPath: config, Getenv: testEnv, Previous: published, Strict: true})
	if err != nil {
		t.Fatalf("releases announced late are appends: %v", err)
	}
	var server []string
	for _, e := range res.Entries {
		if strings.HasPrefix(e.Summary, "com.example/weather ") {
			server = append(server, e.Updated+" "+strings.Fields(e.Summary)[1])
		}
	}
	if want := []string{"2026-04-01T10:00:00Z 1.0.0", "2026-04-01T11:00:00Z 1.1.0"}; !slices.Equal(server, want) {
		t.Errorf("server announcements %q, want %q: 1.1.0 at its tagged commit, not at the switch", server, want)
	}
	out := filepath.Join(t.TempDir(), "public")
	if err := res.Write(out, true); err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Verify(context.Background(), verify.Options{Target: out, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.Warnings != 0 {
		t.Errorf("verify: ok %v, %d warnings", rep.OK, rep.Warnings)
	}
}

// Release tags are facts about commits: a server that took its versions
// from tags in an earlier site.toml keeps them for that part of history
// when the site.toml being built pins its version.
func TestSwitchFromReleaseTags(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\n"+strings.Replace(adoptionServer, `version = "1.0.0"`, `version_tags = "v*"`, 1))
	g.Write("tools/a.json", adoptionTool("a", "x"))
	g.Commit("a")
	g.Git("tag", "v0.5.0")
	g.Write("site.toml", "base_url = \"https://example.com/\"\n"+strings.Replace(adoptionServer, `version = "1.0.0"`, `version = "2.0.0"`, 1))
	g.Commit("a pinned version")
	var server []string
	for _, e := range build(t, filepath.Join(g.Dir, "site.toml")).Entries {
		if strings.HasPrefix(e.Summary, "com.example/weather ") {
			server = append(server, e.Updated+" "+strings.Fields(e.Summary)[1])
		}
	}
	if want := []string{"2026-04-01T10:00:00Z 0.5.0", "2026-04-01T11:00:00Z 2.0.0"}; !slices.Equal(server, want) {
		t.Errorf("server announcements %q, want %q", server, want)
	}
}
