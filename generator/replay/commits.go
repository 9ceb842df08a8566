package replay

import (
	"iter"
	"slices"

	"github.com/wellknown-dev/wellknown/format/gitlog"
)

// commitChunk is how many commits a list keeps in one allocation (see
// commitList): few allocations, each a small part of a long history.
var commitChunk = 1024

// commitList is a repository's commits in chunks of commitChunk, every
// chunk full but the last. A list grown one commit at a time then holds
// no spare room but its last chunk's, where one array would double, and
// a commit never moves: a step points at it in its chunk, and a spooled
// replay, once the list is let go of, frees each chunk as soon as its
// steps are replayed.
type commitList struct {
	chunks [][]gitlog.Commit
}

// Len returns how many commits the list holds.
func (l *commitList) Len() int {
	if len(l.chunks) == 0 {
		return 0
	}
	return (len(l.chunks)-1)*commitChunk + len(l.chunks[len(l.chunks)-1])
}

// At returns the i'th commit of the list.
func (l *commitList) At(i int) *gitlog.Commit {
	return &l.chunks[i/commitChunk][i%commitChunk]
}

// Append adds a commit at the end of the list.
func (l *commitList) Append(c gitlog.Commit) {
	n := len(l.chunks)
	if n == 0 || len(l.chunks[n-1]) == commitChunk {
		l.chunks = append(l.chunks, make([]gitlog.Commit, 0, commitChunk))
		n++
	}
	l.chunks[n-1] = append(l.chunks[n-1], c)
}

// All returns the list's commits in order.
func (l *commitList) All() iter.Seq[*gitlog.Commit] {
	return func(yield func(*gitlog.Commit) bool) {
		for _, chunk := range l.chunks {
			for i := range chunk {
				if !yield(&chunk[i]) {
					return
				}
			}
		}
	}
}

// landings returns the commits of a list read newest first, as git log
// prints them, oldest first and joined into landings (see
// gitlog.Landings). It empties the list a chunk at a time as it reads
// it: a long history's commits are held once, and a chunk of them
// twice.
func landings(newestFirst *commitList) commitList {
	oldestFirst := func(yield func(gitlog.Commit) bool) {
		for n := len(newestFirst.chunks); n > 0; n-- {
			chunk := newestFirst.chunks[n-1]
			newestFirst.chunks[n-1] = nil
			newestFirst.chunks = newestFirst.chunks[:n-1]
			for _, c := range slices.Backward(chunk) {
				if !yield(c) {
					return
				}
			}
		}
	}
	var out commitList
	for c := range gitlog.Landings(oldestFirst) {
		out.Append(c)
	}
	return out
}
