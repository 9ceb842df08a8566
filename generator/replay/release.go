package replay

import (
	"slices"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
)

// Release-stamped versions: a server with version_tags takes its
// version at each commit from the newest matching tag on the first-parent
// line at or before it, a leading v stripped; a tagged commit announces it.
// A server that switches to version_tags announces the releases tagged
// since its history began that it did not announce, with their own dates.

// release is a release tag reached by the replay.
type release struct {
	tag    string
	commit string
	time   time.Time
}

// readReleaseTags reads the tags of repository i, keeps those some server
// takes its versions from (patterns), and adds to the repository's commits
// every tagged commit of the first-parent line that changed no input, so a
// release is announced at its own commit.
func (h *historyReader) readReleaseTags(i int, patterns []string) error {
	rh := h.repos[i]
	rh.tags = nil // no server of the history takes its versions from tags (see resume)
	if len(patterns) == 0 {
		return nil
	}
	rh.tags = map[string][]string{}
	tags, err := rh.repo.Tags(h.rev(i))
	if err != nil {
		return err
	}
	for _, t := range tags {
		if tools.MatchAny(patterns, t.Name) {
			rh.tags[t.Commit] = append(rh.tags[t.Commit], t.Name)
		}
	}
	for _, names := range rh.tags {
		slices.Sort(names) // several tags on one commit count in name order
	}
	if len(rh.tags) == 0 {
		rh.tags = nil // a tag made later changes the repository's state (see resume)
		return nil
	}
	line, err := rh.repo.FirstParents(h.rev(i))
	if err != nil {
		return err
	}
	logged := map[string]int{} // by hash, where the commit is in the list
	for c := range rh.commits.All() {
		logged[c.Hash] = len(logged)
	}
	commits := spooledCommits(rh.spool(), rh.commits.names)
	for _, c := range line {
		if at, ok := logged[c.Hash]; ok {
			commits.Append(*rh.commits.At(at))
		} else if rh.tags[c.Hash] != nil {
			commits.Append(c)
		}
	}
	if err := rh.commits.failed(); err != nil {
		return err
	}
	rh.commits = commits
	return nil
}

// noteReleases records the tags of a step's commit, in the order they are
// reached; several tags on one commit count in name order, the last newest.
func (st *replayState) noteReleases(s played) {
	for _, tag := range st.h.repos[s.repo].tags[s.commit.Hash] {
		st.releases[s.repo] = append(st.releases[s.repo], release{tag, s.commit.Hash, s.commit.Time})
	}
}

// releaseVersion returns the version of the newest tag matching pattern
// reached so far in repo, its tools' repository; "" before the first. A
// matching tag that names no version ("vnext") is not a release.
func (st *replayState) releaseVersion(pattern string, repo int) string {
	released := st.releases[repo]
	for i := len(released) - 1; i >= 0; i-- {
		if v, ok := versionOf(pattern, released[i].tag); ok {
			return v
		}
	}
	return ""
}

// releaseAt returns the version the newest release tag on commit hash of
// repo names; "" when none does.
func (st *replayState) releaseAt(repo int, hash string) string {
	tags := st.h.repos[repo].tags[hash]
	for i := len(tags) - 1; i >= 0; i-- {
		if v, ok := versionOf(anyRelease, tags[i]); ok {
			return v
		}
	}
	return ""
}

// lateReleases returns the releases matching pattern that repo reached
// from the from'th on, oldest first.
func (st *replayState) lateReleases(pattern string, repo, from int) []timeline.Release {
	var out []timeline.Release
	for _, r := range st.releases[repo][from:] {
		if v, ok := versionOf(pattern, r.tag); ok {
			out = append(out, timeline.Release{Version: v, Commit: r.commit, Time: r.time})
		}
	}
	return out
}

// versionOf returns the version a tag matching pattern names, a leading v
// stripped; ok is false when it matches not or names no version.
func versionOf(pattern, tag string) (string, bool) {
	v := strings.TrimPrefix(tag, "v")
	return v, tools.Match(pattern, tag) && site.IsVersion(v)
}
