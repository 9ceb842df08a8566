package replay

import (
	"fmt"
	"slices"
	"time"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// Adopting an existing repository: a server's history starts
// with the history of its tool files, not with the commit that first
// configured it. Before that commit its first configuration says which
// files are its tools, and the same holds for every commit when site.toml
// is not committed yet. It never says what the server's version was: a
// pinned version is true from the commit that pins it, so before that the
// server's versions are its repository's release tags, when it has some,
// and otherwise it has none (its tools are announced, the server at the
// commit that configures it). history_from starts a server's history
// later on purpose. A backfilled server is announced at its first tool
// commit; a configured one, at the commit that configures it if that
// comes first.

// backfill is the servers as each was first configured, in order of first
// configuration.
type backfill struct {
	servers []site.Server
	// committed says a committed site.toml configured them; otherwise the
	// working tree's configures every server (a preview).
	committed bool
	// configuredAt is, by server name, the commit of the site's
	// repository that first configured it.
	configuredAt map[string]gitlog.Commit
}

// backfill returns the servers as each was first configured, and resolves
// every server's history_from. With no committed site.toml, the working
// tree's configures every server, with a warning: the feed is then a
// preview.
func (h *historyReader) backfill() (*backfill, error) {
	if err := h.wholeHistory(); err != nil {
		return nil, err
	}
	tree := gitlog.Tree{}
	bf := &backfill{configuredAt: map[string]gitlog.Commit{}}
	for c := range h.repos[0].commits.All() {
		tree.Apply(*c)
		if !changesPath(*c, h.configPath) {
			continue
		}
		cfg, err := h.configAt(tree)
		if err != nil || cfg == nil {
			continue // reported by the replay
		}
		bf.committed = true
		for _, srv := range cfg.Servers {
			if _, seen := bf.configuredAt[srv.Name]; srv.Name != "" && !seen {
				bf.configuredAt[srv.Name] = *c
				bf.servers = append(bf.servers, srv)
			}
		}
	}
	if bf.committed {
		return bf, nil
	}
	if len(h.cfg.Servers) > 0 && h.in.Rev == "" { // a check's base may predate the site
		h.out.Warnings = append(h.out.Warnings, diag.Errorf("", 0, "%s is not committed yet: the feed replays the tool files' history with the working tree's %s (a preview)", h.configPath, h.configPath).
			WithHint("commit it to publish"))
	}
	bf.servers = h.cfg.Servers
	return bf, nil
}

// anyRelease is the pattern of the tags a backfilled server with a pinned
// version takes its versions from: every tag that names a version (v1.2.3
// or 1.2.3).
const anyRelease = "*"

// backfillReleases reads the release tags of each repository holding the
// tool files of a server whose history begins before the commit that
// configures it with a pinned version, and says where its versions then
// come from.
func (h *historyReader) backfillReleases(bf *backfill) error {
	if !bf.committed {
		return nil
	}
	before := map[int]map[string]bool{} // toolsBefore, by repository
	for _, srv := range bf.servers {
		if srv.VersionTags != "" {
			continue
		}
		i, _, ok := h.toolsLocation(srv)
		if !ok || srv.Tools == "" {
			continue
		}
		if before[i] == nil {
			before[i] = h.toolsBefore(i, bf)
		}
		if !before[i][srv.Name] {
			continue
		}
		at := bf.configuredAt[srv.Name]
		rh := h.repos[i]
		if !slices.Contains(rh.patterns, anyRelease) {
			rh.patterns = append(rh.patterns, anyRelease)
			if err := h.readReleaseTags(i, rh.patterns); err != nil {
				return err
			}
			delete(before, i) // its commits are now those of its first-parent line
		}
		repo := "the site's repository"
		if srv.Repo != "" {
			repo = srv.Repo
		}
		if rh.tags != nil {
			h.out.Notices = append(h.out.Notices, fmt.Sprintf("server %s: before commit %s configures it, its versions are the release tags of %s; its version %s is announced from that commit on",
				srv.Name, gitlog.Short(at.Hash), repo, srv.Version))
		} else {
			h.out.Notices = append(h.out.Notices, fmt.Sprintf("server %s: %s has no release tags, so the server is announced at commit %s, which configures it with version %s; its tools' earlier history is replayed without a server version",
				srv.Name, repo, gitlog.Short(at.Hash), srv.Version))
		}
	}
	return nil
}

// toolsBefore reports, by name, for each backfilled server whose tool
// files are in repository i, whether the repository changed one of them
// before the commit of the site's repository that configures it. It
// reads the commits once for them all: a spooled list decodes them again
// at each reading (see commitList).
func (h *historyReader) toolsBefore(i int, bf *backfill) map[string]bool {
	out := map[string]bool{}
	type server struct {
		name  string
		files *serverFiles
		at    gitlog.Commit
	}
	var open []server // those the commits read so far do not decide
	for _, srv := range bf.servers {
		if j, prefix, ok := h.toolsLocation(srv); ok && j == i && srv.Tools != "" && srv.VersionTags == "" {
			open = append(open, server{srv.Name, newServerFiles(i, prefix, srv.Tools, h.exclude(srv)), bf.configuredAt[srv.Name]})
		}
	}
	for c := range h.repos[i].commits.All() {
		if len(open) == 0 {
			break
		}
		open = slices.DeleteFunc(open, func(s server) bool {
			if c.Hash == s.at.Hash || !c.Time.Before(s.at.Time) && i != 0 {
				return true
			}
			if slices.ContainsFunc(c.Changes, func(ch gitlog.Change) bool { return s.files.matches(ch.Path) }) {
				out[s.name] = true
				return true
			}
			return false
		})
	}
	return out
}

func changesPath(c gitlog.Commit, p string) bool {
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
