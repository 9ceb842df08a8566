package replay

import (
	"github.com/wellknown-dev/wellknown/format/gitlog"
)

// A spooled replay lets go of each blob it parsed once no step still to
// come can look it up, where the map of them by id was held whole until
// the replay ended. A step looks a blob up for the changes of its commit
// (update, and the comparisons planned ahead, see planStep) and for the
// paths of its repository's tree when a server's files are read afresh
// (files). So a blob can be asked for again while a later step's changes
// name it (a revert adds it back) or a path of the tree holds it (a server
// followed again reads its whole tree): its uses count both.

// countUses starts the uses of each blob parsed: the changes of all the
// steps that name it, the replay's trees being empty. They are kept in
// the blob's entry, where a map of their own, keyed by the same ids, cost
// a third as much again.
func (h *historyReader) countUses(steps []step) {
	for _, rh := range h.repos {
		rh.letsGo = true
	}
	for _, s := range steps {
		parsed := h.repos[s.repo].parsed
		for _, ch := range h.commit(s).Changes {
			parsed.use(ch.Blob)
		}
	}
}

// replaced appends to blobs those tree holds at the paths c changes: what
// applying c takes out of the tree. A commit changes each path once.
func replaced(tree gitlog.Tree, c gitlog.Commit, blobs []gitlog.ObjectID) []gitlog.ObjectID {
	for _, ch := range c.Changes {
		if old, ok := tree[ch.Path]; ok {
			blobs = append(blobs, old)
		}
	}
	return blobs
}

// letGo counts out the uses of a step played, whose commit took the
// replaced blobs out of the tree, and lets go of each blob left with none.
// A change moves one use of the blob it names from the steps to come to
// the tree: only the blobs it replaces lose one. A blob with no use left
// is asked for by no later step, since only a step's changes put a blob
// back in the tree.
func (rh *repoHistory) letGo(replaced []gitlog.ObjectID) {
	for _, blob := range replaced {
		rh.parsed.release(blob)
	}
	rh.parsed.shrink()
}
