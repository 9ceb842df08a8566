package gitlog

import (
	"cmp"
	"iter"
	"maps"
	"slices"
)

// Landings joins each run of consecutive commits (oldest first) with the
// same committer and committer time into one commit: what "rebase and
// merge" writes for one pull request lands as one change. The joined
// commit is the run's last, with the changes of the whole run and First
// naming the run's first commit. The landings are yielded as the
// commits are read, so that a long history's commits need not be held
// twice: the caller can let go of each commit read.
func Landings(commits iter.Seq[Commit]) iter.Seq[Commit] {
	return func(yield func(Commit) bool) {
		var landing Commit
		held := false
		for c := range commits {
			if held && sameLanding(landing, c) {
				landing = join(landing, c)
				continue
			}
			if held && !yield(landing) {
				return
			}
			landing, held = c, true
		}
		if held {
			yield(landing)
		}
	}
}

// sameLanding reports whether b, the commit after a, landed with it.
func sameLanding(a, b Commit) bool {
	return a.Committer != "" && a.Committer == b.Committer && a.Time.Equal(b.Time)
}

// join returns the landing a followed by commit b.
func join(a, b Commit) Commit {
	byPath := map[string]ObjectID{}
	for _, ch := range slices.Concat(a.Changes, b.Changes) {
		byPath[ch.Path] = ch.Blob
	}
	b.First = cmp.Or(a.First, a.Hash)
	b.Changes = make([]Change, 0, len(byPath))
	for _, p := range slices.Sorted(maps.Keys(byPath)) {
		b.Changes = append(b.Changes, Change{Path: p, Blob: byPath[p]})
	}
	return b
}
