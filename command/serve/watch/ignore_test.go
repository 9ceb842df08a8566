package watch

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/fsnotify/fsnotify"

	"github.com/wellknown-dev/wellknown/internal/diag"
)

func TestRelevant(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   fsnotify.Op
		want bool
	}{
		{"/site/content/tools/a.json", fsnotify.Write, true},
		{"/site/content/tools/a.json", fsnotify.Create, true},
		{"/site/content/tools/a.json", fsnotify.Remove, true},
		{"/site/content/tools/a.json", fsnotify.Rename, true},
		{"/site/content/tools/a.json", fsnotify.Chmod, false},                 // Spotlight, antivirus, touch -m
		{"/site/content/tools/a.json", fsnotify.Write | fsnotify.Chmod, true}, // a write that also changed mode
		{"/site/site.toml", fsnotify.Create, true},
		{"/site/templates/index.html", fsnotify.Write, true},
		{"/site/.git/refs/heads/main", fsnotify.Create, true},
		{"", fsnotify.Remove, false}, // seen during rm -rf
		// Editors' and desktops' temporary files.
		{"/site/content/tools/.a.json.swp", fsnotify.Write, false},
		{"/site/content/tools/.a.json.swo", fsnotify.Create, false},
		{"/site/content/tools/.a.json.swx", fsnotify.Create, false},
		{"/site/content/tools/4913", fsnotify.Create, false},
		{"/site/content/tools/a.json~", fsnotify.Create, false},
		{"/site/content/tools/.#a.json", fsnotify.Create, false},
		{"/site/content/tools/#a.json#", fsnotify.Write, false},
		{"/site/content/tools/a.json___jb_tmp___", fsnotify.Write, false},
		{"/site/content/tools/a.json___jb_old___", fsnotify.Rename, false},
		{"/site/content/tools/a.json.kate-swp", fsnotify.Write, false},
		{"/site/content/tools/.goutputstream-X1Y2Z3", fsnotify.Write, false},
		{"/site/content/tools/a.json.tmp", fsnotify.Write, false},
		{"/site/content/tools/a.json.bck", fsnotify.Write, false},
		{"/site/content/tools/a.json.crswap", fsnotify.Write, false},
		{"/site/content/tools/a.json.sb-5a1f-Xq", fsnotify.Write, false},
		{"/site/content/.DS_Store", fsnotify.Write, false},
		// Names that only look like them.
		{"/site/content/tools/#", fsnotify.Write, true},
		{"/site/content/tools/49130.json", fsnotify.Write, true},
		{"/site/content/tools/swp.json", fsnotify.Write, true},
		{"/site/content/tools/a#b.json", fsnotify.Write, true},
	} {
		if got := relevant(fsnotify.Event{Name: tc.name, Op: tc.op}); got != tc.want {
			t.Errorf("relevant(%s %q) = %v, want %v", tc.op, tc.name, got, tc.want)
		}
	}
}

func TestCovers(t *testing.T) {
	targets := Targets{
		Trees: []string{"/site/content", "/site/templates", "/site/.git/refs", "/repo"},
		Files: []string{"/site/site.toml", "/site/.git/HEAD", "/site/.git/packed-refs"},
	}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/site/site.toml", true},
		{"/site/content", true},
		{"/site/content/a/b/c.json", true},
		{"/site/templates/index.html", true},
		{"/site/.git/HEAD", true},
		{"/site/.git/refs/heads/main", true},
		{"/site/.git/packed-refs", true},
		{"/site/.git", true}, // holds targets: removing or creating it moves them
		{"/site", true},
		{"/repo/tools/x.json", true},
		{"/site/README.md", false}, // a neighbour of site.toml
		{"/site/public/index.html", false},
		{"/site/.git/index", false}, // git add does not change what a build reads
		{"/site/.git/COMMIT_EDITMSG", false},
		{"/site/.git/objects/ab/cdef", false},
		{"/repo/.git/index", false}, // a tree's own .git is not entered
		{"/site/contents/x.json", false},
		{"/site/site.toml.bak", false},
	} {
		if got := targets.covers(tc.path); got != tc.want {
			t.Errorf("covers(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestDescribeLimits(t *testing.T) {
	for _, tc := range []struct {
		err  error
		hint string
	}{
		{syscall.ENOSPC, "sysctl fs.inotify.max_user_watches="},
		{&os.PathError{Op: "inotify_add_watch", Path: "/site/content", Err: syscall.ENOSPC}, "sysctl fs.inotify.max_user_watches="},
		{syscall.EMFILE, "ulimit -n"},
		{errors.New("boom"), ""},
	} {
		err := describe("/site/content", tc.err)
		var d *diag.Error
		if !errors.As(err, &d) {
			t.Fatalf("describe(%v) = %T, want a *diag.Error", tc.err, err)
		}
		if d.File != "/site/content" || !strings.Contains(d.Msg, "cannot watch") {
			t.Errorf("describe(%v) = %v, want it to name the directory", tc.err, err)
		}
		if !strings.Contains(d.Hint, tc.hint) || tc.hint == "" && d.Hint != "" {
			t.Errorf("describe(%v) hint = %q, want it to contain %q", tc.err, d.Hint, tc.hint)
		}
		if tc.hint != "" && !strings.Contains(d.Hint, "--poll") {
			t.Errorf("describe(%v) hint = %q, want it to offer --poll", tc.err, d.Hint)
		}
	}
}
