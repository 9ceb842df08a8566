package bundle

import (
	"cmp"
	"maps"
	"math"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
)

// records holds a bundle's immutable files whose bytes lie in its spool,
// in one run each: a long history's archived tool versions, a hundred
// thousand of them. A record is 16 bytes in a chunk of them, its last
// path element a dozen more in the chunk's names, and its place in the
// order by path 4, by which find searches: about 32 bytes, where a File
// with its path and its place in a map took about 200. A File is made
// for a record when one is asked for (File, All), and let go of by its
// caller.
type records struct {
	// chunks hold the records, chunkRecords each, in the order they were
	// added (see rec): no slice of them all is grown, which would leave
	// room unused and, while it grew, hold them twice.
	chunks [][]record
	// names hold each chunk's records' last path elements, one after
	// another: a record's starts where the one before it in its chunk
	// ends, so that a record holds where its own ends and no length (see
	// name).
	names []string
	// building gathers the last chunk's names as they are added: that
	// chunk's names are its bytes so far.
	building strings.Builder
	n        uint32            // the records added
	dirs     []string          // the records' directories, each once
	dirAt    map[string]uint32 // the index of each in dirs
	types    []string          // the records' content types, each once
	// headers are the records' headers (see Bundle.SetHeaders), each
	// once; a record's header is its index here plus one, 0 for none.
	headers      []http.Header
	otherHeaders map[uint32]http.Header // by record, past the most headers names

	// mu guards sorted and recent, which find and order read and merge:
	// a bundle's readers (Get, All) may run at once.
	mu sync.Mutex
	// sorted holds the indexes of the records by path, but for those
	// added since the last merge (the indexes from len(sorted) on),
	// which recent finds by their paths instead. They are merged in when
	// recent holds mergeEvery of them, and when the order is asked for.
	sorted []uint32
	recent map[string]uint32
}

// mergeEvery bounds recent, which holds about 130 bytes a path (its slot
// in the map, and the path's string it keeps): about 530 KB at most, as
// records are added, and none once the order is asked for (the stages
// after, which hold the records longest). A merge makes sorted anew, 4
// bytes a record, and puts each added record in it with a few
// comparisons (see merge): adding 180,000 records took a fifth longer
// merging every 1,024, and no less merging every 16,384, which holds 2 MB.
const mergeEvery = 4096

const (
	chunkBits    = 8
	chunkRecords = 1 << chunkBits
	// longestName is the longest last path element a record holds, so
	// that a chunk's names end where a record's nameEnd can say. A tool
	// version's name, or a feed archive's, is a few dozen bytes; the
	// file of a longer one is held whole.
	longestName = math.MaxUint16 / chunkRecords
)

type record struct {
	at      uint64 // where its bytes lie: their handle in the spool (see Spool.Handle)
	dir     uint32 // in records.dirs
	nameEnd uint16 // where its last path element ends in its chunk's names (see records.name)
	typ     uint8  // in records.types
	header  uint8  // in records.headers, plus one; 0 for none (see records.header)
}

func newRecords() *records {
	return &records{dirAt: map[string]uint32{}}
}

// rec returns record i.
func (r *records) rec(i uint32) *record { return &r.chunks[i>>chunkBits][i&(chunkRecords-1)] }

// add records the file at p, whose bytes are at at, and reports whether
// it could: a file whose bytes lie in several runs, or whose offset,
// size, name or type a record cannot hold, is left to be held whole.
func (r *records) add(p string, at *Spooled, contentType string) bool {
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	d, knownDir := r.dirAt[dir]
	t := slices.Index(r.types, contentType)
	handle, ok := at.spool.Handle(at)
	if !ok || len(name) > longestName ||
		!knownDir && len(r.dirs) == math.MaxUint32 || t < 0 && len(r.types) == math.MaxUint8+1 || r.n == fromRecord {
		return false
	}
	if !knownDir {
		d = uint32(len(r.dirs))
		r.dirs = append(r.dirs, dir)
		r.dirAt[dir] = d
	}
	if t < 0 {
		t = len(r.types)
		r.types = append(r.types, contentType)
	}
	i, c := r.n, r.n>>chunkBits
	if i&(chunkRecords-1) == 0 {
		r.chunks = append(r.chunks, make([]record, chunkRecords))
		r.names = append(r.names, "")
		r.building.Reset() // the chunk before keeps the bytes its names share
	}
	r.building.WriteString(name)
	r.names[c] = r.building.String()
	*r.rec(i) = record{at: handle, dir: d, nameEnd: uint16(len(r.names[c])), typ: uint8(t)}
	r.n++
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.recent == nil {
		r.recent = map[string]uint32{}
	}
	if r.recent[p] = i; len(r.recent) == mergeEvery {
		r.merge()
	}
	return true
}

// find returns the index of the record at p: one of those added since
// the last merge, by its path, or one of sorted, by a binary search
// that compares names alone among the records of p's directory.
func (r *records) find(p string) (uint32, bool) {
	dir, name := path.Split(p)
	if !strings.HasSuffix(dir, "/") {
		return 0, false // not a path
	}
	d, ok := r.dirAt[dir[:len(dir)-1]]
	if !ok {
		return 0, false // no record is in p's directory
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if i, ok := r.recent[p]; ok {
		return i, true
	}
	k, ok := slices.BinarySearchFunc(r.sorted, p, func(i uint32, p string) int {
		if r.rec(i).dir == d {
			return strings.Compare(r.name(i), name)
		}
		return r.comparePath(i, p)
	})
	if !ok {
		return 0, false
	}
	return r.sorted[k], true
}

// split returns record i's directory and last path element.
func (r *records) split(i uint32) (dir, name string) {
	return r.dirs[r.rec(i).dir], r.name(i)
}

// name returns record i's last path element: from where the one before
// it in its chunk ends, or the start, to where its own ends. It shares
// the bytes of the chunk's names.
func (r *records) name(i uint32) string {
	var start uint16
	if i&(chunkRecords-1) > 0 {
		start = r.rec(i - 1).nameEnd
	}
	return r.names[i>>chunkBits][start:r.rec(i).nameEnd]
}

// path returns record i's path.
func (r *records) path(i uint32) string {
	dir, name := r.split(i)
	return dir + "/" + name
}

// compare orders records i and j by path, as strings.Compare orders
// their paths, without making them.
func (r *records) compare(i, j uint32) int {
	a, b := r.rec(i).dir, r.rec(j).dir
	if a == b {
		return strings.Compare(r.name(i), r.name(j))
	}
	return compareJoined([3]string{r.dirs[a], "/", r.name(i)}, [3]string{r.dirs[b], "/", r.name(j)})
}

// comparePath orders record i and the path p, as strings.Compare orders
// record i's path and p.
func (r *records) comparePath(i uint32, p string) int {
	dir, name := r.split(i)
	return comparePath(dir, name, p)
}

// comparePath orders the path dir/name and p, as strings.Compare would.
func comparePath(dir, name, p string) int {
	if c := strings.Compare(dir, p[:min(len(dir), len(p))]); c != 0 {
		return c
	}
	// p starts with dir.
	if len(p) == len(dir) {
		return 1
	}
	if c := cmp.Compare('/', p[len(dir)]); c != 0 {
		return c
	}
	return strings.Compare(name, p[len(dir)+1:])
}

// compareJoined orders the strings that a and b join into, as
// strings.Compare would.
func compareJoined(a, b [3]string) int {
	i, j := 0, 0
	for {
		for a[i] == "" && i < len(a)-1 {
			i++
		}
		for b[j] == "" && j < len(b)-1 {
			j++
		}
		if a[i] == "" || b[j] == "" {
			return cmp.Compare(len(a[i]), len(b[j]))
		}
		n := min(len(a[i]), len(b[j]))
		if c := strings.Compare(a[i][:n], b[j][:n]); c != 0 {
			return c
		}
		a[i], b[j] = a[i][n:], b[j][n:]
	}
}

// order returns the records' indexes by path. The slice is the
// caller's to read: a merge makes sorted anew, and leaves it be.
func (r *records) order() []uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.sorted) < int(r.n) {
		r.merge()
	}
	return r.sorted
}

// merge puts the records added since the last merge in sorted, by path,
// and empties recent. The caller holds mu. Each is put where a search of
// the rest of sorted says, from the place of the one before: those added
// together are mostly a few tools' versions, near each other by path,
// and a merge that compared every one of sorted would make a hundred
// thousand comparisons where this makes a few for each added.
func (r *records) merge() {
	added := make([]uint32, 0, int(r.n)-len(r.sorted))
	for i := uint32(len(r.sorted)); i < r.n; i++ {
		added = append(added, i)
	}
	slices.SortFunc(added, r.compare)
	out, rest := make([]uint32, 0, r.n), r.sorted
	for _, i := range added {
		// rest[:end/2] sort before i: rest[end/2-1] does.
		end := 1
		for end <= len(rest) && r.compare(rest[end-1], i) < 0 {
			end *= 2
		}
		k, _ := slices.BinarySearchFunc(rest[end/2:min(end, len(rest))], i, r.compare)
		k += end / 2
		out, rest = append(append(out, rest[:k]...), i), rest[k:]
	}
	r.sorted = append(out, rest...)
	r.recent = nil
}

// file makes the File of record i: its bytes stay in the spool.
func (r *records) file(i uint32, s *Spool) *File {
	rec := r.rec(i)
	at := s.named(rec.at)
	return &File{Path: r.path(i), ContentType: r.types[rec.typ], Header: r.header(i), spooled: &at}
}

// setHeader sets record i's header to h. The records' headers are held
// once each: a bundle's immutable files share a few (see deploy.Apply).
func (r *records) setHeader(i uint32, h http.Header) {
	if h == nil {
		r.rec(i).header = 0
		return
	}
	at := slices.IndexFunc(r.headers, func(o http.Header) bool { return sameHeader(o, h) })
	if at < 0 && len(r.headers) < manyHeaders-1 {
		at = len(r.headers)
		r.headers = append(r.headers, h)
	}
	if at < 0 {
		if r.otherHeaders == nil {
			r.otherHeaders = map[uint32]http.Header{}
		}
		r.otherHeaders[i], r.rec(i).header = h, manyHeaders
		return
	}
	r.rec(i).header = uint8(at + 1)
}

// header returns record i's header.
func (r *records) header(i uint32) http.Header {
	switch h := r.rec(i).header; h {
	case 0:
		return nil
	case manyHeaders:
		return r.otherHeaders[i]
	default:
		return r.headers[h-1]
	}
}

// manyHeaders, as a record's header, says it is in otherHeaders: there
// were more kinds than a record names.
const manyHeaders = math.MaxUint8

func sameHeader(a, b http.Header) bool { return maps.EqualFunc(a, b, slices.Equal) }

// mergeSorted returns a and b, each sorted by compare, in one sorted slice.
func mergeSorted[T any](a, b []T, compare func(x, y T) int) []T {
	out := make([]T, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if compare(a[0], b[0]) < 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}
