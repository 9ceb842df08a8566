package worktree

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
)

// A landing that removes every tool of a server is reported unless
// site.toml acknowledges the removal of each tool: by a [[breaking]]
// removal of the server or of the tool, or by a deprecation of either
// whose sunset the landing comes after.
func TestEmptiedServersAcknowledged(t *testing.T) {
	const server = "com.example.weather/forecast"
	emptied := time.Date(2027, 1, 15, 9, 0, 0, 0, time.UTC) // after weatherSite's sunset of get_forecast
	breaking := func(endpoint string) string {
		return fmt.Sprintf("\n[[breaking]]\nendpoint = %q\nto = \"removed\"\n", endpoint)
	}
	deprecation := func(endpoint, sunset string) string {
		return fmt.Sprintf("\n[[deprecations]]\nendpoint = %q\nannounced_at = \"2026-05-01T00:00:00Z\"\nsunset = %q\n", endpoint, sunset)
	}
	for _, tc := range []struct {
		name, extra string
		reported    bool
	}{
		{"get_radar not acknowledged", "", true},
		{"the server removed", breaking(server), false},
		{"each tool removed", breaking(server+"#get_forecast") + breaking(server+"#get_radar"), false},
		{"one tool removed", breaking(server + "#get_forecast"), true},
		{"get_radar deprecated, sunset before", deprecation(server+"#get_radar", "2027-01-01T00:00:00Z"), false},
		{"get_radar deprecated, sunset after", deprecation(server+"#get_radar", "2027-02-01T00:00:00Z"), true},
		{"the server deprecated, sunset before", deprecation(server, "2027-01-01T00:00:00Z"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := site.Parse("site.toml", weatherSite+tc.extra, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := EmptiedServers(cfg, emptiedHistory(t, cfg, emptied))
			if !tc.reported && len(got) != 0 {
				t.Errorf("EmptiedServers = %+v, want none", got)
			}
			if tc.reported && (len(got) != 1 || got[0].Server != server || !got[0].Time.Equal(emptied) ||
				!slices.Equal(got[0].Tools, []string{server + "#get_forecast", server + "#get_radar"})) {
				t.Errorf("EmptiedServers = %+v, want the landing at %v removing both tools", got, emptied)
			}
		})
	}
}

// emptiedHistory is a history in which cfg's one server has two tools,
// loses both at the commit at emptied, and has them back the day after.
func emptiedHistory(t *testing.T, cfg *site.Config, emptied time.Time) *timeline.Timeline {
	t.Helper()
	both := map[string]tools.Tool{}
	for _, name := range []string{"get_forecast", "get_radar"} {
		tool, err := tools.Parse(name+".json", []byte(`{"name": "`+name+`", "inputSchema": {"type": "object"}}`))
		if err != nil {
			t.Fatal(err)
		}
		both[name] = tool
	}
	s := cfg.Servers[0]
	r := timeline.NewBuilder(timeline.CompareObjects)
	for i, ts := range []map[string]tools.Tool{both, {}, both} {
		c := timeline.Commit{Hash: fmt.Sprintf("%040d", i+1), Time: emptied.AddDate(0, 0, i-1),
			Servers: []timeline.Server{{Name: s.Name, Slug: s.Slug, Version: s.Version, Endpoint: cfg.Endpoint(s), Tools: ts}}}
		if err := r.Commit(c); err != nil {
			t.Fatal(err)
		}
	}
	return r.Timeline()
}

// readCounter counts the reads of the changes a test's timeline stores.
type readCounter struct {
	packed []byte
	reads  *int
}

func (c readCounter) Read() ([]byte, error) {
	*c.reads++
	return c.packed, nil
}

// Finding the emptied servers reads no schema change: a build to disk
// keeps them in its spool, and reads each back when asked for.
func TestEmptiedServersReadNoChange(t *testing.T) {
	cfg, err := site.Parse("site.toml", weatherSite, nil)
	if err != nil {
		t.Fatal(err)
	}
	reads, stored := 0, 0
	r := timeline.NewBuilder(timeline.CompareObjects)
	r.StoreChanges(func(p schemadiff.Packed) tools.Stored {
		stored++
		return readCounter{[]byte(p), &reads}
	})
	s := cfg.Servers[0]
	for i, props := range []string{`{}`, `{"days": {"type": "integer"}}`, ""} {
		ts := map[string]tools.Tool{}
		if props != "" {
			tool, err := tools.Parse("get_radar.json", []byte(`{"name": "get_radar", "inputSchema": {"type": "object", "properties": `+props+`}}`))
			if err != nil {
				t.Fatal(err)
			}
			ts[tool.Name] = tool
		}
		c := timeline.Commit{Hash: fmt.Sprintf("%040d", i+1), Time: time.Date(2027, 1, i+1, 9, 0, 0, 0, time.UTC),
			Servers: []timeline.Server{{Name: s.Name, Slug: s.Slug, Version: s.Version, Endpoint: cfg.Endpoint(s), Tools: ts}}}
		if err := r.Commit(c); err != nil {
			t.Fatal(err)
		}
	}
	if got := EmptiedServers(cfg, r.Timeline()); len(got) != 1 || stored != 1 || reads != 0 {
		t.Errorf("%d servers emptied, %d changes stored, %d read; want 1, 1 and none read", len(got), stored, reads)
	}
}
