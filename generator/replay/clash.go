package replay

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// clash is two or more live files of one server declaring one tool name,
// from the commit that made it until the one that ended it.
type clash struct {
	server, tool string
	paths        []string
	from         gitlog.Commit
}

// judge settles, once a commit's changes are all applied, which file
// declares each tool the commit touched, and follows clashes: each one is
// reported once, when it ends or at the end of history. It returns the
// names of the tools touched.
func (st *replayState) judge(server string, f *serverFiles, c gitlog.Commit) []string {
	// Made at its size: collected from an iterator, the names of a long
	// history's commits were grown over and over.
	touched := make([]string, 0, len(f.touched))
	for name := range f.touched {
		touched = append(touched, name)
	}
	slices.Sort(touched)
	for _, name := range touched {
		f.changed = true
		paths := f.paths[name]
		key := server + "\x00" + name
		open := st.clashes[key]
		if open != nil && !slices.Equal(open.paths, paths) {
			st.reportClash(open, &c)
			delete(st.clashes, key)
			open = nil
		}
		if len(paths) == 0 {
			delete(f.byName, name)
			continue
		}
		f.byName[name] = f.byPath[paths[0]]
		if len(paths) > 1 && open == nil {
			st.clashes[key] = &clash{server: server, tool: name, paths: slices.Clone(paths), from: c}
		}
	}
	clear(f.touched)
	return touched
}

// reportOpenClashes reports the clashes still there at the end of history.
func (st *replayState) reportOpenClashes() {
	for _, key := range slices.Sorted(maps.Keys(st.clashes)) {
		st.reportClash(st.clashes[key], nil)
	}
}

// reportClash warns about a clash that ended at commit until (nil: still
// there), with the fix.
func (st *replayState) reportClash(cl *clash, until *gitlog.Commit) {
	when := "since commit " + gitlog.Short(cl.from.Hash)
	if until != nil {
		when = fmt.Sprintf("from commit %s until commit %s", gitlog.Short(cl.from.Hash), gitlog.Short(until.Hash))
	}
	st.h.out.Warnings = append(st.h.out.Warnings, diag.Errorf("", 0,
		"server %s: tool %q is declared by both %s %s; the feed uses %s",
		cl.server, cl.tool, strings.Join(cl.paths, " and "), when, cl.paths[0]).
		WithHint("leave the others out with exclude = [\"…\"] under the server in %s", st.h.configPath))
}
