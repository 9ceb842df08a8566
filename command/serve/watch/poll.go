package watch

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// DefaultPoll is the polling interval when none is given: Hugo's, short
// enough for editing, long enough to cost little on a large tree.
const DefaultPoll = 700 * time.Millisecond

// poller finds changes by comparing scans of the targets.
type poller struct {
	every time.Duration
	seen  map[string]stamp
}

// stamp is what a scan records about a path. A directory's modification
// time is left out: it changes when an entry comes and goes, and those
// entries are compared themselves (an editor's temporary file would
// otherwise count as a change).
type stamp struct {
	dir  bool
	size int64
	mod  time.Time
}

// scan records the targets' current state and returns the paths that
// differ from the previous scan, sorted.
func (p *poller) scan(t Targets) []string {
	now := map[string]stamp{}
	for _, root := range t.Trees {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && skipped(root, path, d) {
				return filepath.SkipDir
			}
			if fi, err := d.Info(); err == nil {
				now[path] = stampOf(fi)
			}
			return nil
		})
	}
	for _, f := range t.Files {
		if fi, err := os.Stat(f); err == nil {
			now[f] = stampOf(fi)
		}
	}
	var changed []string
	for path, s := range now {
		if old, ok := p.seen[path]; !ok || old != s {
			changed = append(changed, path)
		}
	}
	for path := range p.seen {
		if _, ok := now[path]; !ok {
			changed = append(changed, path)
		}
	}
	p.seen = now
	slices.Sort(changed)
	return changed
}

func stampOf(fi fs.FileInfo) stamp {
	if fi.IsDir() {
		return stamp{dir: true}
	}
	return stamp{size: fi.Size(), mod: fi.ModTime()}
}
