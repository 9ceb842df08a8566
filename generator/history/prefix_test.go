package history

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/gittest"
	"github.com/wellknown-dev/wellknown/internal/prereq"
)

// Prefix places a directory in the work tree however it is reached: by a
// relative path or through a symbolic link.
func TestPrefix(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		prereq.Missing(t, "git is not installed (apt-get install git)")
	}
	base := t.TempDir()
	r := gittest.New(t, filepath.Join(base, "repo"))
	r.Write("site/tools/a.json", "{}")
	r.Commit("tools")
	link := filepath.Join(base, "link")
	if err := os.Symlink(filepath.Join(r.Dir, "site"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	repo, err := Open(link)
	if err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{r.Dir: ".", link: "site", filepath.Join(link, "tools"): "site/tools"} {
		if got, err := repo.Prefix(dir); err != nil || got != want {
			t.Errorf("Prefix(%s) = %q, %v; want %q", dir, got, err, want)
		}
	}
}
