package feed

import (
	"crypto/ed25519"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/tlstest"
)

func TestMain(m *testing.M) { tlstest.Main(m) }

// announcedAt is when the tests' server is first announced.
var announcedAt = time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)

// announced is a timeline of one event: a server announced.
func announced(t *testing.T) *timeline.Timeline {
	return replayed(t, weatherAt(announcedAt, "1.0.0"))
}

// weatherAt is a commit that configures the tests' server at a version.
func weatherAt(at time.Time, version string) timeline.Commit {
	return timeline.Commit{Hash: "c" + version, Time: at, Servers: []timeline.Server{{Name: "com.example.weather/forecast",
		Slug: "forecast", Version: version, Endpoint: "https://weather.example.com/mcp"}}}
}

// replayed is the timeline of the commits.
func replayed(t *testing.T, commits ...timeline.Commit) *timeline.Timeline {
	t.Helper()
	r := timeline.NewBuilder(timeline.CompareObjects)
	for _, c := range commits {
		if err := r.Commit(c); err != nil {
			t.Fatal(err)
		}
	}
	return r.Timeline()
}

// addFeed runs the feed stage on the timeline for a site with no servers.
func addFeed(t *testing.T, tl *timeline.Timeline) (*bundle.Bundle, *Output) {
	t.Helper()
	return addFeedWith(t, "", Input{Timeline: tl})
}

// addFeedWith runs the feed stage with in for a site with no servers whose
// site.toml ends with toml.
func addFeedWith(t *testing.T, toml string, in Input) (*bundle.Bundle, *Output) {
	t.Helper()
	dir := t.TempDir()
	cfg, err := site.Parse(filepath.Join(dir, "site.toml"), "base_url = \"https://weather.example.com/\"\ntitle = \"Weather\"\n"+toml, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := bundle.New()
	in.Config, in.Key = cfg, ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	out, err := add(b, in)
	if err != nil {
		t.Fatal(err)
	}
	return b, out
}

// The stage signs each event into an entry, adds the feed and the snapshot
// to the bundle, and returns the entries, which CheckAppendOnly compares
// with the feed published before.
func TestAddAndCheckAppendOnly(t *testing.T) {
	b, out := addFeed(t, announced(t))
	if len(out.Entries) != 1 || out.Entries[0].Title != "com.example.weather/forecast 1.0.0 announced" || len(out.Notices) != 0 {
		t.Fatalf("entries %+v, notices %q: want the one entry and no notice", out.Entries, out.Notices)
	}
	feed, ok := b.Get(paths.Feed)
	if !ok || !strings.Contains(string(feed.Body), out.Entries[0].ID) {
		t.Fatalf("the bundle's feed at %s does not hold entry %s", paths.Feed, out.Entries[0].ID)
	}
	if _, ok := b.Get(paths.Snapshot); !ok {
		t.Errorf("no snapshot at %s", paths.Snapshot)
	}
	published := filepath.Join(t.TempDir(), "agent-feed.xml")
	if err := os.WriteFile(published, feed.Body, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := checkAppendOnly(Previous{Source: published}, out.Entries); err != nil || len(got.Warnings)+len(got.Notices) != 0 {
		t.Errorf("the same entries: %+v, error %v; want neither", got, err)
	}
	_, emptied := addFeed(t, &timeline.Timeline{})
	if _, err := checkAppendOnly(Previous{Source: published}, emptied.Entries); err == nil || !strings.Contains(err.Error(), "would disappear") {
		t.Errorf("a published entry dropped: error %v, want one that says it would disappear", err)
	}
}

// A published entry whose payload would change fails the check, with the
// honest causes: when it only gains an extension key (a release's x-tools,
// which earlier versions did not write), the rules that changed with the
// wellknown version; otherwise a rewritten history first.
func TestAppendOnlyAfterUpgrade(t *testing.T) {
	b, _ := addFeed(t, announced(t))
	feed, _ := b.Get(paths.Feed)
	published := filepath.Join(t.TempDir(), "agent-feed.xml")
	if err := os.WriteFile(published, feed.Body, 0o644); err != nil {
		t.Fatal(err)
	}
	released := weatherAt(announcedAt, "1.0.0")
	released.Servers[0].Release = "1.0.0"
	released.Servers[0].Tools = map[string]tools.Tool{"get_forecast": {Name: "get_forecast", SHA256: strings.Repeat("ab", 32)}}
	for _, tc := range []struct {
		name       string
		commit     timeline.Commit
		want, hint string
	}{
		{"gains x-tools", released,
			"would change its payload: it only gains x-tools, which earlier versions of wellknown did not write",
			"a published entry never changes, and the rules that derive entries changed with the wellknown version: keep building this site with that version, or move readers to a new feed"},
		{"another time", weatherAt(announcedAt.Add(time.Hour), "1.0.0"),
			"(endpoint-announcement: com.example.weather/forecast 1.0.0 at https://weather.example.com/mcp) would change its payload",
			"restore the history that produced it (was the branch rewritten or rebased?). If it is intact, the rules that derive entries changed with the wellknown version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, out := addFeed(t, replayed(t, tc.commit))
			_, err := checkAppendOnly(Previous{Source: published}, out.Entries)
			if err == nil || !strings.HasSuffix(err.Error(), tc.want) || !strings.Contains(diag.Hint(err), tc.hint) {
				t.Errorf("error %v\nhint %q\nwant %q, hint with %q", err, diag.Hint(err), tc.want, tc.hint)
			}
		})
	}
}

// The previous feed is fetched by the rules of every fetch: an https URL
// that redirects to plain http, even on this machine, or more than three
// times, is refused, and nothing is compared.
func TestPreviousRedirects(t *testing.T) {
	b, out := addFeed(t, announced(t))
	feed, _ := b.Get(paths.Feed)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(feed.Body) }))
	t.Cleanup(plain.Close)
	for _, tc := range []struct {
		hops int
		want string
	}{{1, "redirect from https to http refused ("}, {4, "more than 3 redirects (the last to "}} {
		from := tlstest.Redirector(t, plain.URL, tc.hops)("/agent-feed.xml")
		_, err := checkAppendOnly(Previous{Source: from}, out.Entries)
		if want := "--previous " + from + ": " + tc.want + plain.URL + "/agent-feed.xml)"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d redirects: error %v, want %q", tc.hops, err, want)
		}
	}
	if got, err := checkAppendOnly(Previous{Source: plain.URL + "/agent-feed.xml"}, out.Entries); err != nil || len(got.Warnings)+len(got.Notices) != 0 {
		t.Errorf("plain http on this machine: %+v, error %v", got, err)
	}
}

// A feed reader shows a title as plain text: code spans become quoted words.
func TestPlainTitle(t *testing.T) {
	for in, want := range map[string]string{
		"get_forecast 2.0.0: parameter `city` renamed to `location` (breaking)": "get_forecast 2.0.0: parameter “city” renamed to “location” (breaking)",
		"forecast 1.0.0 announced": "forecast 1.0.0 announced",
		"a stray ` backtick":       "a stray  backtick",
	} {
		if got := plainTitle(in); got != want {
			t.Errorf("plainTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

// The entries about one endpoint share one string for the link to its
// page: a long history has many entries about few endpoints.
func TestEntriesShareTheirEndpointsLink(t *testing.T) {
	tl := replayed(t, weatherAt(announcedAt, "1.0.0"), weatherAt(announcedAt.Add(time.Hour), "1.1.0"))
	_, out := addFeed(t, tl)
	first, second := out.Entries[0].Link, out.Entries[1].Link
	if first != "https://weather.example.com/servers/forecast/" || second != first || unsafe.StringData(second) != unsafe.StringData(first) {
		t.Errorf("links %q and %q: want one string for the server's page", first, second)
	}
}

// A stage that drops its entries (a build that writes once) signs, checks
// and adds the feed a page at a time: its documents and snapshot are those
// of a stage that keeps them, and the entries of every page, archives
// included, reach the append-only check.
func TestDropEntriesMakesTheSameFeedAndChecksEveryPage(t *testing.T) {
	const pageSize = "\n[feed]\npage_size = 3\n"
	var commits []timeline.Commit
	for i := range 8 {
		commits = append(commits, weatherAt(announcedAt.Add(time.Duration(i)*time.Hour), fmt.Sprintf("1.0.%d", i)))
	}
	tl := replayed(t, commits...)
	kept, keptOut := addFeedWith(t, pageSize, Input{Timeline: tl})
	dropped, droppedOut := addFeedWith(t, pageSize, Input{Timeline: tl, DropEntries: true})
	if droppedOut.Entries != nil || droppedOut.Count != 8 || len(keptOut.Entries) != 8 || keptOut.Count != 8 {
		t.Fatalf("dropped: %d entries, count %d; kept: %d entries, count %d; want 0, 8, 8, 8",
			len(droppedOut.Entries), droppedOut.Count, len(keptOut.Entries), keptOut.Count)
	}
	if len(kept.Files()) != 4 || len(dropped.Files()) != len(kept.Files()) { // two archives, the feed, its snapshot
		t.Fatalf("%d files kept and %d dropped, want 4 each", len(kept.Files()), len(dropped.Files()))
	}
	published := t.TempDir()
	for i, f := range kept.Files() {
		if g := dropped.Files()[i]; g.Path != f.Path || string(g.Body) != string(f.Body) {
			t.Errorf("%s: dropping the entries made %s of other bytes", f.Path, g.Path)
		}
		p := filepath.Join(published, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prev := Previous{Source: filepath.Join(published, filepath.FromSlash(paths.Feed))}
	for _, tc := range []struct {
		name    string
		commits []timeline.Commit
		want    string
	}{
		{"the same", commits, ""},
		{"the first dropped", commits[1:], "published entry " + keptOut.Entries[0].ID + " (endpoint-announcement: com.example.weather/forecast 1.0.0 at https://weather.example.com/mcp) would disappear"},
	} {
		check, _, err := ReadPrevious(prev)
		if err != nil {
			t.Fatal(err)
		}
		addFeedWith(t, pageSize, Input{Timeline: replayed(t, tc.commits...), Check: check, DropEntries: true})
		if err := check.Finish(); (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
