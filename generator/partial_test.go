package generator

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// A blobless clone of a site, served from a file:// remote that allows
// filters, builds the same bundle as a full clone, having fetched the blobs
// its checkout lacks in one batch, with one notice.
func TestPartialCloneBuildsLikeFullClone(t *testing.T) {
	origin := gittest.ExampleRepo(t)
	tool := filepath.Join(origin.Dir, "content/servers/forecast/tools/get_forecast.json")
	for _, step := range [][2]string{{"14", "10"}, {"10", "7"}} {
		was, days := step[0], step[1]
		data, err := os.ReadFile(tool)
		if err != nil {
			t.Fatal(err)
		}
		origin.Write("content/servers/forecast/tools/get_forecast.json", strings.Replace(string(data), `"maximum": `+was, `"maximum": `+days, 1))
		origin.Commit("forecast: at most " + days + " days")
	}
	origin.Git("config", "uploadpack.allowFilter", "true")
	url := "file://" + filepath.ToSlash(origin.Dir)
	full, partial := filepath.Join(t.TempDir(), "full"), filepath.Join(t.TempDir(), "partial")
	origin.Git("clone", "--quiet", url, full)
	origin.Git("clone", "--quiet", "--filter=blob:none", url, partial)

	want := build(t, filepath.Join(full, "site.toml"))
	got := build(t, filepath.Join(partial, "site.toml"))
	fetched := func(n string) bool { return strings.Contains(n, "is a partial clone") }
	if slices.ContainsFunc(want.Notices, fetched) {
		t.Errorf("full clone: notices %q; want none about fetching", want.Notices)
	}
	if !slices.ContainsFunc(got.Notices, func(n string) bool {
		return strings.Contains(n, "is a partial clone: fetched its 2 missing blobs from origin in one batch")
	}) || len(got.Notices) != len(want.Notices)+1 {
		t.Errorf("partial clone: notices %q; want one more than the full clone, saying 2 blobs were fetched", got.Notices)
	}
	if want.Counts.Entries < 3 {
		t.Fatalf("the full clone's feed has %d entries; the fixture's changes are missing", want.Counts.Entries)
	}
	wantFiles, gotFiles := want.Bundle.Files(), got.Bundle.Files()
	if len(wantFiles) != len(gotFiles) {
		t.Fatalf("partial clone: %d files; full clone: %d", len(gotFiles), len(wantFiles))
	}
	for i, f := range wantFiles {
		if g := gotFiles[i]; g.Path != f.Path || !bytes.Equal(g.Body, f.Body) {
			t.Errorf("%s differs between the partial and the full clone", f.Path)
		}
	}
}

// A partial clone whose remote is gone fails with git's reason and the fix.
func TestPartialCloneWithoutItsRemote(t *testing.T) {
	origin := gittest.ExampleRepo(t)
	origin.Write("content/servers/forecast/tools/get_forecast.json", `{"name": "get_forecast", "inputSchema": {"type": "object"}}`)
	origin.Commit("a second version of get_forecast")
	origin.Git("config", "uploadpack.allowFilter", "true")
	partial := filepath.Join(t.TempDir(), "partial")
	origin.Git("clone", "--quiet", "--filter=blob:none", "file://"+filepath.ToSlash(origin.Dir), partial)
	if err := os.Rename(origin.Dir, origin.Dir+".gone"); err != nil {
		t.Fatal(err)
	}
	_, err := Build(Options{ConfigPath: filepath.Join(partial, "site.toml"), Getenv: testEnv})
	if err == nil || !strings.Contains(err.Error(), "git fetch origin (the missing blobs of a partial clone)") ||
		!strings.Contains(diag.Hint(err), "make it reachable, or clone without --filter") {
		t.Errorf("build: %v (hint %q); want the failed fetch and its fix", err, diag.Hint(err))
	}
}
