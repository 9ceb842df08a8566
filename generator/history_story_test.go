package generator

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// The history story (see gittest.NewHistory) decides each case of history
// as the feed must: its entries are a golden file, and the facts of history
// (dates, versions from release tags, one landing per "rebase and merge",
// a renamed tool's replacement, what each release shipped, the guard on a
// committed glob typo) are checked here as well. Run with -update to accept a reviewed change of the golden
// file.
func TestHistoryStory(t *testing.T) {
	g := gittest.NewHistory(t)
	config := filepath.Join(g.Dir, "site.toml")

	// The committed glob typo removed every tool for one commit: a strict
	// build refuses to sign that until the removal is acknowledged.
	_, err := Build(Options{ConfigPath: config, Getenv: testEnv, Strict: true})
	if err == nil || !strings.Contains(err.Error(), "removes every tool of com.example/items at once") || !strings.Contains(diag.Hint(err), "a typo in its tools glob") {
		t.Fatalf("strict build of the glob typo: %v (hint %q), want the guard's error", err, diag.Hint(err))
	}
	g.Write("site.toml", gittest.HistorySite+"\n[[breaking]]\nendpoint = \"com.example/items\"\nto = \"removed\"\nreason = \"a glob typo, fixed the next day\"\n")
	g.Commit("site.toml: acknowledge the glob typo")
	res, err := Build(Options{ConfigPath: config, Getenv: testEnv, Strict: true})
	if err != nil {
		t.Fatalf("strict build with the typo acknowledged: %v", err)
	}
	var b strings.Builder
	for _, e := range res.Entries {
		b.WriteString(e.Updated + " " + e.Type + " " + e.Summary + "\n  " + string(e.Content) + "\n")
	}
	checkGolden(t, "history-story-entries.txt", []byte(b.String()))
	verifyIndependently(t, res)

	// The pinned 1.1.0 is true from the commit that pins it; before, the
	// release tags are the server's versions, at their own commits, and
	// each lists the tool versions it shipped.
	var releases []string
	for e := range res.Timeline.Events() {
		if a, ok := e.Payload().(agentfeed.Announcement); ok && a.Protocol == "mcp" {
			releases = append(releases, agentfeed.FormatTime(e.Time)+" "+a.Version+" "+a.Tools)
		}
	}
	want := []string{
		"2025-06-03T09:00:00Z 0.9.0 add_labels@1.1.0 create_note@1.0.0 get_item@1.0.0 list_items@1.0.0 search_items@1.0.0 sync_items@1.0.0 update_item@1.0.0",
		"2025-06-07T09:00:00Z 1.0.0 add_labels@1.1.0 create_note@1.1.0 get_item@1.0.1 list_items@2.0.0 search_items@1.0.0 sync_items@1.0.0 update_item@1.0.0",
		"2025-06-11T09:00:00Z 1.1.0 ",
	}
	if !slices.Equal(releases, want) {
		t.Errorf("server announcements:\n%s\nwant\n%s", strings.Join(releases, "\n"), strings.Join(want, "\n"))
	}
	if !slices.ContainsFunc(res.Notices, func(n string) bool { return strings.Contains(n, "its versions are the release tags") }) {
		t.Errorf("notices %q, want one saying the backfilled versions are the release tags", res.Notices)
	}

	// Three commits of one "rebase and merge" land as one version.
	srv := res.Timeline.Servers[0]
	update := srv.Tool("update_item").Versions()
	if len(update) != 2 || update[1].Version != "1.1.0" || !update[1].Time.Equal(gittest.HistoryStart.Add(7*24*time.Hour)) {
		t.Errorf("update_item has %d versions, the last %s at %v; want 1.0.0 and 1.1.0, landed on the eighth day", len(update), update[len(update)-1].Version, update[len(update)-1].Time)
	}
	if got := srv.Tool("list_items").Versions()[1].Release; got != "1.0.0" {
		t.Errorf("list_items 2.0.0 first shipped in %q, want 1.0.0", got)
	}

	// Each schema change is classified by what the schema accepts.
	classes := map[string]string{}
	for e := range res.Timeline.Events() {
		if c, ok := e.Payload().(agentfeed.SchemaChange); ok {
			classes[c.EndpointID[strings.IndexByte(c.EndpointID, '#')+1:]] = c.ToVersion + " " + c.Compat
		}
	}
	for tool, want := range map[string]string{
		"add_labels":  "1.1.0 compatible", // items widened to oneOf[string, object]
		"create_note": "1.1.0 compatible", // an anyOf constraint removed
		"list_items":  "2.0.0 breaking",   // a changed default
		"get_item":    "1.0.1 cosmetic",   // annotation defaults written out
		"sync_items":  "2.0.0 breaking",   // no longer read-only
	} {
		if classes[tool] != want {
			t.Errorf("%s changed to %q, want %q", tool, classes[tool], want)
		}
	}

	// git mv with the tool renamed: the deprecation names the new tool.
	var replacement string
	for e := range res.Timeline.Events() {
		if d, ok := e.Payload().(agentfeed.Deprecation); ok && d.EndpointID == "com.example/items#search_items" && d.Replacement != nil {
			replacement = *d.Replacement
		}
	}
	if replacement != "com.example/items#search" {
		t.Errorf("search_items' replacement = %q, want com.example/items#search", replacement)
	}

	page := string(mustGet(t, res, "/servers/items/tools/list_items/index.html"))
	if !strings.Contains(page, "<p>First shipped in release 1.0.0.</p>") {
		t.Errorf("list_items' page does not say which release first shipped 2.0.0")
	}
}
