package gitlog

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRel places paths in the work tree as git names them: through a
// symbolic link to it, for a file that no longer exists, and outside it.
func TestRel(t *testing.T) {
	r := newTestRepo(t)
	r.write("site/tools/a.json", `{"name":"a"}`)
	r.commit("add")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(r.dir, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	repo := r.open()
	for target, want := range map[string]string{
		r.dir:                       "",
		filepath.Join(link, "site"): "site",
		filepath.Join(link, "site", "tools", "a.json"):    "site/tools/a.json",
		filepath.Join(link, "site", "tools", "gone.json"): "site/tools/gone.json",
		filepath.Dir(r.dir):                               "..",
	} {
		got, err := repo.Rel(target)
		if err != nil || got != want {
			t.Errorf("Rel(%s) = %q, %v; want %q", target, got, err, want)
		}
	}
}
