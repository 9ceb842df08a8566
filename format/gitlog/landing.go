package gitlog

import (
	"cmp"
	"maps"
	"slices"
)

// Landings joins each run of consecutive commits (oldest first) with the
// same committer and committer time into one commit: what "rebase and
// merge" writes for one pull request lands as one change. The joined
// commit is the run's last, with the changes of the whole run and First
// naming the run's first commit. The landings are written over commits,
// whose elements after them are zeroed: a long history's commits would
// be held twice.
func Landings(commits []Commit) []Commit {
	out := commits[:0]
	for _, c := range commits {
		n := len(out)
		if n == 0 || !sameLanding(out[n-1], c) {
			out = append(out, c)
			continue
		}
		out[n-1] = join(out[n-1], c)
	}
	clear(commits[len(out):])
	return out
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
