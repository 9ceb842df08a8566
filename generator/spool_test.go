package generator

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/internal/gittest"
	"github.com/wellknown-dev/wellknown/internal/spooltest"
)

// A build with Options.Spool writes the same bytes as one without, on a
// history longer than the pages diff: the archived versions, feed archives
// and large pages (a long description makes the tool's) come from the
// spool. Its Result keeps no feed entries and no timeline, but counts
// entries and versions.
func TestSpooledBuildWritesTheSameBytes(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", strings.Replace(fixtureSite, "%s", "1.0.0", 1)+"\n[feed]\npage_size = 3\n")
	versions := pages.DiffedVersions + 4
	for i := range versions {
		var props []string
		for j := range i + 1 {
			props = append(props, fmt.Sprintf(`"p%d": {"type": "string"}`, j))
		}
		g.Write("tools/get_forecast.json", fmt.Sprintf(`{"name": "get_forecast", "description": %q, "inputSchema": {"type": "object", "properties": {%s}}}`,
			strings.Repeat("Forecast. ", 2000), strings.Join(props, ", ")))
		g.Commit(fmt.Sprintf("parameter %d", i))
	}
	config := filepath.Join(g.Dir, "site.toml")
	var trees []string
	var counted []int
	for _, spool := range []bool{false, true} {
		res, err := Build(Options{ConfigPath: config, Getenv: testEnv, Spool: spool})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		if (res.Entries == nil) != spool || (res.Timeline == nil) != spool {
			t.Errorf("spool %v: %d entries kept, timeline kept %v", spool, len(res.Entries), res.Timeline != nil)
		}
		if res.Counts.Versions != versions {
			t.Errorf("spool %v: %d versions counted, want %d", spool, res.Counts.Versions, versions)
		}
		counted = append(counted, res.Counts.Entries)
		page, ok := res.Bundle.Get("/servers/forecast/tools/get_forecast/index.html")
		if !ok || (page.Body == nil) != spool {
			t.Errorf("spool %v: the tool page found %v, out of memory %v", spool, ok, ok && page.Body == nil)
		}
		out := filepath.Join(t.TempDir(), "public")
		if err := res.Write(out, true); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, treeDigest(t, out))
	}
	if counted[0] != counted[1] || counted[0] < versions {
		t.Errorf("entries counted %v, want one count, at least %d", counted, versions)
	}
	if trees[0] != trees[1] {
		t.Errorf("the spooled build wrote other bytes:\n%s\n---\n%s", trees[0], trees[1])
	}
}

// A repository whose objects are named by their SHA-256 builds, spooled
// or not, the same bytes, its versions made in commits with hashes of 64
// digits, more than a superseded version holds compact.
func TestSHA256RepositoryBuilds(t *testing.T) {
	g := gittest.NewSHA256(t, t.TempDir())
	commitParameters(g, 3)
	if head := strings.TrimSpace(g.Git("rev-parse", "HEAD")); len(head) != 64 {
		t.Fatalf("HEAD is %s, want a SHA-256", head)
	}
	buildsTheSameSpooledOrNot(t, g, 3)
}

// buildsTheSameSpooledOrNot builds g's site spooled and not, and fails
// unless both count the versions given and write the same bytes.
func buildsTheSameSpooledOrNot(t *testing.T, g *gittest.Repo, versions int) {
	t.Helper()
	var trees []string
	for _, spool := range []bool{false, true} {
		res, err := Build(Options{ConfigPath: filepath.Join(g.Dir, "site.toml"), Getenv: testEnv, Spool: spool, Strict: true})
		if err != nil {
			t.Fatalf("spool %v: %v", spool, err)
		}
		defer res.Close()
		if res.Counts.Versions != versions {
			t.Errorf("spool %v: %d versions, want %d", spool, res.Counts.Versions, versions)
		}
		out := filepath.Join(t.TempDir(), "public")
		if err := res.Write(out, true); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, treeDigest(t, out))
	}
	if trees[0] != trees[1] {
		t.Errorf("the spooled build wrote other bytes:\n%s\n---\n%s", trees[0], trees[1])
	}
}

// commitParameters commits the fixture site, and n versions of its tool,
// each with a parameter of its own, a commit each.
func commitParameters(g *gittest.Repo, n int) {
	commits := make([]map[string]string, n)
	for i := range commits {
		commits[i] = map[string]string{"tools/get_forecast.json": fmt.Sprintf(
			`{"name": "get_forecast", "inputSchema": {"type": "object", "properties": {"p%d": {"type": "string"}}}}`, i)}
	}
	commits[0]["site.toml"] = strings.Replace(fixtureSite, "%s", "1.0.0", 1)
	g.CommitEach("parameter", commits)
}

// A spooled build whose spool cannot give back what the replay kept there
// (a version's change, which the signing reads without an error of its
// own) fails once signed, naming the temporary file, before it renders:
// not with what an empty change would make of the entries (with
// --previous, a published entry that changed), nor later at the key
// scan, which cannot read the spool either. So does one whose tool has
// more superseded versions than a chunk, which the spool holds too (see
// timeline.Builder.KeepPastIn): versions that say nothing, not a panic.
func TestSpooledBuildFailsOnASpoolCutShort(t *testing.T) {
	for _, versions := range []int{3, 2*128 + 3} {
		g := gittest.New(t, t.TempDir())
		commitParameters(g, versions)
		cut, rendered := false, false
		progress := func(stage string) {
			rendered = rendered || strings.HasPrefix(stage, "render")
			if strings.HasPrefix(stage, "sign") {
				cut = spooltest.CutShort(t, 0)
			}
		}
		res, err := Build(Options{ConfigPath: filepath.Join(g.Dir, "site.toml"), Getenv: testEnv, Spool: true, Progress: progress})
		if err == nil {
			res.Close()
		}
		if !cut {
			t.Fatal("found no spool to cut short")
		}
		if err == nil || !strings.Contains(err.Error(), "reading the build's temporary file back: ") || rendered {
			t.Errorf("%d versions: Build with its spool cut short = %v, rendered %v; want an error reading it back, once signed", versions, err, rendered)
		}
	}
}

// A spooled build keeps a tool's superseded versions in its spool, a
// chunk at a time (see timeline.Builder.KeepPastIn), and writes the same
// bytes as a build that holds them: a history of two chunks and more,
// whose feed entries, archived versions and pages each read them back.
func TestSpooledBuildReadsPastVersionsBack(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	const n = 2*128 + 3
	commitParameters(g, n)
	buildsTheSameSpooledOrNot(t, g, n)
}
