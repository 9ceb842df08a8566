package scaffold

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/gittest"
	"github.com/wellknown-dev/wellknown/internal/prereq"
)

// Tool files are found in the working tree and in history (a tool deleted
// since counts: its history is the feed's), in the site's directory only;
// JSON that is not a tool, and hidden or dependency directories, are not.
func TestFindTools(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		prereq.Missing(t, "git is not installed (apt-get install git)")
	}
	const tool = `{"name": "t", "inputSchema": {"type": "object"}}`
	r := gittest.New(t, filepath.Join(t.TempDir(), "repo"))
	r.Write("tools/a.json", tool)
	r.Write("tools/gone.json", tool)
	r.Write("package.json", `{"name": "server", "version": "1.0.0"}`)
	r.Commit("tools")
	r.Git("rm", "-q", "tools/gone.json")
	r.Commit("gone")
	r.Write("tools/new.json", tool) // not committed yet
	r.Write("tools/list.json", `{"name": "t", "inputSchema": "object"}`)
	r.Write("node_modules/x/tool.json", tool)
	r.Write(".cache/tool.json", tool)
	r.Write("site/own.json", tool)

	got, err := FindTools(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"site/own.json", "tools/a.json", "tools/gone.json", "tools/new.json"}; !slices.Equal(got, want) {
		t.Errorf("FindTools = %q, want %q", got, want)
	}
	got, err = FindTools(filepath.Join(r.Dir, "site"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"own.json"}; !slices.Equal(got, want) {
		t.Errorf("FindTools of a subdirectory = %q, want %q", got, want)
	}
	// Outside git, the working tree alone.
	dir := t.TempDir()
	got, err = FindTools(dir)
	if err != nil || len(got) != 0 {
		t.Errorf("FindTools of an empty directory = %q, %v", got, err)
	}
}
