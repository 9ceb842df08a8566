package replay

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/varbytes"
)

// commitChunk is how many commits a list keeps in one allocation (see
// commitList): few allocations, each a small part of a long history.
var commitChunk = 1024

// heldChunks is how many chunks a spooled list holds as they are before
// it keeps the next in the spool: a history of up to some sixteen
// thousand commits, a few MB of them, is read and replayed with none
// encoded and decoded again, and a longer one holds no more of them
// than these and the few decoded.
var heldChunks = 16

// decodedChunks is how many chunks a spooled list keeps decoded: the
// replay reads its commits in order, with the comparisons planned a
// window ahead (see compareWindow), so a few chunks serve both.
const decodedChunks = 4

// commitList is a repository's commits in chunks of commitChunk, every
// chunk full but the last. A list grown one commit at a time then holds
// no spare room but its last chunk's, where one array would double.
//
// A list made with a spool (see spooledCommits) keeps each full chunk
// past its first heldChunks there, encoded (see encodeChunk), and
// decodes it again when a commit of it is asked for, keeping the last
// few decoded: a long history's commits, the largest part of what its
// read holds, then cost no memory but a few chunks'. Every reader of
// the list reads it in order, or nearly, so a chunk is decoded about
// once a pass. A chunk the spool fails to keep is held as it is; one it
// fails to give back is read as commits with nothing in them, and the
// list's err says so (see failed), which fails the replay.
//
// A commit returned stays as it is while it is held, but may be a copy:
// a caller keeps the commit itself, not where it is.
type commitList struct {
	chunks [][]gitlog.Commit // by chunk; nil for one in the spool
	spool  *bundle.Spool
	stored []*bundle.Spooled // by chunk, where the spool keeps it; nil for one held
	names  *chunkNames       // the committers and paths the chunks name (see encodeChunk)
	cache  [decodedChunks]decodedChunk
	clock  int // counts the reads of the cache, to find the one read longest ago
	err    error
}

// decodedChunk is a chunk of a spooled list decoded.
type decodedChunk struct {
	index   int // its place in the list, from 1; 0 for none
	commits []gitlog.Commit
	read    int // when it was last read (see commitList.clock)
}

// spooledCommits returns an empty list that keeps its chunks in spool
// (see commitList), and names as many others share: the list landings
// makes of one, and the list itself. With no spool, the list holds
// its commits as they are.
func spooledCommits(spool *bundle.Spool, names *chunkNames) commitList {
	if spool == nil {
		return commitList{}
	}
	if names == nil {
		names = newChunkNames()
	}
	return commitList{spool: spool, names: names}
}

// Len returns how many commits the list holds.
func (l *commitList) Len() int {
	if len(l.chunks) == 0 {
		return 0
	}
	n := len(l.chunks) - 1
	if l.chunks[n] == nil {
		return (n + 1) * commitChunk // only full chunks are in the spool
	}
	return n*commitChunk + len(l.chunks[n])
}

// At returns the i'th commit of the list.
func (l *commitList) At(i int) *gitlog.Commit {
	return &l.chunk(i / commitChunk)[i%commitChunk]
}

// Append adds a commit at the end of the list.
func (l *commitList) Append(c gitlog.Commit) {
	n := len(l.chunks)
	if n == 0 || l.chunks[n-1] == nil || len(l.chunks[n-1]) == commitChunk {
		l.chunks = append(l.chunks, make([]gitlog.Commit, 0, commitChunk))
		l.stored = append(l.stored, nil)
		n++
	}
	l.chunks[n-1] = append(l.chunks[n-1], c)
	if l.spool != nil && len(l.chunks[n-1]) == commitChunk && n > heldChunks {
		l.keep(n - 1)
	}
}

// keep puts full chunk n in the spool and lets go of it.
func (l *commitList) keep(n int) {
	at, err := l.spool.Put(l.names.encodeChunk(l.chunks[n]))
	if err != nil {
		return // held as it is
	}
	l.chunks[n], l.stored[n] = nil, at
}

// All returns the list's commits in order.
func (l *commitList) All() iter.Seq[*gitlog.Commit] {
	return func(yield func(*gitlog.Commit) bool) {
		for n := range l.chunks {
			chunk := l.chunk(n)
			for i := range chunk {
				if !yield(&chunk[i]) {
					return
				}
			}
		}
	}
}

// chunk returns chunk n, decoding it when it is in the spool.
func (l *commitList) chunk(n int) []gitlog.Commit {
	if l.chunks[n] != nil {
		return l.chunks[n]
	}
	l.clock++
	oldest := &l.cache[0]
	for i := range l.cache {
		d := &l.cache[i]
		if d.index == n+1 {
			d.read = l.clock
			return d.commits
		}
		if d.read < oldest.read {
			oldest = d
		}
	}
	data, err := l.stored[n].Read()
	var commits []gitlog.Commit
	if err == nil {
		commits, err = l.names.decodeChunk(data)
	}
	if err == nil && len(commits) != commitChunk { // only full chunks are kept
		err = errChunk
	}
	if err != nil {
		// The replay fails (see failed); until it does, a chunk of the
		// length it had keeps every reader's indices in range.
		l.err = cmp.Or(l.err, err)
		commits = make([]gitlog.Commit, commitChunk)
	}
	*oldest = decodedChunk{index: n + 1, commits: commits, read: l.clock}
	return commits
}

// failed returns the error of the first chunk the list could not give
// back, if any.
func (l *commitList) failed() error {
	if l.err == nil {
		return nil
	}
	return fmt.Errorf("reading the history's commits back from the build's temporary file: %v", l.err)
}

// landings returns the commits of a list read newest first, as git log
// prints them, oldest first and joined into landings (see
// gitlog.Landings), in a list that keeps its chunks where the first
// does. It empties the list a chunk at a time as it reads it: a long
// history's commits are held once, and a chunk of them twice.
func landings(newestFirst *commitList) commitList {
	oldestFirst := func(yield func(gitlog.Commit) bool) {
		for n := len(newestFirst.chunks); n > 0; n-- {
			chunk := newestFirst.chunk(n - 1)
			newestFirst.chunks[n-1], newestFirst.stored[n-1] = nil, nil
			newestFirst.chunks = newestFirst.chunks[:n-1]
			newestFirst.stored = newestFirst.stored[:n-1]
			for _, c := range slices.Backward(chunk) {
				if !yield(c) {
					return
				}
			}
		}
	}
	out := spooledCommits(newestFirst.spool, newestFirst.names)
	for c := range gitlog.Landings(oldestFirst) {
		out.Append(c)
	}
	out.err = cmp.Or(out.err, newestFirst.err)
	return out
}

// chunkNames are the committers and paths the chunks of spooled lists
// name, each once: a long history names the same few again and again,
// which its commits, decoded, then share.
type chunkNames struct {
	index map[string]uint32
	names []string
	buf   []byte // the last chunk encoded, whose room the next reuses
}

func newChunkNames() *chunkNames { return &chunkNames{index: map[string]uint32{}} }

// name returns the number of s, giving it one if it has none yet.
func (cn *chunkNames) name(s string) uint32 {
	i, ok := cn.index[s]
	if !ok {
		i = uint32(len(cn.names))
		cn.index[s] = i
		cn.names = append(cn.names, s)
	}
	return i
}

// encodeChunk encodes commits, each in turn as: its hash, its time's
// Unix seconds (a varint) and nanoseconds, its committer's number (see
// name), its First, the number of its changes, then each change's
// path's number and blob. A number is a uvarint; a hash, First or blob
// is its length as a uvarint, then its bytes. A time is read back in
// UTC, as gitlog gives every commit's. The bytes returned are good
// until the next call.
func (cn *chunkNames) encodeChunk(commits []gitlog.Commit) []byte {
	b := cn.buf[:0]
	putString := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, c := range commits {
		putString(c.Hash)
		b = binary.AppendVarint(b, c.Time.Unix())
		b = binary.AppendUvarint(b, uint64(c.Time.Nanosecond()))
		b = binary.AppendUvarint(b, uint64(cn.name(c.Committer)))
		putString(c.First)
		b = binary.AppendUvarint(b, uint64(len(c.Changes)))
		for _, ch := range c.Changes {
			b = binary.AppendUvarint(b, uint64(cn.name(ch.Path)))
			putString(string(ch.Blob))
		}
	}
	cn.buf = b
	return b
}

// errChunk is a chunk whose bytes are not those encodeChunk wrote.
var errChunk = errors.New("a chunk of commits is damaged")

// decodeChunk decodes the commits of a chunk encodeChunk wrote. Their
// hashes and blobs are strings of their own, which a commit's reader
// may keep without holding the chunk.
func (cn *chunkNames) decodeChunk(data []byte) ([]gitlog.Commit, error) {
	r := varbytes.NewReader(data)
	bad := false // a name the chunk's table has not
	named := func() string {
		if n := r.Uvarint(); n < uint64(len(cn.names)) {
			return cn.names[n]
		}
		bad = true
		return ""
	}
	commits := make([]gitlog.Commit, 0, commitChunk)
	var changes []gitlog.Change // shared by the chunk's commits, each a part
	for r.Len() > 0 && !bad {
		var c gitlog.Commit
		c.Hash = r.String()
		secs := r.Varint()
		c.Time = time.Unix(secs, int64(r.Uvarint())).UTC()
		c.Committer = named()
		c.First = r.String()
		n := r.Uvarint()
		if n > uint64(r.Len()) { // each change takes two bytes at least
			return nil, errChunk
		}
		if n > 0 {
			if cap(changes)-len(changes) < int(n) {
				changes = make([]gitlog.Change, 0, max(int(n), 2*commitChunk))
			}
			start := len(changes)
			for range n {
				changes = append(changes, gitlog.Change{Path: named(), Blob: gitlog.ObjectID(r.String())})
			}
			c.Changes = changes[start:len(changes):len(changes)]
		}
		commits = append(commits, c)
	}
	if bad || r.Failed() {
		return nil, errChunk
	}
	return commits, nil
}

// commitsFailed returns the error of the first chunk of commits a
// repository's list could not give back, if any.
func (h *historyReader) commitsFailed() error {
	for _, rh := range h.repos {
		if err := rh.commits.failed(); err != nil {
			return err
		}
	}
	return nil
}

// spool returns the spool the repository's commits are kept in; nil
// when they are held as they are.
func (rh *repoHistory) spool() *bundle.Spool {
	if rh.forms == nil {
		return nil
	}
	return rh.forms.spool
}
