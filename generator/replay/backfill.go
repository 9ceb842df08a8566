package replay

import (
	"fmt"
	"slices"
	"time"

	"github.com/wellknown-dev/wellknown/generator/history"
	"github.com/wellknown-dev/wellknown/generator/site"
)

// Adopting an existing repository (DESIGN §4): a server's history starts
// with the history of its tool files, not with the commit that first
// configured it. Before that commit its first configuration applies, and
// the same holds for every commit when site.toml is not committed yet.
// history_from starts a server's history later on purpose. A backfilled
// server is announced at its first tool commit; a configured one, at the
// commit that configures it if that comes first.

// backfill returns the servers as each was first configured, in order of
// first configuration, and resolves every server's history_from. With no
// committed site.toml, the working tree's configures every server, with a
// warning: the feed is then a preview.
func (h *historyReader) backfill(steps []step) ([]site.Server, error) {
	if err := h.wholeHistory(); err != nil {
		return nil, err
	}
	tree := history.Tree{}
	seen := map[string]bool{}
	committed := false
	var first []site.Server
	for _, s := range steps {
		if s.repo != 0 {
			continue
		}
		tree.Apply(s.commit)
		if !changesPath(s.commit, h.configPath) {
			continue
		}
		cfg, err := h.configAt(tree)
		if err != nil || cfg == nil {
			continue // reported by the replay
		}
		committed = true
		for _, srv := range cfg.Servers {
			if srv.Name != "" && !seen[srv.Name] {
				seen[srv.Name] = true
				first = append(first, srv)
			}
		}
	}
	if committed {
		return first, nil
	}
	if len(h.cfg.Servers) > 0 && h.in.Rev == "" { // a check's base may predate the site
		h.out.Warnings = append(h.out.Warnings, h.configPath+" is not committed yet: the feed replays the tool files' history with the working tree's "+h.configPath+" (a preview); commit it to publish")
	}
	return h.cfg.Servers, nil
}

func changesPath(c history.Commit, p string) bool {
	for _, ch := range c.Changes {
		if ch.Path == p {
			return true
		}
	}
	return false
}

// inForce reports whether the site.toml in force configures the server.
func (st *replayState) inForce(server string) bool {
	return st.config != nil && slices.ContainsFunc(st.config.Servers, func(s site.Server) bool { return s.Name == server })
}

// wholeHistory takes the settings of the site.toml being built that apply
// to the whole history: exclude globs (added to each past configuration's,
// so that leaving a file out now also silences its past clashes), and
// history_from (dates, or commits of the repository they concern).
func (h *historyReader) wholeHistory() error {
	h.starts = map[string]time.Time{}
	h.excludes = map[string][]string{}
	for _, srv := range h.cfg.Servers {
		h.excludes[srv.Name] = srv.Exclude
	}
	var err error
	if h.siteStart, err = h.resolveStart(0, "history_from", h.cfg.HistoryFrom); err != nil {
		return err
	}
	for i, srv := range h.cfg.Servers {
		if srv.HistoryFrom == "" {
			continue
		}
		repo, _, _ := h.toolsLocation(srv)
		at, err := h.resolveStart(repo, fmt.Sprintf("servers.%d.history_from", i), srv.HistoryFrom)
		if err != nil {
			return err
		}
		h.starts[srv.Name] = at
	}
	return nil
}

func (h *historyReader) resolveStart(repo int, key, from string) (time.Time, error) {
	if from == "" {
		return time.Time{}, nil
	}
	if at, ok := site.HistoryStart(from); ok {
		return at, nil
	}
	rh := h.repos[repo].repo
	at, ok, err := rh.CommitTime(from)
	if err != nil {
		return time.Time{}, err
	}
	if !ok {
		return time.Time{}, h.cfg.Errorf(key, "history_from %q is neither a date nor a commit of %s", from, dirName(rh.Root())).
			WithHint("give a date (2025-01-31) or a commit hash or tag of that repository")
	}
	return at, nil
}

// exclude returns the globs that leave files out of a server's tools at a
// point of history where its configuration is srv.
func (h *historyReader) exclude(srv site.Server) []string {
	return slices.Concat(srv.Exclude, h.excludes[srv.Name])
}

// start returns the time a server's history starts at (zero: its first tool).
func (h *historyReader) start(server string) time.Time {
	if at, ok := h.starts[server]; ok {
		return at
	}
	return h.siteStart
}
