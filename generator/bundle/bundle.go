// Package bundle holds a build's output: every file of the site by path,
// with its content type and HTTP headers, its bytes in memory or, for the
// immutable and the large files of a bundle with a Spool, in a temporary
// file. A build produces one Bundle; `build` writes it to disk (WriteDir),
// `serve` answers from it, and the deploy files that carry headers are
// rendered from the same headers, so nothing about a file is decided twice.
package bundle

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"maps"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
)

// File is one file of the site.
type File struct {
	Path string // absolute within the site, clean: "/.well-known/did.json"
	// Body is the file's bytes; nil for a file kept in a Spool, which
	// Bytes reads.
	Body        []byte
	ContentType string
	// Header holds the headers a host should send with the file, set by
	// package deploy once every file is added (nil before): shared by
	// files, never changed in place.
	Header http.Header

	spooled *Spooled // where its bytes are, when they are not in Body
}

// Bytes returns the file's bytes: Body, or a new copy of them read from
// the spool.
func (f *File) Bytes() ([]byte, error) {
	if f.spooled == nil {
		return f.Body, nil
	}
	return f.spooled.Read()
}

// Reader returns a reader of the file's bytes and their length: of Body,
// or of the spool, so that a spooled file can be taken a chunk at a time
// instead of read back whole (see Bytes).
func (f *File) Reader() (io.Reader, int64, error) {
	if f.spooled == nil {
		return bytes.NewReader(f.Body), int64(len(f.Body)), nil
	}
	r, err := f.spooled.reader()
	return r, int64(f.spooled.len()), err
}

// IsDocument reports whether a file is a machine-readable document (as
// opposed to a page, an asset, or a deploy file).
func (f *File) IsDocument() bool {
	t, _, _ := mime.ParseMediaType(f.ContentType)
	sub, ok := strings.CutPrefix(t, "application/")
	// An XSLT style sheet is XML, but an asset of the pages, not a
	// document clients read.
	return ok && sub != "xslt+xml" && (sub == "json" || strings.HasSuffix(sub, "+json") || strings.HasSuffix(sub, "+xml"))
}

// Bundle is a set of files keyed by path.
type Bundle struct {
	files   map[string]*File // the files held whole
	records *records         // the immutable files in the spool, compact; nil without a spool
	dirs    map[string]bool  // every directory that holds a file
	spool   *Spool           // where the immutable files' bytes go; nil keeps them in memory
	// The order of the files is kept, since a build asks for it at every
	// stage, and merged with what was added since: a stage adds few
	// files, or many in about the order of their paths.
	mu     sync.Mutex
	sorted []*File // the files held whole added before the order was last asked for, by path
	added  []*File // those added since, in the order added
}

// New returns an empty Bundle.
func New() *Bundle { return &Bundle{files: map[string]*File{}, dirs: map[string]bool{}} }

// NewSpooled returns an empty Bundle that keeps the bytes of its immutable
// files in s. Closing s is the caller's.
func NewSpooled(s *Spool) *Bundle {
	b := New()
	b.spool, b.records = s, newRecords()
	return b
}

// Spool returns the spool the bundle keeps files in (NewSpooled), or nil.
func (b *Bundle) Spool() *Spool { return b.spool }

// Add adds a file. An unsafe path, two files at one path, or a file where
// another file needs a directory is an error. A bundle with a spool writes
// the bytes of an immutable or a large file (see SpoolFrom) there at once and
// keeps no reference to body.
func (b *Bundle) Add(p string, body []byte, contentType string) error {
	if err := b.check(p); err != nil {
		return err
	}
	f := &File{Path: p, Body: body, ContentType: contentType}
	if b.spool != nil && (immutable(p) || len(body) >= SpoolFrom) {
		at, err := b.spool.Put(body)
		if err != nil {
			return fmt.Errorf("keeping %s until it is written: %v", p, err)
		}
		if b.record(p, at, contentType) {
			return nil
		}
		f.Body, f.spooled = nil, at
	}
	b.insert(f)
	return nil
}

// AddSpooled is Add of bytes put in a spool beforehand: they stay where
// they are when it is the bundle's, and are read back when not.
func (b *Bundle) AddSpooled(p string, at *Spooled, contentType string) error {
	if at.spool != b.spool {
		body, err := at.Read()
		if err != nil {
			return readingBack(p, err)
		}
		return b.Add(p, body, contentType)
	}
	if err := b.check(p); err != nil {
		return err
	}
	if !b.record(p, at, contentType) {
		b.insert(&File{Path: p, ContentType: contentType, spooled: at})
	}
	return nil
}

// record adds the file at p, whose path check accepted, as a record
// when it is immutable and a record can hold it, and reports whether it
// was.
func (b *Bundle) record(p string, at *Spooled, contentType string) bool {
	if !immutable(p) || !b.records.add(p, at, contentType) {
		return false
	}
	b.addDirs(p)
	return true
}

// insert adds f, whose path check accepted.
func (b *Bundle) insert(f *File) {
	b.addDirs(f.Path)
	b.files[f.Path] = f
	b.mu.Lock()
	b.added = append(b.added, f)
	b.mu.Unlock()
}

// addDirs records the directories of the file at p.
func (b *Bundle) addDirs(p string) {
	for d := path.Dir(p); d != "/" && !b.dirs[d]; d = path.Dir(d) {
		b.dirs[d] = true
	}
}

// has reports whether a file is at p.
func (b *Bundle) has(p string) bool {
	if _, ok := b.files[p]; ok {
		return true
	}
	if b.records == nil {
		return false
	}
	_, ok := b.records.find(p)
	return ok
}

// check refuses an unsafe path, a second file at p, or a file where
// another file needs a directory.
func (b *Bundle) check(p string) error {
	if err := CheckPath(p); err != nil {
		return err
	}
	if b.has(p) || b.dirs[p] {
		return fmt.Errorf("two outputs would be written to %s", p)
	}
	// A directory that holds a file is no file, and nor is any above it.
	for d := path.Dir(p); d != "/" && !b.dirs[d]; d = path.Dir(d) {
		if b.has(d) {
			return fmt.Errorf("output %s needs %s to be a directory, but it is a file", p, d)
		}
	}
	return nil
}

// Replaced returns a bundle of b's files with new bodies for those at the
// paths in bodies, each keeping its content type and headers: a rebuild's,
// when only those bodies changed. b is left as it is; its other files are
// shared, which is safe since a file is never changed once its headers
// are set. A path that is not a file of b held whole (an immutable file
// in its spool is never replaced) is an error. A bundle with a spool
// shares its records with b: add no file to either after.
func (b *Bundle) Replaced(bodies map[string][]byte) (*Bundle, error) {
	for p := range bodies {
		if _, ok := b.files[p]; !ok {
			return nil, fmt.Errorf("no file %s to replace", p)
		}
	}
	b.mu.Lock()
	files := b.held()
	b.mu.Unlock()
	out := &Bundle{files: make(map[string]*File, len(files)), records: b.records, dirs: maps.Clone(b.dirs), spool: b.spool,
		sorted: slices.Clone(files)}
	for i, f := range out.sorted {
		if body, ok := bodies[f.Path]; ok {
			out.sorted[i] = &File{Path: f.Path, Body: body, ContentType: f.ContentType, Header: f.Header}
		}
		out.files[f.Path] = out.sorted[i]
	}
	return out, nil
}

// Get returns the file at p.
// A File made for an immutable file of the spool (see records) is made
// anew at each call; a change to it is lost (see SetHeaders).
func (b *Bundle) Get(p string) (*File, bool) {
	if f, ok := b.files[p]; ok {
		return f, true
	}
	if b.records == nil {
		return nil, false
	}
	i, ok := b.records.find(p)
	if !ok {
		return nil, false
	}
	return b.records.file(i, b.spool), true
}

// Len returns the number of files.
func (b *Bundle) Len() int {
	n := len(b.files)
	if b.records != nil {
		n += int(b.records.n)
	}
	return n
}

// Kinds counts the machine-readable documents (IsDocument) and the HTML
// pages among the files.
func (b *Bundle) Kinds() (documents, pages int) {
	for f := range b.All() {
		switch {
		case f.IsDocument():
			documents++
		case strings.HasSuffix(f.Path, ".html"):
			pages++
		}
	}
	return documents, pages
}

// All yields every file, by path. A File of an immutable file in the
// spool is made as its turn comes, and held by the caller only: a long
// history has a hundred thousand (see records). Files added while All
// runs are not yielded.
func (b *Bundle) All() iter.Seq[*File] {
	return func(yield func(*File) bool) {
		for _, f := range b.list().all {
			if !yield(f) {
				return
			}
		}
	}
}

// listing is the bundle's files at one time, by path (see all).
type listing struct {
	b     *Bundle
	held  []*File  // the files held whole, by path
	order []uint32 // the records, by path
}

// list returns the files b has now.
func (b *Bundle) list() listing {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := listing{b: b, held: b.held()}
	if b.records != nil {
		s.order = b.records.order()
	}
	return s
}

// fromRecord marks a ref (see listing.all) as a record's index: there
// are fewer records than it (see records.add), and far fewer files held
// whole.
const fromRecord = 1 << 31

// all yields each file by path with its ref: its index in held, or its
// record's index plus fromRecord, by which file finds it again.
func (s listing) all(yield func(uint32, *File) bool) {
	held, order := s.held, s.order
	for len(held) > 0 || len(order) > 0 {
		var ref uint32
		var f *File
		if len(order) > 0 && (len(held) == 0 || s.b.records.comparePath(order[0], held[0].Path) < 0) {
			ref, f = order[0]+fromRecord, s.b.records.file(order[0], s.b.spool)
			order = order[1:]
		} else {
			ref, f = uint32(len(s.held)-len(held)), held[0]
			held = held[1:]
		}
		if !yield(ref, f) {
			return
		}
	}
}

// path returns the path of the file ref names (see all).
func (s listing) path(ref uint32) string {
	if ref >= fromRecord {
		return s.b.records.path(ref - fromRecord)
	}
	return s.held[ref].Path
}

// Files returns every file, by path: All, held at once, for a caller
// that keeps them (a bundle served from memory has no spool).
func (b *Bundle) Files() []*File {
	return slices.AppendSeq(make([]*File, 0, b.Len()), b.All())
}

// Batches yields every file, by path, n at a time: All, for a caller
// that handles many files at once (in parallel) but need not hold all.
func (b *Bundle) Batches(n int) iter.Seq[[]*File] {
	return func(yield func([]*File) bool) {
		batch := make([]*File, 0, n)
		for f := range b.All() {
			if batch = append(batch, f); len(batch) == n {
				if !yield(batch) {
					return
				}
				batch = make([]*File, 0, n)
			}
		}
		if len(batch) > 0 {
			yield(batch)
		}
	}
}

// SetHeaders sets every file's Header to what header returns for it:
// for a File that All makes, setting its Header would be lost.
func (b *Bundle) SetHeaders(header func(*File) http.Header) {
	for ref, f := range b.list().all {
		if ref >= fromRecord {
			b.records.setHeader(ref-fromRecord, header(f))
		} else {
			f.Header = header(f)
		}
	}
}

// held returns the files held whole, by path. The caller holds mu.
func (b *Bundle) held() []*File {
	if len(b.added) > 0 {
		slices.SortFunc(b.added, byPath)
		b.sorted, b.added = mergeSorted(b.sorted, b.added, byPath), nil
	}
	return b.sorted
}

func byPath(x, y *File) int { return strings.Compare(x.Path, y.Path) }

// CheckPath accepts a clean absolute slash path naming a file that stays
// inside the site: no "..", no empty or dot segments, no backslash or NUL,
// no name a write keeps for its temporary files.
func CheckPath(p string) error {
	switch {
	case !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/"):
		return fmt.Errorf("output path %q must start with / and name a file", p)
	case path.Clean(p) != p:
		return fmt.Errorf("output path %q is not clean", p)
	case strings.ContainsAny(p, "\\\x00"):
		return fmt.Errorf("output path %q contains a backslash or NUL", p)
	}
	for _, seg := range strings.Split(p[1:], "/") {
		if seg == ".." || seg == "." || seg == "" {
			return fmt.Errorf("output path %q escapes the site", p)
		}
		if strings.HasPrefix(seg, tempPrefix) {
			return fmt.Errorf("output path %q starts a name with %s, which a write keeps for its temporary files", p, tempPrefix)
		}
	}
	return nil
}
