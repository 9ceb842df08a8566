package check

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/internal/diag"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// siteTOML is a site with two servers; extra is appended (acknowledgements,
// deprecations).
func siteTOML(extra string) string {
	return `base_url = "https://example.com/"

[[servers]]
name = "com.example/weather"
description = "Weather."
version = "1.0.0"
tools = "weather/*.json"

[[servers]]
name = "com.example/alerts"
description = "Alerts."
version = "1.0.0"
tools = "alerts/*.json"
` + extra
}

// tool returns a tool file whose input has the given properties, all
// required when required.
func tool(name string, required bool, props ...string) string {
	var fields, names []string
	for _, p := range props {
		fields = append(fields, `"`+p+`": {"type": "string"}`)
		names = append(names, `"`+p+`"`)
	}
	req := ""
	if required {
		req = `, "required": [` + strings.Join(names, ", ") + `]`
	}
	return `{"name": "` + name + `", "description": "A tool.", "inputSchema": {"type": "object", "properties": {` + strings.Join(fields, ", ") + `}` + req + `}}`
}

// newSite creates a repository on branch main holding the site with a
// forecast tool and an alerts tool, and a feature branch checked out.
func newSite(t *testing.T) *repo {
	t.Helper()
	r := &repo{Repo: gittest.New(t, t.TempDir()), t: t}
	r.Write("site.toml", siteTOML(""))
	r.Write("weather/forecast.json", tool("forecast", true, "city"))
	r.Write("alerts/list.json", tool("list", false, "region"))
	r.Commit("the site")
	r.Git("checkout", "-q", "-b", "feature")
	return r
}

// run checks the repository's site, from its directory (as CI runs it).
func (r *repo) run(base string, env ...string) (*Result, error) {
	r.t.Helper()
	r.t.Chdir(r.Dir)
	getenv := func(name string) string {
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v
			}
		}
		return ""
	}
	return Run(Options{Build: generator.Options{ConfigPath: "site.toml", Getenv: getenv}, Base: base})
}

func (r *repo) mustRun(base string, env ...string) *Result {
	r.t.Helper()
	res, err := r.run(base, env...)
	if err != nil {
		r.t.Fatalf("check: %v", err)
	}
	return res
}

func TestCompatibleChangePasses(t *testing.T) {
	r := newSite(t)
	r.Write("weather/forecast.json", tool("forecast", false, "city", "days"))
	r.Commit("forecast: city optional, days")
	res := r.mustRun("")
	if !res.Base.MergeBase || res.Base.Ref != "main" {
		t.Errorf("base = %+v, want the merge base with main", res.Base)
	}
	if len(res.Entries) != 1 {
		t.Fatalf("entries = %+v, want the one schema change", res.Entries)
	}
	e := res.Entries[0]
	if e.Class != Compatible || e.From != "1.0.0" || e.To != "1.1.0" || e.EndpointID != "com.example/weather#forecast" {
		t.Errorf("entry = %+v, want a compatible change of forecast to 1.1.0", e)
	}
	if e.File != filepath.Join("weather", "forecast.json") || e.Line != 1 {
		t.Errorf("entry at %s:%d, want the tool file, line 1", e.File, e.Line)
	}
	if !res.OK() {
		t.Error("a compatible change fails the check")
	}
}

func TestBreakingChangeFailsUntilAcknowledged(t *testing.T) {
	r := newSite(t)
	r.Write("weather/forecast.json", tool("forecast", true, "city", "country"))
	r.Commit("forecast: country required")
	res := r.mustRun("")
	if res.OK() || len(res.Entries) != 1 || !res.Entries[0].Failed() {
		t.Fatalf("entries = %+v, want one failed breaking change", res.Entries)
	}
	e := res.Entries[0]
	if e.Class != Breaking || e.To != "2.0.0" {
		t.Errorf("entry = %+v, want a breaking change to 2.0.0", e)
	}
	wantTOML := "[[breaking]]\nendpoint = \"com.example/weather#forecast\"\nto = \"2.0.0\"\n"
	if got := e.Acknowledgement(); got != wantTOML {
		t.Errorf("acknowledgement = %q, want %q", got, wantTOML)
	}
	if p := e.Problem(); p.File != e.File || !strings.Contains(p.Msg, "not acknowledged") || p.Hint == "" {
		t.Errorf("problem = %+v", p)
	}

	r.Write("site.toml", siteTOML("\n"+wantTOML+"reason = \"country disambiguates\"\n"))
	r.Commit("acknowledge")
	res = r.mustRun("")
	if !res.OK() {
		t.Fatalf("acknowledged change still fails: %+v", res.Entries)
	}
	if by := res.Entries[0].AcknowledgedBy; !strings.Contains(by, "site.toml:15") || !strings.Contains(by, "country disambiguates") {
		t.Errorf("acknowledged by %q, want the table's line and reason", by)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings = %v", res.Warnings)
	}
}

func TestAcknowledgementMustNameTheVersion(t *testing.T) {
	r := newSite(t)
	r.Write("weather/forecast.json", tool("forecast", true, "city", "country"))
	r.Write("site.toml", siteTOML("\n[[breaking]]\nendpoint = \"com.example/weather#forecast\"\nto = \"3.0.0\"\n"))
	r.Commit("forecast: country required; acknowledged for the wrong version")
	res := r.mustRun("")
	if res.OK() {
		t.Error("an acknowledgement of another version lets the change through")
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Line != 15 || !strings.Contains(res.Warnings[0].Msg, "matches no breaking change") {
		t.Errorf("warnings = %v, want one about the unmatched table at line 15", res.Warnings)
	}
}

func TestRemovals(t *testing.T) {
	r := newSite(t)
	r.Write("site.toml", `base_url = "https://example.com/"

[[servers]]
name = "com.example/weather"
description = "Weather."
version = "1.0.0"
tools = "weather/*.json"
`)
	r.remove("weather/forecast.json")
	r.Write("weather/today.json", tool("today", false, "city"))
	r.Commit("alerts server removed; forecast replaced by today")
	res := r.mustRun("")
	classes := map[string]Class{}
	for _, e := range res.Entries {
		classes[e.Type+" "+e.EndpointID] = e.Class
		if e.Class == Breaking && e.To != "removed" {
			t.Errorf("removal %s goes to %q, want removed", e.ID, e.To)
		}
	}
	want := map[string]Class{
		"endpoint-announcement com.example/weather#today": Compatible,
		"deprecation com.example/weather#forecast":        Breaking,
		"deprecation com.example/alerts#list":             Breaking,
		"deprecation com.example/alerts":                  Breaking,
	}
	if !mapsEqual(classes, want) {
		t.Errorf("classes = %v, want %v", classes, want)
	}

	// The server's removal covers its tools.
	r.append("site.toml", "\n[[breaking]]\nendpoint = \"com.example/alerts\"\nto = \"removed\"\n\n[[breaking]]\nendpoint = \"com.example/weather#forecast\"\nto = \"removed\"\n")
	r.Commit("acknowledge")
	if res := r.mustRun(""); !res.OK() {
		t.Errorf("acknowledged removals still fail: %+v", res.Entries)
	}
}

func TestRemovalAfterPublishedDeprecation(t *testing.T) {
	r := newSite(t)
	r.Git("checkout", "-q", "main")
	r.append("site.toml", "\n[[deprecations]]\nendpoint = \"com.example/weather#forecast\"\nannounced_at = \"2026-04-01T11:00:00Z\"\nsunset = \"2026-04-01T20:00:00Z\"\n")
	r.Commit("deprecate forecast")
	r.Git("checkout", "-q", "-B", "feature")

	// A deprecation announced ahead of its sunset is a notice.
	res := r.mustRun("HEAD~1")
	if len(res.Entries) != 1 || res.Entries[0].Class != Notice || !res.OK() {
		t.Fatalf("entries = %+v, want one notice", res.Entries)
	}

	// Removing the tool before the sunset is a surprise; after it, announced.
	r.remove("weather/forecast.json")
	r.Commit("remove forecast before its sunset") // 12:00
	if res := r.mustRun(""); res.OK() {
		t.Error("a removal before the announced sunset passes")
	}
	r.Git("reset", "-q", "--hard", "main")
	r.When = time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)
	r.remove("weather/forecast.json")
	r.Commit("remove forecast after its sunset")
	res = r.mustRun("")
	if !res.OK() || len(res.Entries) != 1 || !strings.Contains(res.Entries[0].AcknowledgedBy, "deprecation of com.example/weather#forecast") {
		t.Errorf("entries = %+v, want the removal acknowledged by the deprecation", res.Entries)
	}
}

func TestMergedBaseEntriesAreNotNew(t *testing.T) {
	r := newSite(t)
	r.Write("alerts/list.json", tool("list", false, "region", "severity"))
	r.Commit("feature: alerts by severity")
	r.Git("checkout", "-q", "main")
	r.Write("weather/forecast.json", tool("forecast", true, "city", "units"))
	r.Commit("main: units required")
	r.Git("checkout", "-q", "feature")
	r.Git("merge", "-q", "--no-edit", "--no-gpg-sign", "main")
	res := r.mustRun("", "GITHUB_BASE_REF=trunk") // no origin/trunk: falls back to main
	if len(res.Entries) != 1 || res.Entries[0].EndpointID != "com.example/alerts#list" {
		t.Errorf("entries = %+v, want only the branch's own change", res.Entries)
	}
	if !res.OK() {
		t.Error("main's breaking change, already merged there, fails the branch")
	}
}

func TestUncommittedChanges(t *testing.T) {
	r := newSite(t)
	r.Write("weather/forecast.json", tool("forecast", true, "city", "country"))
	res := r.mustRun("")
	if len(res.Entries) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Msg, "uncommitted changes") {
		t.Errorf("entries %+v, warnings %v: want no entry and one warning about the uncommitted change", res.Entries, res.Warnings)
	}
	if _, err := r.run("", "CI=true"); err == nil || !strings.Contains(err.Error(), "uncommitted changes") {
		t.Errorf("under CI=true: %v, want the uncommitted changes error", err)
	}
}

func TestFindBase(t *testing.T) {
	r := newSite(t)
	r.commitEmpty("feature work")
	main := strings.TrimSpace(r.Git("rev-parse", "main"))
	feature := strings.TrimSpace(r.Git("rev-parse", "HEAD"))
	noEnv := func(string) string { return "" }
	repo, err := gitlog.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}

	base, err := findBase(repo, "", noEnv)
	if err != nil || base != (Base{Ref: "main", Commit: main, MergeBase: true}) {
		t.Errorf("default base = %+v, %v", base, err)
	}
	base, err = findBase(repo, "feature", noEnv)
	if err != nil || base != (Base{Ref: "feature", Commit: feature}) {
		t.Errorf("--base feature = %+v, %v", base, err)
	}

	// origin/HEAD, and a pull request's target, come first.
	r.Git("update-ref", "refs/remotes/origin/release", feature)
	r.Git("update-ref", "refs/remotes/origin/HEAD", feature)
	if branch, _ := defaultBranch(repo, noEnv); branch != "origin/HEAD" {
		t.Errorf("default branch = %q, want origin/HEAD", branch)
	}
	env := func(name string) string { return map[string]string{"GITHUB_BASE_REF": "release"}[name] }
	if branch, _ := defaultBranch(repo, env); branch != "origin/release" {
		t.Errorf("default branch of a pull request = %q, want origin/release", branch)
	}

	for _, tc := range []struct {
		name, ref, want string
	}{
		{"a ref that names nothing", "no-such-branch", "--base no-such-branch is not a commit"},
		{"an option", "--output=x", "--base --output=x is not a commit"},
	} {
		if _, err := findBase(repo, tc.ref, noEnv); err == nil || !strings.Contains(err.Error(), tc.want) || diag.Hint(err) == "" {
			t.Errorf("%s: %v, want %q with a hint", tc.name, err, tc.want)
		}
	}

	r.Git("update-ref", "-d", "refs/remotes/origin/HEAD")
	r.Git("branch", "-q", "-m", "main", "trunk")
	if _, err := findBase(repo, "", noEnv); err == nil || !strings.Contains(err.Error(), "cannot find the default branch") {
		t.Errorf("no default branch: %v", err)
	}
	r.Git("checkout", "-q", "--orphan", "main")
	r.commitEmpty("unrelated")
	r.Git("checkout", "-q", "feature")
	if _, err := findBase(repo, "", noEnv); err == nil || !strings.Contains(err.Error(), "no commit in common") || diag.Hint(err) == "" {
		t.Errorf("unrelated histories: %v, want no commit in common with a hint", err)
	}
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// repo is a test's git repository (fixed, increasing commit dates, so its
// feeds are reproducible) holding a site to check.
type repo struct {
	*gittest.Repo
	t *testing.T
}

func (r *repo) append(path, content string) {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.Dir, path))
	if err != nil {
		r.t.Fatal(err)
	}
	r.Write(path, string(data)+content)
}

func (r *repo) remove(path string) {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.Dir, filepath.FromSlash(path))); err != nil {
		r.t.Fatal(err)
	}
}

// commit commits everything, one hour after the previous commit.
func (r *repo) commitEmpty(message string) {
	r.t.Helper()
	r.When = r.When.Add(time.Hour)
	r.Git("commit", "-q", "--no-gpg-sign", "--allow-empty", "-m", message)
}

// A breaking change on a branch of the tools repository (repo = in
// site.toml) fails the check, whether it runs in the site's repository or in
// the tools repository's own CI; acknowledged, it passes.
func TestBreakingChangeInAnotherRepository(t *testing.T) {
	root := t.TempDir()
	server := gittest.New(t, filepath.Join(root, "server"))
	server.Write("tools/forecast.json", tool("forecast", false, "city"))
	server.Commit("forecast")
	site := gittest.New(t, filepath.Join(root, "site"))
	site.When = server.When
	site.Write("site.toml", `base_url = "https://example.com/"

[[servers]]
name = "com.example/weather"
description = "Weather."
version = "1.0.0"
repo = "../server"
tools = "tools/*.json"
`)
	site.Commit("the site")
	server.When = site.When
	server.Git("checkout", "-q", "-b", "feature")
	server.Write("tools/forecast.json", tool("forecast", true, "city"))
	server.Commit("forecast requires city")

	check := func(dir, config string) *Result {
		t.Helper()
		t.Chdir(dir)
		res, err := Run(Options{Build: generator.Options{ConfigPath: config}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, where := range []struct{ name, dir, config, file string }{
		{"from the site's repository", site.Dir, "site.toml", filepath.Join("..", "server", "tools", "forecast.json")},
		{"from the tools repository", server.Dir, filepath.Join("..", "site", "site.toml"), filepath.Join("tools", "forecast.json")},
	} {
		res := check(where.dir, where.config)
		if res.OK() || len(res.Entries) != 1 || res.Entries[0].Class != Breaking || res.Entries[0].To != "2.0.0" {
			t.Fatalf("%s: ok %v, entries %+v; want the breaking change to forecast 2.0.0", where.name, res.OK(), res.Entries)
		}
		// The error names the tool file, as the user there writes its path,
		// so a CI annotation lands in the pull request's diff.
		if p := res.Entries[0].Problem(); p.File != where.file {
			t.Errorf("%s: the breaking change is located at %q, want %q", where.name, p.File, where.file)
		}
		if len(res.Repos) != 1 || res.Repos[0].Dir != "../server" || !res.Repos[0].MergeBase || res.Repos[0].Ref != "main" {
			t.Errorf("%s: repository bases %+v, want ../server at its merge base with main", where.name, res.Repos)
		}
	}

	// --repo-base: compared with the feature branch itself, nothing is new.
	t.Chdir(site.Dir)
	res, err := Run(Options{Build: generator.Options{ConfigPath: "site.toml"}, RepoBases: map[string]string{"../server": "feature"}})
	if err != nil || len(res.Entries) != 0 {
		t.Errorf("with the feature branch as the tools' base: %v, entries %+v", err, res.Entries)
	}

	site.Write("site.toml", site.Git("show", "HEAD:site.toml")+"\n[[breaking]]\nendpoint = \"com.example/weather#forecast\"\nto = \"2.0.0\"\n")
	site.Commit("acknowledge")
	if res := check(server.Dir, filepath.Join("..", "site", "site.toml")); !res.OK() {
		t.Errorf("acknowledged, the check still fails: %+v", res.Entries)
	}
}

// The pull request that adds site.toml to a repository with a tool history
// adds none of that history: it is backfilled on both sides. New are the
// server whose first tool comes with site.toml, and the announcement of
// the other at the commit that pins its version (the base, with no
// site.toml committed, could only guess a date for it).
func TestAddingTheSite(t *testing.T) {
	r := &repo{Repo: gittest.New(t, t.TempDir()), t: t}
	r.Write("weather/forecast.json", tool("forecast", true, "city"))
	r.Commit("forecast")
	r.Write("weather/forecast.json", tool("forecast", true, "city", "days"))
	r.Commit("forecast requires days")
	r.Git("checkout", "-q", "-b", "feature")
	r.Write("site.toml", siteTOML(""))
	r.Write("alerts/list.json", tool("list", false, "region"))
	r.Commit("publish with wellknown")
	res := r.mustRun("")
	var got []string
	for _, e := range res.Entries {
		got = append(got, e.EndpointID)
	}
	if !slices.Equal(got, []string{"com.example/alerts", "com.example/weather", "com.example/alerts#list"}) || !res.OK() || len(res.Warnings) != 0 {
		t.Errorf("entries %+v, warnings %v; want the alerts server and its tool, and the weather server's announcement", res.Entries, res.Warnings)
	}
}

// A branch commit with the committer and second of the base commit lands
// with it, changing the base's entry under its id: the check reports the
// changed entry instead of finding nothing new.
func TestBranchCommitLandingWithTheBase(t *testing.T) {
	r := newSite(t)
	r.Git("checkout", "-q", "main")
	r.Write("weather/forecast.json", tool("forecast", false, "city"))
	r.Commit("forecast: city optional")
	r.Git("checkout", "-q", "feature")
	r.Git("merge", "-q", "--ff-only", "main")
	r.When = r.When.Add(-time.Hour) // Commit moves it on again: the base's second
	r.Write("weather/forecast.json", tool("forecast", false, "city", "days"))
	r.Commit("forecast: days")
	res := r.mustRun("")
	if len(res.Entries) != 1 || res.Entries[0].EndpointID != "com.example/weather#forecast" || res.Entries[0].To != "1.1.0" {
		t.Fatalf("entries = %+v, want the forecast change the branch made to the base's 1.1.0", res.Entries)
	}
}
