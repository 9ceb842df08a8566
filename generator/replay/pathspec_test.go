package replay

import (
	"slices"
	"testing"

	"github.com/wellknown-dev/wellknown/format/gitlog"
)

func TestDirectoriesReadGlobsByTheirLiteralDirectory(t *testing.T) {
	got := directories([]string{":(glob)tools/a/*.json", ":(glob)tools/a/**/*.json", ":(glob)*.json", ":(glob)x/[ab]/*.json", ":(literal)site.toml"})
	want := []string{":(literal)tools/a", ":(glob)*.json", ":(literal)x", ":(literal)site.toml"}
	if !slices.Equal(got, want) {
		t.Errorf("directories = %q, want %q", got, want)
	}
}

// TestMatchingKeepsWhatGitWouldHave: the paths a directory pathspec adds
// (other extensions, subdirectories, neighbours of a literal path) are left
// out again, as the glob and literal pathspecs themselves would have.
func TestMatchingKeepsWhatGitWouldHave(t *testing.T) {
	var changes []gitlog.Change
	paths := []string{"other/z.json", "site.toml", "site.toml.bak", "tools/a/b/y.json", "tools/a/notes.md", "tools/a/x.json", "tools/a2/x.json"}
	for _, p := range append(paths, paths...) { // the second time, the answers kept
		changes = append(changes, gitlog.Change{Path: p, Blob: "b"})
	}
	var got []string
	for _, ch := range matching(changes, pathspecTest([]string{":(glob)tools/a/*.json", ":(literal)site.toml"})) {
		got = append(got, ch.Path)
	}
	if want := []string{"site.toml", "tools/a/x.json", "site.toml", "tools/a/x.json"}; !slices.Equal(got, want) {
		t.Errorf("matching kept %q, want %q", got, want)
	}
}
