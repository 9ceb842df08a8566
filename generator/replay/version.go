package replay

import (
	"errors"
	"fmt"
	"slices"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
)

// A server version stamped at release ("version": "${VERSION}" in
// server.json) is no version at the commits the feed is derived from. It is
// never signed: the server keeps the last version it had (none at first,
// and it is not announced until it has one), and a build whose last commit
// leaves a server without a version fails, in every mode.

// recordableVersion returns the version the feed records for a followed
// server at the current step, and notes a server whose configured version
// is none. late are the releases to announce now with their own dates: the
// server takes its versions from tags from this step on, and did not
// before.
func (st *replayState) recordableVersion(fl *follow) (version string, late []timeline.Release) {
	srv, recordable := fl.srv, fl.versioned
	wasTagged := st.fromTags[srv.Name]
	switch {
	case srv.VersionTags != "":
		srv.Version = st.releaseVersion(srv.VersionTags, fl.repo)
		recordable = site.IsVersion(srv.Version)
		st.fromTags[srv.Name] = true
		if !wasTagged {
			late = st.lateReleases(srv.VersionTags, fl.repo, st.startedAt[srv.Name])
		}
	case fl.backfilled:
		// Its pinned version is not true yet: until the commit that pins
		// it, the server is at its repository's last release, if any.
		srv.Version = st.releaseVersion(anyRelease, fl.repo)
		st.fromTags[srv.Name] = srv.Version != ""
		if srv.Version == "" {
			return st.versions[srv.Name], nil
		}
		recordable = true
	default:
		st.fromTags[srv.Name] = false
	}
	if recordable {
		st.versions[srv.Name] = srv.Version
		delete(st.unrecordable, srv.Name)
		return srv.Version, late
	}
	st.unrecordable[srv.Name] = srv
	return st.versions[srv.Name], late
}

// stillUnrecordable lists the servers present at the end of history whose
// version is then none, in order of appearance.
func (st *replayState) stillUnrecordable(tl *timeline.Timeline) []site.Server {
	var out []site.Server
	for _, s := range tl.Servers {
		if srv, ok := st.unrecordable[s.Name]; ok && !s.Removed {
			out = append(out, srv)
		}
	}
	return out
}

// checkRecordable fails for each server whose committed version the feed
// cannot record, with the two fixes.
func (h *historyReader) checkRecordable() error {
	var problems []error
	for _, srv := range h.unrecordable {
		i := slices.IndexFunc(h.cfg.Servers, func(s site.Server) bool { return s.Name == srv.Name })
		key := "servers"
		if i >= 0 {
			key = fmt.Sprintf("servers.%d", i)
		}
		if srv.VersionTags != "" {
			problems = append(problems, h.cfg.Errorf(key+".version_tags", "server %s: no tag matching %q is on the first-parent line of the last commit, so the server has no version", srv.Name, srv.VersionTags).
				WithHint("tag a release (git tag v1.0.0), or set version in site.toml instead of version_tags"))
			continue
		}
		problems = append(problems, h.cfg.Errorf(key, "server %s: its committed version %q is not a version, so the change feed cannot record it", srv.Name, srv.Version).
			WithHint("set version = \"1.2.3\" for the server in site.toml and commit it, or take its versions from release tags: version_tags = \"v*\""))
	}
	return errors.Join(problems...)
}
