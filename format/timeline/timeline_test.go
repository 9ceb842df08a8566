package timeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/tools"
)

func tool(t *testing.T, src string) tools.Tool {
	t.Helper()
	tl, err := tools.Parse("t.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

const (
	v1        = `{"name":"get_forecast","description":"Forecast.","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}`
	v1spaced  = "{\n  \"name\": \"get_forecast\",\n  \"inputSchema\": {\"type\": \"object\", \"required\": [\"city\"], \"properties\": {\"city\": {\"type\": \"string\"}}},\n  \"description\": \"Forecast.\"\n}\n"
	v2        = `{"name":"get_forecast","description":"Forecast.","inputSchema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}}`
	v3        = `{"name":"get_forecast","description":"Forecast.","inputSchema":{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"}},"required":["location"]}}`
	v4        = `{"name":"get_forecast","description":"Daily forecast.","inputSchema":{"type":"object","properties":{"location":{"type":"string"},"days":{"type":"integer"}},"required":["location"]}}`
	alertsSrc = `{"name":"list_alerts","inputSchema":{"type":"object"}}`
)

// A short history with every kind of step gives the expected events, in order.
func TestDerive(t *testing.T) {
	at := func(day int) time.Time { return time.Date(2026, 4, day, 12, 0, 0, 0, time.UTC) }
	server := func(version, endpoint string, ts ...tools.Tool) Server {
		m := map[string]tools.Tool{}
		for _, tl := range ts {
			m[tl.Name] = tl
		}
		return Server{Name: "com.example/weather", Slug: "weather", Version: version, Endpoint: endpoint, Tools: m}
	}
	const ep, moved = "https://example.com/mcp", "https://mcp.example.com/"
	commits := []Commit{
		{Hash: "c1", Time: at(1), Servers: []Server{server("1.0.0", ep, tool(t, v1))}},
		{Hash: "c2", Time: at(2), Servers: []Server{server("1.0.0", ep, tool(t, v1spaced))}}, // reformatted: nothing
		{Hash: "c3", Time: at(3), Servers: []Server{server("1.0.0", ep, tool(t, v2))}},       // optional param: minor
		{Hash: "c4", Time: at(4), Servers: []Server{server("1.1.0", ep, tool(t, v3), tool(t, alertsSrc))}},
		{Hash: "c5", Time: at(5), Servers: []Server{server("1.1.0", moved, tool(t, v4), tool(t, alertsSrc))}},
		{Hash: "c6", Time: at(6), Servers: []Server{server("1.1.0", moved, tool(t, alertsSrc))}}, // removed
		{Hash: "c7", Time: at(7), Servers: []Server{server("1.1.0", moved, tool(t, v4), tool(t, alertsSrc))},
			Deprecations: []Deprecation{{Endpoint: "com.example/weather#list_alerts", AnnouncedAt: "2026-04-07T00:00:00Z", Sunset: "2026-12-31T00:00:00Z", Replacement: "com.example/weather#get_forecast"}}},
		{Hash: "c8", Time: at(8), Servers: []Server{server("1.1.0", moved, tool(t, v2), tool(t, alertsSrc))},
			Deprecations: []Deprecation{{Endpoint: "com.example/weather#list_alerts", AnnouncedAt: "2026-04-07T00:00:00Z", Sunset: "2026-12-31T00:00:00Z", Replacement: "com.example/weather#get_forecast"}}},
		{Hash: "c9", Time: at(9)}, // the server is gone
	}
	tl, err := derive(commits)
	if err != nil {
		t.Fatal(err)
	}
	// Each event names itself, and has one line a feed reader shows as the
	// entry's title.
	var got []string
	for e := range tl.Events() {
		got = append(got, fmt.Sprintf("%s %s %s | %s | %s", e.Commit, e.Type, e.EndpointID, e.Key, e.Title()))
	}
	want := []string{
		"c1 endpoint-announcement com.example/weather | 1.0.0 " + ep + " | com.example/weather 1.0.0 announced",
		"c1 endpoint-announcement com.example/weather#get_forecast | 1.0.0 " + ep + " | get_forecast 1.0.0 published",
		"c3 schema-change com.example/weather#get_forecast | 1.0.0 -> 1.1.0 | get_forecast 1.1.0: new optional parameter `days` (compatible)",
		"c4 endpoint-announcement com.example/weather | 1.1.0 " + ep + " | com.example/weather 1.1.0 announced",
		"c4 endpoint-announcement com.example/weather#list_alerts | 1.0.0 " + ep + " | list_alerts 1.0.0 published",
		"c4 schema-change com.example/weather#get_forecast | 1.1.0 -> 2.0.0 | get_forecast 2.0.0: parameter `city` renamed to `location` (breaking)",
		"c5 endpoint-announcement com.example/weather | 1.1.0 " + moved + " | com.example/weather 1.1.0 announced",
		"c5 endpoint-announcement com.example/weather#list_alerts | 1.0.0 " + moved + " | list_alerts 1.0.0 published",
		"c5 schema-change com.example/weather#get_forecast | 2.0.0 -> 2.0.1 | get_forecast 2.0.1: description changed (cosmetic)",
		"c5 endpoint-announcement com.example/weather#get_forecast | 2.0.1 " + moved + " | get_forecast 2.0.1 published",
		"c6 deprecation com.example/weather#get_forecast | removed 2.0.1 | get_forecast removed",
		"c7 endpoint-announcement com.example/weather#get_forecast | 2.0.1 " + moved + " #2 | get_forecast 2.0.1 published",
		"c7 deprecation com.example/weather#list_alerts | configured 2026-04-07T00:00:00Z 2026-12-31T00:00:00Z | list_alerts deprecated, sunset 2026-12-31",
		"c8 schema-change com.example/weather#get_forecast | 2.0.1 -> 3.0.0 | get_forecast 3.0.0: parameter `location` renamed to `city`, and 1 more (breaking)",
		"c9 deprecation com.example/weather | removed 1.1.0 | com.example/weather removed",
		"c9 deprecation com.example/weather#get_forecast | removed 3.0.0 | get_forecast removed",
		"c9 deprecation com.example/weather#list_alerts | removed 1.0.0 | list_alerts removed",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Payloads carry the spec's fields, commit times and the archive hash.
	var change agentfeed.SchemaChange
	for e := range tl.Events() {
		if e.Commit == "c4" && e.Type == agentfeed.TypeSchemaChange {
			change = e.Payload().(agentfeed.SchemaChange)
		}
	}
	data, _ := json.Marshal(change.Migration)
	if string(data) != `{"rename":{"/inputSchema/properties/city":"/inputSchema/properties/location"}}` || change.Compat != "breaking" ||
		change.EffectiveAt != "2026-04-04T12:00:00Z" || len(change.SchemaSHA256) != 64 {
		t.Errorf("c4 schema change = %+v (migration %s)", change, data)
	}

	srv := tl.Servers[0]
	if !srv.Removed || srv.Last.Version != "1.1.0" {
		t.Errorf("server history = %+v", srv)
	}
	fc := srv.Tool("get_forecast")
	var versions []string
	for _, v := range fc.Versions() {
		versions = append(versions, v.From+">"+v.Version)
	}
	if strings.Join(versions, " ") != ">1.0.0 1.0.0>1.1.0 1.1.0>2.0.0 2.0.0>2.0.1 2.0.1>3.0.0" || !fc.Removed {
		t.Errorf("get_forecast versions = %v removed=%v", versions, fc.Removed)
	}
}

func TestDeriveIsDeterministic(t *testing.T) {
	commits := []Commit{{Hash: "a", Time: time.Unix(0, 0), Servers: []Server{
		{Name: "b/two", Version: "1", Endpoint: "https://x", Tools: map[string]tools.Tool{"z": tool(t, `{"name":"z","inputSchema":{"type":"object"}}`), "a": tool(t, `{"name":"a","inputSchema":{"type":"object"}}`)}},
		{Name: "a/one", Version: "1", Endpoint: "https://y", Tools: map[string]tools.Tool{"m": tool(t, `{"name":"m","inputSchema":{"type":"object"}}`)}},
	}}}
	first, _ := derive(commits)
	for i := 0; i < 20; i++ {
		again, _ := derive(commits)
		if fmt.Sprint(slices.Collect(again.Events())) != fmt.Sprint(slices.Collect(first.Events())) {
			t.Fatal("Derive is not deterministic")
		}
	}
	var order []string
	for e := range first.Events() {
		order = append(order, e.EndpointID)
	}
	if strings.Join(order, " ") != "a/one b/two a/one#m b/two#a b/two#z" {
		t.Errorf("order = %v", order)
	}
}

func TestDuplicateServerIsAnError(t *testing.T) {
	s := Server{Name: "a/b", Version: "1", Endpoint: "https://x"}
	if _, err := derive([]Commit{{Hash: "abc", Servers: []Server{s, s}}}); err == nil || !strings.Contains(err.Error(), "commit abc: server a/b is configured twice") {
		t.Errorf("err = %v", err)
	}
}

// A server's version is free text, so it can spell the suffix a name used
// before is given: each event still has a name of its own, and so an id
// (a reader skips an entry whose id it has seen), and the names of a
// history that spells no suffix are the ones it always had.
func TestEventNamesStayUniqueWhenAVersionSpellsASuffix(t *testing.T) {
	at := func(day int) time.Time { return time.Date(2026, 4, day, 12, 0, 0, 0, time.UTC) }
	server := func(version string) []Server {
		return []Server{{Name: "a/b", Version: version, Endpoint: "https://example.com/mcp"}}
	}
	tl, err := derive([]Commit{
		{Hash: "c1", Time: at(1), Servers: server("1.0")},
		{Hash: "c2", Time: at(2)},
		{Hash: "c3", Time: at(3), Servers: server("1.0")},
		{Hash: "c4", Time: at(4)},
		{Hash: "c5", Time: at(5), Servers: server("1.0 #2")},
		{Hash: "c6", Time: at(6)},
		{Hash: "c7", Time: at(7), Servers: server("1.0")},
		{Hash: "c8", Time: at(8)},
	})
	if err != nil {
		t.Fatal(err)
	}
	var removals []string
	seen := map[string]string{}
	for e := range tl.Events() {
		name := e.Type + " " + e.EndpointID + " " + e.Key
		if before, ok := seen[name]; ok {
			t.Errorf("%s and %s are both %q", before, e.Commit, name)
		}
		seen[name] = e.Commit
		if e.Type == agentfeed.TypeDeprecation {
			removals = append(removals, e.Key)
		}
	}
	want := []string{"removed 1.0", "removed 1.0 #2", "removed 1.0 #2 #2", "removed 1.0 #3"}
	if !slices.Equal(removals, want) {
		t.Errorf("removals = %q, want %q", removals, want)
	}
}

// derive replays commits, oldest first.
func derive(commits []Commit) (*Timeline, error) {
	r := NewBuilder(CompareObjects)
	for _, c := range commits {
		if err := r.Commit(c); err != nil {
			return nil, err
		}
	}
	return r.Timeline(), nil
}

// A summary cut short keeps the change that made the version breaking: many
// cosmetic and compatible changes come before it in walk order.
func TestSummaryListsTheMostSeriousChangeFirst(t *testing.T) {
	before := `{"name":"f","description":"a","inputSchema":{"type":"object","properties":{"a":{"type":"string","description":"a"},"b":{"type":"string","description":"b"},"c":{"type":"string","description":"c"},"d":{"type":"string"}}}}`
	after := `{"name":"f","description":"b","inputSchema":{"type":"object","properties":{"a":{"type":"string","description":"x"},"b":{"type":"string","description":"y"},"c":{"type":"string","description":"z"},"d":{"type":"string"},"e":{"type":"string"}},"required":["d"]}}`
	srv := func(src string) Server {
		return Server{Name: "a/b", Version: "1", Endpoint: "https://x", Tools: map[string]tools.Tool{"f": tool(t, src)}}
	}
	tl, err := derive([]Commit{{Hash: "c1", Servers: []Server{srv(before)}}, {Hash: "c2", Servers: []Server{srv(after)}}})
	if err != nil {
		t.Fatal(err)
	}
	last := tl.Event(tl.EventCount() - 1)
	head, _, _ := strings.Cut(last.Summary(), "; ")
	if !strings.Contains(last.Summary(), "(breaking)") || !strings.Contains(head, "`d`") || !strings.HasSuffix(last.Summary(), "more") {
		t.Errorf("summary = %q, want the breaking change (d required) first and the rest cut short", last.Summary())
	}
}

// A server that names the tools a commit touched is replayed for those
// only: a tool it does not name is taken as it was, and one it names that
// is gone is removed.
func TestTouchedToolsAreTheOnlyOnesLookedAt(t *testing.T) {
	alerts2 := `{"name":"list_alerts","description":"Alerts.","inputSchema":{"type":"object"}}`
	server := func(touched []string, ts ...tools.Tool) Server {
		m := map[string]tools.Tool{}
		for _, tl := range ts {
			m[tl.Name] = tl
		}
		return Server{Name: "a/b", Version: "1.0.0", Endpoint: "https://x", Tools: m, Touched: touched}
	}
	tl, err := derive([]Commit{
		{Hash: "c1", Servers: []Server{server(nil, tool(t, v1), tool(t, alertsSrc))}},
		{Hash: "c2", Servers: []Server{server([]string{"get_forecast"}, tool(t, v2), tool(t, alerts2))}},
		{Hash: "c3", Servers: []Server{server([]string{"list_alerts"}, tool(t, v2))}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range slices.Collect(tl.Events())[3:] {
		got = append(got, e.Commit+" "+e.Type+" "+e.EndpointID)
	}
	want := []string{"c2 " + agentfeed.TypeSchemaChange + " a/b#get_forecast", "c3 " + agentfeed.TypeDeprecation + " a/b#list_alerts"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events after the first commit:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A release tagged on a commit records what it ships; releases tagged
// before the server took its versions from tags are announced late, each
// at its own commit and with what it shipped, and the last is not
// announced again at the switch; a tool whose file was renamed to another
// tool's names it as its replacement.
func TestReleasesAndRenames(t *testing.T) {
	at := func(day int) time.Time { return time.Date(2026, 4, day, 12, 0, 0, 0, time.UTC) }
	server := func(version string, ts ...tools.Tool) Server {
		m := map[string]tools.Tool{}
		for _, tl := range ts {
			m[tl.Name] = tl
		}
		return Server{Name: "com.example/weather", Slug: "weather", Version: version, Endpoint: "https://example.com/mcp", Tools: m}
	}
	released := func(s Server, release string) Server { s.Release = release; return s }
	late := server("1.2.0", tool(t, v2), tool(t, alertsSrc))
	late.Releases = []Release{{Version: "1.1.0", Commit: "c2", Time: at(2)}, {Version: "1.2.0", Commit: "c3", Time: at(3)}}
	renamed := server("1.2.0", tool(t, v2), tool(t, strings.Replace(alertsSrc, "list_alerts", "alerts", 1)))
	renamed.Renamed = map[string]string{"list_alerts": "alerts"}
	tl, err := derive([]Commit{
		{Hash: "c1", Time: at(1), Servers: []Server{server("1.0.0", tool(t, v1))}},
		{Hash: "c2", Time: at(2), Servers: []Server{released(server("1.0.0", tool(t, v2)), "1.1.0")}},
		{Hash: "c3", Time: at(3), Servers: []Server{released(server("1.0.0", tool(t, v2), tool(t, alertsSrc)), "1.2.0")}},
		{Hash: "c4", Time: at(4), Servers: []Server{late}},
		{Hash: "c5", Time: at(5), Servers: []Server{renamed}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for e := range tl.Events() {
		line := e.Commit + " " + e.Time.Format(time.DateOnly) + " " + e.Title()
		switch p := e.Payload().(type) {
		case agentfeed.Announcement:
			if p.Tools != "" {
				line += " [" + p.Tools + "]"
			}
		case agentfeed.Deprecation:
			if p.Replacement != nil {
				line += " → " + *p.Replacement
			}
		}
		got = append(got, line)
	}
	want := []string{
		"c1 2026-04-01 com.example/weather 1.0.0 announced",
		"c1 2026-04-01 get_forecast 1.0.0 published",
		"c2 2026-04-02 get_forecast 1.1.0: new optional parameter `days` (compatible)",
		"c3 2026-04-03 list_alerts 1.0.0 published",
		"c2 2026-04-02 com.example/weather 1.1.0 announced [get_forecast@1.1.0]",
		"c3 2026-04-03 com.example/weather 1.2.0 announced [get_forecast@1.1.0 list_alerts@1.0.0]",
		"c5 2026-04-05 alerts 1.0.0 published",
		"c5 2026-04-05 list_alerts removed → com.example/weather#alerts",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if v := tl.Servers[0].Tool("get_forecast").Versions()[1]; v.Release != "1.1.0" {
		t.Errorf("get_forecast 1.1.0 first shipped in %q, want 1.1.0", v.Release)
	}
}

// A release tagged on the very commit that switches the server to release
// tags lists what it ships, as one tagged on any other commit does.
func TestReleaseOnTheSwitch(t *testing.T) {
	at := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	pinned := Server{Name: "com.example/weather", Version: "1.0.0", Endpoint: "https://example.com/mcp", Tools: map[string]tools.Tool{"get_forecast": tool(t, v1)}}
	switched := pinned
	switched.Version, switched.Release = "1.1.0", "1.1.0"
	switched.Tools = map[string]tools.Tool{"get_forecast": tool(t, v2)}
	switched.Releases = []Release{{Version: "1.1.0", Commit: "c2", Time: at.Add(time.Hour)}}
	tl, err := derive([]Commit{
		{Hash: "c1", Time: at, Servers: []Server{pinned}},
		{Hash: "c2", Time: at.Add(time.Hour), Servers: []Server{switched}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for e := range tl.Events() {
		if p, ok := e.Payload().(agentfeed.Announcement); ok && p.EndpointID == "com.example/weather" && p.Version == "1.1.0" {
			tools = append(tools, p.Tools)
		}
	}
	if len(tools) != 1 || tools[0] != "get_forecast@1.1.0" {
		t.Errorf("announcements of 1.1.0 list %q, want one with get_forecast@1.1.0", tools)
	}
}

// The events about one tool, and their payloads, share one string for its
// endpoint id: a long history has many events about few tools.
func TestEventsShareToolEndpointID(t *testing.T) {
	server := func(src string) Server {
		tl := tool(t, src)
		return Server{Name: "com.example/weather", Slug: "weather", Version: "1.0.0", Endpoint: "https://example.com/mcp",
			Tools: map[string]tools.Tool{tl.Name: tl}}
	}
	tl, err := derive([]Commit{
		{Hash: "c1", Time: time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC), Servers: []Server{server(v1)}},
		{Hash: "c2", Time: time.Date(2026, 4, 2, 12, 0, 0, 0, time.UTC), Servers: []Server{server(v2)}},
		{Hash: "c3", Time: time.Date(2026, 4, 3, 12, 0, 0, 0, time.UTC), Servers: []Server{server(v3)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for e := range tl.Events() {
		switch p := e.Payload().(type) {
		case agentfeed.Announcement:
			if p.Protocol == ProtocolTool {
				ids = append(ids, e.EndpointID, p.EndpointID)
			}
		case agentfeed.SchemaChange:
			ids = append(ids, e.EndpointID, p.EndpointID)
		}
	}
	if len(ids) != 6 {
		t.Fatalf("%d tool endpoint ids in the events, want 6: %q", len(ids), ids)
	}
	for _, id := range ids[1:] {
		if id != ids[0] || unsafe.StringData(id) != unsafe.StringData(ids[0]) {
			t.Errorf("endpoint id %q is a string of its own", id)
		}
	}
}

// An announcement or a schema change keeps no text of its own, and a
// schema change no payload: its Title, Summary and Payload are made when
// asked for, as the builder would have made them.
func TestEventsMakeTheirTextsWhenAsked(t *testing.T) {
	at := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	// A server's name may hold a "#", which a tool's cannot: the texts,
	// signed, are made of the names as given.
	for _, name := range []string{"com.example/weather", "acme#beta"} {
		server := func(src string) Server {
			tl := tool(t, src)
			return Server{Name: name, Slug: "weather", Version: "1.0.0", Endpoint: "https://example.com/mcp",
				Tools: map[string]tools.Tool{tl.Name: tl}}
		}
		tl, err := derive([]Commit{{Hash: "c1", Time: at, Servers: []Server{server(v1)}}, {Hash: "c2", Time: at.AddDate(0, 0, 1), Servers: []Server{server(v3)}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for e := range tl.Events() {
			if e.title != "" || e.summary != "" {
				t.Errorf("event %s %s keeps its texts", e.Type, e.EndpointID)
			}
			if e.Type == agentfeed.TypeSchemaChange && e.payload != nil {
				t.Errorf("schema change %s keeps its payload", e.EndpointID)
			}
			got = append(got, e.Title()+" | "+e.Summary())
		}
		want := []string{
			name + " 1.0.0 announced | " + name + " 1.0.0 at https://example.com/mcp",
			"get_forecast 1.0.0 published | get_forecast 1.0.0 on " + name,
			"get_forecast 2.0.0: parameter `city` renamed to `location`, and 1 more (breaking) | get_forecast 1.0.0 → 2.0.0 (breaking): parameter `city` renamed to `location`; new optional parameter `days`",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("texts:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// storedChange is a change a test keeps outside the timeline.
type storedChange struct {
	packed []byte
	err    error
}

func (s storedChange) Read() ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	return slices.Clone(s.packed), nil
}

// A Builder with a change store keeps no change itself, and reads each
// back equal to the one kept in memory; one that cannot be read back is
// empty, never taken for a first version. A store that keeps nothing
// leaves the change in memory.
func TestStoredChangesReadBack(t *testing.T) {
	at := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	var commits []Commit
	for i, src := range []string{v1, v2, v3} {
		tl := tool(t, src)
		commits = append(commits, Commit{Hash: fmt.Sprint("c", i), Time: at.AddDate(0, 0, i), Servers: []Server{{Name: "com.example/weather",
			Slug: "weather", Version: "1.0.0", Endpoint: "https://example.com/mcp", Tools: map[string]tools.Tool{tl.Name: tl}}}})
	}
	want, err := derive(commits)
	if err != nil {
		t.Fatal(err)
	}
	wantVersions := want.Servers[0].Tool("get_forecast").Versions()
	for _, c := range []struct {
		name  string
		store func(schemadiff.Packed) tools.Stored
		empty bool // what is read back is empty
	}{
		{"stored", func(p schemadiff.Packed) tools.Stored { return storedChange{packed: []byte(p)} }, false},
		{"unreadable", func(schemadiff.Packed) tools.Stored { return storedChange{err: errors.New("cut short")} }, true},
		{"not kept", func(schemadiff.Packed) tools.Stored { return nil }, false},
	} {
		r := NewBuilder(CompareObjects)
		r.StoreChanges(c.store)
		for _, commit := range commits {
			if err := r.Commit(commit); err != nil {
				t.Fatal(err)
			}
		}
		versions := r.Timeline().Servers[0].Tool("get_forecast").Versions()
		if len(versions) != len(wantVersions) || len(versions) < 3 {
			t.Fatalf("%s: %d versions, want %d", c.name, len(versions), len(wantVersions))
		}
		for i, v := range versions {
			got, want := v.Change(), wantVersions[i].Change()
			_, inMemory := v.change.(schemadiff.Packed)
			switch {
			case i == 0 && got != nil:
				t.Errorf("%s: the first version has a change %+v", c.name, got)
			case i > 0 && inMemory != (c.name == "not kept"):
				t.Errorf("%s: version %s kept in memory %v", c.name, v.Version, inMemory)
			case i > 0 && c.empty && (got == nil || !reflect.DeepEqual(*got, schemadiff.Result{})):
				t.Errorf("%s: version %s reads back %+v, want an empty change", c.name, v.Version, got)
			case i > 0 && !c.empty && !reflect.DeepEqual(got, want):
				t.Errorf("%s: version %s reads back %+v, want %+v", c.name, v.Version, got, want)
			}
		}
	}
}

// countedChange counts the reads of a change a test keeps.
type countedChange struct {
	packed []byte
	reads  *int
}

func (c countedChange) Read() ([]byte, error) {
	*c.reads++
	return slices.Clone(c.packed), nil
}

// Texts gives what Title, Summary and Payload give, reading a stored
// change once for the three.
func TestTextsAreTheEventsTextsAtOnce(t *testing.T) {
	at := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	reads := 0
	r := NewBuilder(CompareObjects)
	r.StoreChanges(func(p schemadiff.Packed) tools.Stored { return countedChange{[]byte(p), &reads} })
	for i, src := range []string{v1, v2, v3} {
		tl := tool(t, src)
		err := r.Commit(Commit{Hash: fmt.Sprint("c", i), Time: at.AddDate(0, 0, i), Servers: []Server{{Name: "com.example/weather",
			Slug: "weather", Version: "1.0.0", Endpoint: "https://example.com/mcp", Tools: map[string]tools.Tool{tl.Name: tl}}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	changes := 0
	for e := range r.Timeline().Events() {
		reads = 0
		title, summary, payload := e.Texts()
		if e.Version() != nil {
			changes++
			if reads != 1 {
				t.Errorf("%s %s: Texts read its change %d times, want once", e.Type, e.Key, reads)
			}
		}
		if title != e.Title() || summary != e.Summary() || !reflect.DeepEqual(payload, e.Payload()) {
			t.Errorf("%s %s: Texts = %q, %q, %+v; want %q, %q, %+v", e.Type, e.Key, title, summary, payload, e.Title(), e.Summary(), e.Payload())
		}
	}
	if changes != 2 {
		t.Errorf("%d schema changes, want 2", changes)
	}
}

// A superseded version, held compact, is made back as it was: slug,
// file, release, time, SHA-256, canonical bytes and change, and one that
// cannot be held so (a time with a zone, a SHA-256 repository's commit
// hash) is kept as it was.
func TestSupersededVersionsAreMadeAsTheyWere(t *testing.T) {
	at := func(day int) time.Time { return time.Date(2026, 4, day, 12, 0, 0, 0, time.UTC) }
	moved := func(src, file string) tools.Tool { tl := tool(t, src); tl.File = file; return tl }
	// A spooled build's versions are stored, with their bytes let go of.
	stored := func(src string) tools.Tool {
		tl := tool(t, src)
		tl.Stored, tl.Canonical = storedBytes(tl.Canonical), nil
		return tl
	}
	server := func(slug, release string, tl tools.Tool) Server {
		return Server{Name: "com.example/weather", Slug: slug, Version: "1.0.0", Endpoint: "https://example.com/mcp",
			Tools: map[string]tools.Tool{tl.Name: tl}, Release: release}
	}
	r := NewBuilder(CompareObjects)
	r.HandleStored(&handleTable{})
	commits := []Commit{
		{Hash: hash(1), Time: at(1), Servers: []Server{server("weather", "", tool(t, v1))}},
		{Hash: hash(2), Time: at(2), Servers: []Server{server("weather", "1.1.0", moved(v2, "tools/forecast.json"))}},
		{Hash: hash(3), Time: at(3).In(time.FixedZone("CEST", 2*3600)), Servers: []Server{server("sky", "", tool(t, v3))}},
		{Hash: hash(4), Time: at(4).Add(time.Millisecond), Servers: []Server{server("sky", "2.0.0", tool(t, v4))}},
		{Hash: strings.ToUpper(hash(10)), Time: at(5), Servers: []Server{server("weather", "", stored(v2))}},
		{Hash: strings.Repeat(hash(6)[:32], 2), Time: at(6), Servers: []Server{server("weather", "", stored(v3))}},
		{Hash: hash(7), Time: at(7), Servers: []Server{server("weather", "", tool(t, v1))}},
	}
	want := map[string]Version{}
	for _, c := range commits {
		if err := r.Commit(c); err != nil {
			t.Fatal(err)
		}
		v := *r.Timeline().Servers[0].Tool("get_forecast").Latest()
		v.Tool.Object = nil // a superseded version's is let go
		want[v.Version] = v
	}
	th := r.Timeline().Servers[0].Tool("get_forecast")
	if th.Len() != 7 || len(th.odd) != 4 {
		t.Fatalf("%d versions, %d kept as they were; want 7 and 4", th.Len(), len(th.odd))
	}
	for i, v := range th.Versions()[:th.Len()-1] {
		if w := want[v.Version]; !reflect.DeepEqual(*v, w) {
			t.Errorf("version %d made back as\n%+v\nwant\n%+v", i, *v, w)
		}
	}
}

// A replay's schema changes are held by their versions alone, and made
// again from them field for field as the replay made them, also once the
// versions are superseded, and for a version kept as it was.
func TestSchemaChangesAreMadeAgainAsTheyWere(t *testing.T) {
	at := func(day int) time.Time { return time.Date(2026, 4, day, 12, 0, 0, 0, time.UTC) }
	server := func(tl tools.Tool) Server {
		return Server{Name: "com.example/weather", Slug: "weather", Version: "1.0.0", Endpoint: "https://example.com/mcp",
			Tools: map[string]tools.Tool{tl.Name: tl}}
	}
	r := NewBuilder(CompareObjects)
	commits := []Commit{
		{Hash: hash(1), Time: at(1), Servers: []Server{server(tool(t, v1))}},
		{Hash: hash(2), Time: at(2), Servers: []Server{server(tool(t, v2))}},
		{Hash: hash(3), Time: at(3).In(time.FixedZone("CEST", 2*3600)), Servers: []Server{server(tool(t, v3))}},
		{Hash: hash(4), Time: at(4).Add(time.Millisecond), Servers: []Server{server(tool(t, v4))}},
		{Hash: "c5", Time: at(5), Servers: []Server{server(tool(t, v1))}},
		{Hash: hash(6), Time: at(6), Servers: []Server{server(tool(t, v2))}},
	}
	var made []Event // each as it was made, while its version was the latest
	for _, c := range commits {
		if err := r.Commit(c); err != nil {
			t.Fatal(err)
		}
		tl := r.Timeline()
		for i := len(made); i < tl.EventCount(); i++ {
			e := tl.Event(i)
			if e.Commit != c.Hash || e.Time != c.Time {
				t.Errorf("event %d made at %s %v, want %s %v", i, e.Commit, e.Time, c.Hash, c.Time)
			}
			made = append(made, e)
		}
	}
	tl := r.Timeline()
	changes := 0
	for i, e := range slices.Collect(tl.Events()) {
		if e.Type == agentfeed.TypeSchemaChange {
			changes++
		}
		if !reflect.DeepEqual(e, made[i]) || e.Time.Location().String() != made[i].Time.Location().String() {
			t.Errorf("event %d made again as\n%+v\nwant\n%+v", i, e, made[i])
		}
	}
	if changes != 5 || len(tl.events.others) != len(made)-changes {
		t.Errorf("%d of %d events held whole, with %d schema changes; want all but the 5 schema changes", len(tl.events.others), len(made), changes)
	}
	if got := made[len(made)-1].Key; got != "3.0.0 -> 3.1.0" {
		t.Errorf("the last schema change's key is %q", got)
	}
}

// A version whose From is not the version before it is kept as it was:
// a compact one takes its From from the version before.
func TestAVersionFromElsewhereIsKeptAsItWas(t *testing.T) {
	th := &ToolHistory{Name: "get_forecast"}
	at := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	for i, from := range []string{"", "1.0.0", "9.9.9", "1.2.0"} {
		v := []string{"1.0.0", "1.1.0", "1.2.0", "1.3.0"}[i]
		th.add(&Version{Version: v, From: from, Commit: hash(1), Time: at,
			Tool: tools.Tool{Name: "get_forecast", SHA256: strings.Repeat("ab", 32)}})
	}
	var got []string
	for _, v := range th.Versions() {
		got = append(got, v.From+">"+v.Version)
	}
	if strings.Join(got, " ") != ">1.0.0 1.0.0>1.1.0 9.9.9>1.2.0 1.2.0>1.3.0" || len(th.odd) != 1 {
		t.Errorf("versions made back as %q, %d kept as they were; want the Froms given and 1", got, len(th.odd))
	}
}

// hash is a commit hash as git gives it: 40 lowercase hex digits.
func hash(n int) string { return fmt.Sprintf("%040x", n) }

// storedBytes is bytes kept "outside memory", for tests.
type storedBytes []byte

func (b storedBytes) Read() ([]byte, error) { return []byte(b), nil }

// handleTable names the storedBytes and storedChanges it is given by
// their place in it, and refuses any other Stored, as a spool refuses
// bytes it cannot name.
type handleTable struct{ stored []tools.Stored }

func (h *handleTable) Handle(s tools.Stored) (uint64, bool) {
	switch s.(type) {
	case storedBytes, storedChange:
	default:
		return 0, false
	}
	h.stored = append(h.stored, s)
	return uint64(len(h.stored)), true
}

func (h *handleTable) Stored(handle uint64) tools.Stored { return h.stored[handle-1] }

// otherStored is bytes kept elsewhere, which handleTable cannot name.
type otherStored []byte

func (b otherStored) Read() ([]byte, error) { return []byte(b), nil }

// A superseded version whose stored bytes and change have handles holds
// the handles alone, and is made back from them as it was: its bytes
// and its change read back as they were stored. One whose bytes have no
// handle is kept as it was; one whose change has none keeps that change
// as it is.
func TestSupersededVersionsHoldHandles(t *testing.T) {
	at := func(day int) time.Time { return time.Date(2026, 4, day, 12, 0, 0, 0, time.UTC) }
	stored := func(src string, other bool) tools.Tool {
		tl := tool(t, src)
		tl.Stored, tl.Canonical = storedBytes(tl.Canonical), nil
		if other {
			tl.Stored = otherStored(tl.Stored.(storedBytes))
		}
		return tl
	}
	changes := 0
	r := NewBuilder(CompareObjects)
	r.StoreChanges(func(p schemadiff.Packed) tools.Stored {
		changes++
		if changes == 3 {
			return otherStored(p)
		}
		return storedChange{packed: []byte(p)}
	})
	handles := &handleTable{}
	r.HandleStored(handles)
	var want []Version
	for i, tl := range []tools.Tool{stored(v1, false), stored(v2, false), stored(v3, true), stored(v4, false), stored(v1, false), stored(v2, false)} {
		err := r.Commit(Commit{Hash: hash(i + 1), Time: at(i + 1), Servers: []Server{{Name: "com.example/weather", Slug: "weather",
			Version: "1.0.0", Endpoint: "https://example.com/mcp", Tools: map[string]tools.Tool{tl.Name: tl}}}})
		if err != nil {
			t.Fatal(err)
		}
		v := *r.Timeline().Servers[0].Tool("get_forecast").Latest()
		v.Tool.Object = nil
		want = append(want, v)
	}
	th := r.Timeline().Servers[0].Tool("get_forecast")
	if th.Len() != 6 || len(th.odd) != 1 || th.odd[2] == nil {
		t.Fatalf("%d versions, %v kept as they were; want 6 and version 2", th.Len(), slices.Collect(maps.Keys(th.odd)))
	}
	// The third change has no handle; the one after it has, and leaves
	// nothing behind it in changes.
	if len(th.changes) != 4 || !reflect.DeepEqual(th.changes[3], want[3].change) {
		t.Errorf("changes kept as they are: %v; want the third change, at index 3, alone", th.changes)
	}
	for i := range th.past.len() {
		p, _ := th.past.get(i)
		if i == 2 {
			continue
		}
		if p.stored == 0 || (p.change == 0) != (i == 0 || i == 3) {
			t.Errorf("version %d held with handles %d and %d", i, p.stored, p.change)
		}
	}
	for i := range th.Len() - 1 {
		v := th.At(i)
		if !reflect.DeepEqual(*v, want[i]) {
			t.Errorf("version %d made back as\n%+v\nwant\n%+v", i, *v, want[i])
		}
		canonical, err := v.Tool.ReadCanonical()
		if wantCanonical, _ := want[i].Tool.ReadCanonical(); err != nil || string(canonical) != string(wantCanonical) {
			t.Errorf("version %d reads back %s, %v; want %s", i, canonical, err, wantCanonical)
		}
		if got, wantChange := v.Change(), want[i].Change(); !reflect.DeepEqual(got, wantChange) || (i > 0) != (got != nil && len(got.Changes) > 0) {
			t.Errorf("version %d's change reads back %+v, want %+v", i, got, wantChange)
		}
	}
}

// Events past a chunk's end, of several tools and some held whole, are
// made again as they were added, each naming its own tool and version.
func TestEventsAcrossChunks(t *testing.T) {
	at := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	ths := []*ToolHistory{{Server: "com.example/a", Name: "one"}, {Server: "com.example/b", Name: "two"}, {Server: "com.example/a", Name: "three"}}
	var l eventList
	toolAt := map[*ToolHistory]uint32{}
	var want []Event
	whole := 0
	for i := range 2*eventChunk + 3 {
		if i%1000 == 7 {
			whole++
			e := NewEvent(agentfeed.TypeAnnouncement, "com.example/a", fmt.Sprint("announced ", i), hash(i+1), at, nil)
			l.add(e, toolAt)
			want = append(want, e)
			continue
		}
		th := ths[i%len(ths)]
		n := th.Len()
		from := ""
		if n > 0 {
			from = th.At(n - 1).Version
		}
		v := &Version{Version: fmt.Sprintf("1.0.%d", n), From: from, Commit: hash(i + 1), Time: at.Add(time.Duration(i) * time.Second),
			Tool: tools.Tool{Name: th.Name, SHA256: strings.Repeat("ab", 32)}}
		th.add(v)
		e := Event{Type: agentfeed.TypeSchemaChange, EndpointID: th.EndpointID(), Key: changeKey(from, v.Version), Commit: v.Commit, Time: v.Time, tool: th, at: int32(n)}
		l.add(e, toolAt)
		want = append(want, e)
	}
	tl := Timeline{events: l}
	if tl.EventCount() != len(want) || len(l.others) != whole || len(l.tools) != len(ths) {
		t.Fatalf("%d events, %d held whole, %d tools; want %d, %d, %d", tl.EventCount(), len(l.others), len(l.tools), len(want), whole, len(ths))
	}
	for i, e := range slices.Collect(tl.Events()) {
		if !reflect.DeepEqual(e, want[i]) {
			t.Fatalf("event %d made again as\n%+v\nwant\n%+v", i, e, want[i])
		}
	}

	// A timeline shares its last chunk with the builder going on past it
	// (a resumed replay): an event past its own is out of range.
	before := tl
	l.add(want[0], toolAt)
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("event %d of a timeline of %d was made", before.EventCount(), before.EventCount())
			}
		}()
		before.Event(before.EventCount())
	}()
}
