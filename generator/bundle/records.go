package bundle

import (
	"cmp"
	"hash/maphash"
	"maps"
	"math"
	"net/http"
	"path"
	"slices"
	"strings"
)

// records holds a bundle's immutable files whose bytes lie in its spool,
// in one run each: a long history's archived tool versions, a hundred
// thousand of them. A record is 24 bytes, its name's last element a few
// more and its place in the index about 20, where a File with its path
// and its place in a map took about 200; a File is made for a record
// when one is asked for (File, All), and let go of by its caller.
type records struct {
	list  []record
	dirs  []string          // the records' directories, each once
	dirAt map[string]uint32 // the index of each in dirs
	names strings.Builder   // the records' last path elements, one after another
	types []string          // the records' content types, each once
	// headers are the records' headers (see Bundle.SetHeaders), each
	// once; a record's header is its index here plus one, 0 for none.
	headers      []http.Header
	otherHeaders map[uint32]http.Header // by record, past the most headers names
	// index finds a record by the hash of its path. A path whose hash
	// another record's has (which no build is likely to see) is in
	// collided instead.
	seed     maphash.Seed
	index    map[uint64]uint32
	collided map[string]uint32
	// sorted holds the indexes of the records added before the order was
	// last asked for, by path; those added since are merged in when it
	// is asked for again.
	sorted []uint32
}

type record struct {
	off    int64  // where its bytes lie in the spool
	size   uint32 // how many there are
	dir    uint32 // in records.dirs
	name   uint32 // where its last path element starts in records.names
	nameN  uint16 // how long it is
	typ    uint8  // in records.types
	header uint8  // in records.headers, plus one; 0 for none (see records.header)
}

func newRecords() *records {
	return &records{dirAt: map[string]uint32{}, seed: maphash.MakeSeed(), index: map[uint64]uint32{}}
}

// add records the file at p, whose bytes are at at, and reports whether
// it could: a file whose bytes lie in several runs, or whose path, size
// or type a record cannot hold, is left to be held whole.
func (r *records) add(p string, at *Spooled, contentType string) bool {
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	d, knownDir := r.dirAt[dir]
	t := slices.Index(r.types, contentType)
	if at.next != nil || at.size > math.MaxUint32 || len(name) > math.MaxUint16 || r.names.Len()+len(name) > math.MaxUint32 ||
		!knownDir && len(r.dirs) == math.MaxUint32 || t < 0 && len(r.types) == math.MaxUint8+1 || len(r.list) == fromRecord {
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
	i := uint32(len(r.list))
	r.list = append(r.list, record{off: at.off, size: uint32(at.size), dir: d, name: uint32(r.names.Len()), nameN: uint16(len(name)), typ: uint8(t)})
	r.names.WriteString(name)
	h := maphash.String(r.seed, p)
	if _, taken := r.index[h]; taken {
		if r.collided == nil {
			r.collided = map[string]uint32{}
		}
		r.collided[p] = i
	} else {
		r.index[h] = i
	}
	return true
}

// find returns the index of the record at p.
func (r *records) find(p string) (uint32, bool) {
	if i, ok := r.index[maphash.String(r.seed, p)]; ok && r.is(i, p) {
		return i, true
	}
	i, ok := r.collided[p]
	return i, ok
}

// is reports whether record i is at p.
func (r *records) is(i uint32, p string) bool {
	dir, name := r.split(i)
	return len(p) == len(dir)+1+len(name) && strings.HasPrefix(p, dir) && p[len(dir)] == '/' && p[len(dir)+1:] == name
}

// split returns record i's directory and last path element.
func (r *records) split(i uint32) (dir, name string) {
	rec := &r.list[i]
	return r.dirs[rec.dir], r.name(rec)
}

// name returns rec's last path element. It shares the bytes of names,
// which a Builder only appends to.
func (r *records) name(rec *record) string {
	return r.names.String()[rec.name : rec.name+uint32(rec.nameN)]
}

// path returns record i's path.
func (r *records) path(i uint32) string {
	dir, name := r.split(i)
	return dir + "/" + name
}

// compare orders records i and j by path, as strings.Compare orders
// their paths, without making them.
func (r *records) compare(i, j uint32) int {
	a, b := &r.list[i], &r.list[j]
	if a.dir == b.dir {
		return strings.Compare(r.name(a), r.name(b))
	}
	return compareJoined([3]string{r.dirs[a.dir], "/", r.name(a)}, [3]string{r.dirs[b.dir], "/", r.name(b)})
}

// comparePath orders record i and the path p, as strings.Compare orders
// record i's path and p.
func (r *records) comparePath(i uint32, p string) int {
	rec := &r.list[i]
	return compareJoined([3]string{r.dirs[rec.dir], "/", r.name(rec)}, [3]string{p})
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

// order returns the records' indexes by path.
func (r *records) order() []uint32 {
	if len(r.sorted) < len(r.list) {
		added := make([]uint32, 0, len(r.list)-len(r.sorted))
		for i := len(r.sorted); i < len(r.list); i++ {
			added = append(added, uint32(i))
		}
		slices.SortFunc(added, r.compare)
		r.sorted = mergeSorted(r.sorted, added, r.compare)
	}
	return r.sorted
}

// file makes the File of record i: its bytes stay in the spool.
func (r *records) file(i uint32, s *Spool) *File {
	rec := &r.list[i]
	return &File{Path: r.path(i), ContentType: r.types[rec.typ], Header: r.header(i),
		spooled: &Spooled{spool: s, off: rec.off, size: int(rec.size)}}
}

// setHeader sets record i's header to h. The records' headers are held
// once each: a bundle's immutable files share a few (see deploy.Apply).
func (r *records) setHeader(i uint32, h http.Header) {
	if h == nil {
		r.list[i].header = 0
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
		r.otherHeaders[i], r.list[i].header = h, manyHeaders
		return
	}
	r.list[i].header = uint8(at + 1)
}

// header returns record i's header.
func (r *records) header(i uint32) http.Header {
	switch h := r.list[i].header; h {
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
