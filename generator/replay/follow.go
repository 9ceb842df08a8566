package replay

import (
	"slices"
	"time"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/site"
)

// follow is a server the replay follows under one configuration (the
// site.toml in force, and the servers backfilled until one configures them),
// with what every commit's snapshot needs of it worked out once: a long
// history has thousands of commits per configuration.
type follow struct {
	srv       site.Server
	start     time.Time // its history_from (zero: its first tool)
	repo      int       // the repository holding its tool files
	prefix    string    // the directory its glob is relative to, in repo
	located   bool      // whether a repository read holds its tool files
	exclude   []string  // its exclude globs, with the site.toml built's
	endpoint  string
	versioned bool // its configured version is one the feed can record
	// backfilled says no committed site.toml has configured it yet: its
	// configuration says which files are its tools, not its version.
	backfilled bool
	files      *serverFiles // its files at the last step it was followed, found without a lookup by name
}

// refollow works out the servers followed under the configuration now in
// force: those the site.toml in force configures, then those configured only
// later, as first configured.
func (st *replayState) refollow() {
	var servers []site.Server
	if st.config != nil {
		servers = append(servers, st.config.Servers...)
	}
	configured := len(servers)
	for _, srv := range st.backfill.servers {
		if !st.configured[srv.Name] {
			servers = append(servers, srv)
		}
	}
	st.following = make([]*follow, len(servers))
	for i, srv := range servers {
		repo, prefix, ok := st.h.toolsLocation(srv)
		st.following[i] = &follow{srv: srv, start: st.h.start(srv.Name), repo: repo, prefix: prefix, located: ok,
			exclude: st.h.exclude(srv), endpoint: st.h.in.Endpoint(srv), versioned: site.IsVersion(srv.Version),
			backfilled: i >= configured && st.backfill.committed}
	}
}

// serversAt returns the servers followed at commit c: those of the
// configuration in force, less those whose history_from is still to come.
func (st *replayState) serversAt(c gitlog.Commit) []*follow {
	notYet := func(f *follow) bool { return c.Time.Before(f.start) }
	if !slices.ContainsFunc(st.following, notYet) {
		return st.following
	}
	return slices.DeleteFunc(slices.Clone(st.following), notYet)
}

// forgetUnfollowed drops the tool files of the servers not followed now:
// a server absent for a while is read afresh if it comes back.
func (st *replayState) forgetUnfollowed(servers []*follow) {
	followed := map[string]bool{}
	for _, f := range servers {
		followed[f.srv.Name] = true
	}
	for name, f := range st.servers {
		if !followed[name] {
			f.forgotten = true
			delete(st.servers, name)
		}
	}
}
