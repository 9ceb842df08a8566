package replay

import (
	"crypto/sha1"
	"crypto/sha256"
	"maps"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/generator/bundle"
)

// blobTable holds, by id, the blobs a history read asked for (see
// earlyParse) and what parsing each gave (parsedTool): a long history has
// one for each version of each tool, held until the replay is past it.
// In a map keyed by the ids' strings, each took about 130 bytes and kept
// its id's string besides; here it is an entry of 16 bytes in a chunk of
// them, found by an index keyed by the id's bytes, and its name and path
// and any form no spool handle names are held once, apart. A form's
// SHA256 lies in the spool just before the form (see forms.store): held
// here, it was twice the rest of an entry.
type blobTable struct {
	// sha1 and sha256 index the entries by id: a repository's ids are
	// all 20 bytes (SHA-1) or all 32 (SHA-256).
	sha1   map[[sha1.Size]byte]uint32
	sha256 map[[sha256.Size]byte]uint32
	room   int // what the index was last made for (see shrink)

	// chunks hold the entries, chunkEntries each, in the order they were
	// added: a chunk whose entries are all let go of (see letGo) is
	// freed, which a replay, going the other way along the history from
	// the log that added them, does in turn.
	chunks [][]blobEntry
	live   []int32 // by chunk, the entries not let go of
	n      uint32  // the entries added

	files  []toolFile          // the names and paths entries name (blobEntry.file)
	fileAt map[toolFile]uint32 // their index in files
	other  []heldForm          // the forms entries name that are no spool handle (see blobEntry.form)
}

// heldForm is a form no spool handle names, and its SHA256.
type heldForm struct {
	form   any
	sha256 [sha256.Size]byte
}

// blobEntry is a blob's parsedTool, held compact.
type blobEntry struct {
	// form is 0 for a blob not parsed yet, the canonical form's spool
	// handle (see bundle.Spool.Handle; bundle.HandleBit is set), or one more
	// than the index in other of the form no handle names: a canonical
	// form held in memory, a tools.Stored, or why the blob is no tool
	// file.
	form uint64
	file uint32 // the index of its name and path in files
	// uses are, in a replay that lets go of the blobs it parsed (see
	// letGo), the changes of the steps to come naming it and the paths
	// of the replay's tree holding it; 0 for a blob parsed during the
	// replay (see repoHistory.tool), which is held as it is too.
	uses int32
}

const (
	chunkBits    = 10
	chunkEntries = 1 << chunkBits
)

func newBlobTable() *blobTable {
	return &blobTable{sha1: map[[sha1.Size]byte]uint32{}, sha256: map[[sha256.Size]byte]uint32{}, fileAt: map[toolFile]uint32{}}
}

// index returns where the entry of blob id is.
func (t *blobTable) index(id gitlog.ObjectID) (i uint32, ok bool) {
	if t == nil {
		return 0, false
	}
	if len(id) == sha1.Size {
		i, ok = t.sha1[key1(id)]
	} else {
		i, ok = t.sha256[key256(id)]
	}
	return i, ok
}

// key1 and key256 are the index's key of an id 20 bytes long, and of
// one that is not.
func key1(id gitlog.ObjectID) (k [sha1.Size]byte) {
	copy(k[:], id)
	return k
}

func key256(id gitlog.ObjectID) (k [sha256.Size]byte) {
	copy(k[:], id)
	return k
}

// len returns how many blobs the table holds.
func (t *blobTable) len() int { return len(t.sha1) + len(t.sha256) }

func (t *blobTable) entry(i uint32) *blobEntry { return &t.chunks[i>>chunkBits][i&(chunkEntries-1)] }

// has reports whether the table holds blob id.
func (t *blobTable) has(id gitlog.ObjectID) bool {
	_, ok := t.index(id)
	return ok
}

// get returns what the table holds of blob id.
func (t *blobTable) get(id gitlog.ObjectID) (parsedTool, bool) {
	i, ok := t.index(id)
	if !ok {
		return parsedTool{}, false
	}
	e := t.entry(i)
	p := parsedTool{at: t.files[e.file]}
	switch {
	case e.form&bundle.HandleBit != 0:
		p.handle = e.form
	case e.form != 0:
		held := t.other[e.form-1]
		p.form, p.sha256 = held.form, held.sha256
	}
	return p, true
}

// put holds p for blob id, in place of what the table held for it.
func (t *blobTable) put(id gitlog.ObjectID, p parsedTool) {
	i, ok := t.index(id)
	if !ok {
		i = t.add(id)
	}
	e := t.entry(i)
	e.file = t.file(p.at)
	// A form no handle names takes the place in other of the one it
	// replaces, if any: few blobs are parsed twice (see keepRead).
	slot := -1
	if e.form != 0 && e.form&bundle.HandleBit == 0 {
		slot = int(e.form - 1)
		t.other[slot] = heldForm{}
	}
	held := heldForm{p.form, p.sha256}
	switch {
	case p.handle != 0:
		e.form = p.handle
	case p.form == nil:
		e.form = 0
	case slot >= 0:
		t.other[slot] = held
	default:
		t.other = append(t.other, held)
		e.form = uint64(len(t.other))
	}
}

// add makes an entry for blob id, and returns its index.
func (t *blobTable) add(id gitlog.ObjectID) uint32 {
	i := t.n
	t.n++
	c := i >> chunkBits
	if int(c) == len(t.chunks) {
		t.chunks = append(t.chunks, make([]blobEntry, chunkEntries))
		t.live = append(t.live, 0)
	}
	t.live[c]++
	if len(id) == sha1.Size {
		t.sha1[key1(id)] = i
	} else {
		t.sha256[key256(id)] = i
	}
	t.room = max(t.room, t.len())
	return i
}

// file returns the index in files of a name and path, adding it if
// new: a long history has many versions of a tool at one path.
func (t *blobTable) file(at toolFile) uint32 {
	if i, ok := t.fileAt[at]; ok {
		return i
	}
	i := uint32(len(t.files))
	t.files = append(t.files, at)
	t.fileAt[at] = i
	return i
}

// remove lets go of what the table holds of blob id.
func (t *blobTable) remove(id gitlog.ObjectID) {
	i, ok := t.index(id)
	if !ok {
		return
	}
	if len(id) == sha1.Size {
		delete(t.sha1, key1(id))
	} else {
		delete(t.sha256, key256(id))
	}
	e := t.entry(i)
	if e.form != 0 && e.form&bundle.HandleBit == 0 {
		t.other[e.form-1] = heldForm{}
	}
	*e = blobEntry{}
	c := i >> chunkBits
	// The chunk entries are added to stays: only a full one is freed.
	if t.live[c]--; t.live[c] == 0 && (c+1)<<chunkBits <= t.n {
		t.chunks[c] = nil
	}
}

// use counts one more use of blob id, if the table holds it (see
// countUses).
func (t *blobTable) use(id gitlog.ObjectID) {
	if i, ok := t.index(id); ok {
		t.entry(i).uses++
	}
}

// release counts out one use of blob id, and lets go of it when none is
// left; a blob whose uses were not counted is kept (see letGo).
func (t *blobTable) release(id gitlog.ObjectID) {
	i, ok := t.index(id)
	if !ok {
		return
	}
	e := t.entry(i)
	if e.uses == 0 {
		return
	}
	if e.uses--; e.uses == 0 {
		t.remove(id)
	}
}

// shrink makes the index anew, for what it holds, once it holds less than
// half of what it was last made for: a Go map keeps the room of the
// entries deleted from it.
func (t *blobTable) shrink() {
	if n := t.len(); n < t.room/2 {
		t.sha1, t.sha256 = remade(t.sha1), remade(t.sha256)
		t.room = n
	}
}

func remade[K comparable](m map[K]uint32) map[K]uint32 {
	out := make(map[K]uint32, len(m))
	maps.Copy(out, m)
	return out
}

// merge adds to t what from holds, blobs t does not hold (see keepRead).
func (t *blobTable) merge(from *blobTable) {
	for id := range from.sha1 {
		p, _ := from.get(gitlog.ObjectID(id[:]))
		t.put(gitlog.ObjectID(id[:]), p)
	}
	for id := range from.sha256 {
		p, _ := from.get(gitlog.ObjectID(id[:]))
		t.put(gitlog.ObjectID(id[:]), p)
	}
}
