package replay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// cardEndpoint stands in for the generator's endpoint (a remote, else the
// card), so that a test can tell the replay asked it.
func cardEndpoint(s site.Server) string { return "https://endpoint.test/" + s.Slug }

func load(t testing.TB, dir string) *site.Config {
	t.Helper()
	cfg, err := site.Load(filepath.Join(dir, "site.toml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Read replays a committed site into a timeline of every configured server,
// at the endpoints Input.Endpoint gives.
func TestReadReplaysCommittedSite(t *testing.T) {
	repo := gittest.ExampleRepo(t)
	cfg := load(t, repo.Dir)
	out, err := readAndPlay(Input{Config: cfg, Endpoint: cardEndpoint})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Timeline.Servers) != len(cfg.Servers) || out.Timeline.EventCount() == 0 {
		t.Fatalf("timeline has %d servers and %d events; want %d servers and some events", len(out.Timeline.Servers), out.Timeline.EventCount(), len(cfg.Servers))
	}
	for i, s := range out.Timeline.Servers {
		if want := cardEndpoint(cfg.Servers[i]); s.Name != cfg.Servers[i].Name || s.Last.Endpoint != want {
			t.Errorf("server %d: %s at %q; want %s at %q", i, s.Name, s.Last.Endpoint, cfg.Servers[i].Name, want)
		}
	}
}

// A site outside git has an empty history: a warning, or the error when
// strict.
func TestReadOutsideGit(t *testing.T) {
	dir := t.TempDir()
	if err := gittest.CopyExampleSite(dir, false); err != nil {
		t.Fatal(err)
	}
	out, err := readAndPlay(Input{Config: load(t, dir), Endpoint: cardEndpoint})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Timeline.Servers) != 0 || len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0].Error(), "is not in a git repository") {
		t.Errorf("timeline %d servers, warnings %q; want an empty timeline and the warning", len(out.Timeline.Servers), out.Warnings)
	}
	if _, err := readAndPlay(Input{Config: load(t, dir), Endpoint: cardEndpoint, Strict: true}); err == nil || !strings.Contains(err.Error(), "is not in a git repository") {
		t.Errorf("strict: error %v; want that the site is not in a git repository", err)
	}
}
