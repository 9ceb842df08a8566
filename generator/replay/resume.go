package replay

import (
	"slices"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/timeline"
)

// resumable is a replay that can go on with later commits: its state after
// its last step, and what it did at the end of history, which a longer
// history does again.
type resumable struct {
	st     *replayState
	tl     *timeline.Builder
	steps  []step // replayed so far
	warned int    // the warnings made before the end of history
}

// end ends the replay at its last step: the clashes still open are
// reported, and the servers then without a version noted.
func (r *resumable) end() *timeline.Timeline {
	h := r.st.h
	r.warned = len(h.out.Warnings)
	r.st.reportOpenClashes()
	tl := r.tl.Timeline()
	h.unrecordable = r.st.stillUnrecordable(tl)
	decodeLatest(tl, h.forms)
	return tl
}

// decodeLatest gives the latest version of each tool its decoded object,
// which the timeline promises (the pages compare the working tree with
// it): the replay handed it over without (see repoHistory.tool).
func decodeLatest(tl *timeline.Timeline, forms *forms) {
	for _, s := range tl.Servers {
		for _, t := range s.Tools {
			if t.Len() > 0 {
				v := t.Latest()
				v.Tool = forms.decode(v.Tool)
			}
		}
	}
}

// resume replays, on top of prev, only the commits its repositories gained
// since: was and now are the states (statesOf) of prev.sources then and now.
// in is the Input of a readAndPlay that would read them, prev's but for its
// Config's own pointer and Endpoint (the same config: the caller compares
// them). The result is what readAndPlay makes.
//
// It applies only when each repository is as it was but for its commit,
// which moved forward along its first-parent line; the new commits change
// neither site.toml nor an import, and come after the others when the
// repositories' histories are merged by time, and the first does not land
// with the last commit replayed (see gitlog.Landings); and no repository
// has release tags a server takes its versions from, and no server starts
// its history at history_from, which a new commit or tag could move; no
// repository is a partial clone, whose fetches the notices count, and no
// repository is a shallow clone (a fetch may deepen one, which its state
// does not show). ok is false otherwise, and on any error: a readAndPlay then
// replays the whole history, and reports the error.
//
// prev is used up: its Timeline may go on changing, and it cannot be
// resumed again, whatever the outcome.
func resume(prev *Output, was, now []string, in Input) (out *Output, ok bool) {
	r := prev.resume
	prev.resume = nil
	if r == nil || len(was) != len(r.st.h.repos) || len(now) != len(was) {
		return nil, false
	}
	h := r.st.h
	if !h.siteStart.IsZero() || len(h.starts) > 0 || slices.ContainsFunc(h.repos, func(rh *repoHistory) bool { return rh.shallow }) {
		return nil, false
	}
	start := time.Now()
	for i, rh := range h.repos {
		if !rh.readOn(was[i], now[i], i == 0, h) {
			return nil, false
		}
	}
	steps := h.merged()
	if len(steps) < len(r.steps) || !slices.EqualFunc(steps[:len(r.steps)], r.steps, func(a, b step) bool {
		return a.repo == b.repo && h.commit(a).Hash == h.commit(b).Hash
	}) {
		return nil, false
	}
	h.in, h.cfg = in, in.Config
	h.out = &Output{Warnings: slices.Clip(prev.Warnings[:r.warned]), Notices: slices.Clip(prev.Notices),
		CommitRepos: prev.CommitRepos, sources: prev.sources, ReadTime: time.Since(start)}
	h.progress()
	if err := r.st.play(r.tl, steps[len(r.steps):]); err != nil {
		return nil, false
	}
	tl := r.end()
	if err := h.checkRecordable(); err != nil {
		return nil, false
	}
	h.out.Timeline = tl
	h.out.applyTo(h.cfg)
	h.out.Resumed, h.out.newCommits = true, len(steps)-len(r.steps)
	r.steps = steps
	h.out.resume = r
	return h.out, true
}

// readOn reads the commits a repository gained between states was and
// now, and their blobs, after those it holds; ok is false when they cannot
// be replayed on top of them (see resume). In the site's repository, a
// commit may not change site.toml or an import: a literal pathspec.
func (rh *repoHistory) readOn(was, now string, site bool, h *historyReader) (ok bool) {
	old, rest := gitlog.SplitState(was)
	rev, nowRest := gitlog.SplitState(now)
	if rest != nowRest || rh.tags != nil {
		return false
	}
	if old == rev {
		return true
	}
	if onLine, err := rh.repo.OnFirstParentLine(old, rev); err != nil || !onLine {
		return false
	}
	if prefetch, err := h.prefetcher(rh); err != nil || prefetch != nil {
		return false
	}
	early := startEarlyParse(rh.globs, rh.forms)
	commits, contents, skipped, err := rh.readLog(old+".."+rev, rh.paths, nil, early)
	asked, moved := early.finish()
	if err != nil {
		return false
	}
	more := landings(&commits)
	if site && changesLiteral(&more, rh.paths) || continuesLanding(&rh.commits, &more) {
		return false
	}
	if err := rh.keepRead(rh.globs, asked, moved, contents, skipped); err != nil {
		return false
	}
	// The commits replayed stay where they are: the steps name them by
	// their place.
	for c := range more.All() {
		rh.commits.Append(*c)
	}
	return true
}

// changesLiteral reports whether a commit changes a path a literal pathspec
// names.
func changesLiteral(commits *commitList, pathspecs []string) bool {
	for c := range commits.All() {
		for _, ch := range c.Changes {
			if slices.ContainsFunc(pathspecs, func(spec string) bool {
				return strings.HasPrefix(spec, ":(literal)") && matchesPathspec(spec, ch.Path)
			}) {
				return true
			}
		}
	}
	return false
}

// continuesLanding reports whether the first of the landings read on lands
// with the last of those replayed (one "rebase and merge" whose commits
// arrived apart): the step replayed would have to be replayed again, joined.
func continuesLanding(replayed, more *commitList) bool {
	if replayed.Len() == 0 || more.Len() == 0 {
		return false
	}
	both := []gitlog.Commit{*replayed.At(replayed.Len() - 1), *more.At(0)}
	return len(slices.Collect(gitlog.Landings(slices.Values(both)))) == 1
}
