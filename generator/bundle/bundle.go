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
	files map[string]*File
	dirs  map[string]bool // every directory that holds a file
	spool *Spool          // where the immutable files' bytes go; nil keeps them in memory
	// Files' answer is kept, since a build asks for it at every stage, and
	// merged with what was added since: a stage adds few files, or many
	// in about the order of their paths.
	mu     sync.Mutex
	sorted []*File // the files added before the last Files, by path
	added  []*File // those added since, in the order added
}

// New returns an empty Bundle.
func New() *Bundle { return &Bundle{files: map[string]*File{}, dirs: map[string]bool{}} }

// NewSpooled returns an empty Bundle that keeps the bytes of its immutable
// files in s. Closing s is the caller's.
func NewSpooled(s *Spool) *Bundle {
	b := New()
	b.spool = s
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
	b.insert(&File{Path: p, ContentType: contentType, spooled: at})
	return nil
}

// insert adds f, whose path check accepted.
func (b *Bundle) insert(f *File) {
	for d := path.Dir(f.Path); d != "/"; d = path.Dir(d) {
		b.dirs[d] = true
	}
	b.files[f.Path] = f
	b.mu.Lock()
	b.added = append(b.added, f)
	b.mu.Unlock()
}

// check refuses an unsafe path, a second file at p, or a file where
// another file needs a directory.
func (b *Bundle) check(p string) error {
	if err := CheckPath(p); err != nil {
		return err
	}
	if _, dup := b.files[p]; dup || b.dirs[p] {
		return fmt.Errorf("two outputs would be written to %s", p)
	}
	for d := path.Dir(p); d != "/"; d = path.Dir(d) {
		if _, clash := b.files[d]; clash {
			return fmt.Errorf("output %s needs %s to be a directory, but it is a file", p, d)
		}
	}
	return nil
}

// Replaced returns a bundle of b's files with new bodies for those at the
// paths in bodies, each keeping its content type and headers: a rebuild's,
// when only those bodies changed. b is left as it is; its other files are
// shared, which is safe since a file is never changed once its headers
// are set. A path that is not a file of b is an error.
func (b *Bundle) Replaced(bodies map[string][]byte) (*Bundle, error) {
	files := b.Files()
	out := &Bundle{files: make(map[string]*File, len(files)), dirs: maps.Clone(b.dirs), spool: b.spool}
	for i, f := range files {
		if body, ok := bodies[f.Path]; ok {
			files[i] = &File{Path: f.Path, Body: body, ContentType: f.ContentType, Header: f.Header}
		}
		out.files[f.Path] = files[i]
	}
	for p := range bodies {
		if _, ok := b.files[p]; !ok {
			return nil, fmt.Errorf("no file %s to replace", p)
		}
	}
	out.sorted = files
	return out, nil
}

// Get returns the file at p.
func (b *Bundle) Get(p string) (*File, bool) {
	f, ok := b.files[p]
	return f, ok
}

// Len returns the number of files.
func (b *Bundle) Len() int { return len(b.files) }

// Kinds counts the machine-readable documents (IsDocument) and the HTML
// pages among the files.
func (b *Bundle) Kinds() (documents, pages int) {
	for _, f := range b.Files() {
		switch {
		case f.IsDocument():
			documents++
		case strings.HasSuffix(f.Path, ".html"):
			pages++
		}
	}
	return documents, pages
}

// Files returns every file, sorted by path.
func (b *Bundle) Files() []*File {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.added) > 0 {
		slices.SortFunc(b.added, byPath)
		b.sorted, b.added = merge(b.sorted, b.added), nil
	}
	return append(make([]*File, 0, len(b.sorted)), b.sorted...)
}

func byPath(x, y *File) int { return strings.Compare(x.Path, y.Path) }

// merge returns the files of a and b, each sorted by path, sorted by path.
func merge(a, b []*File) []*File {
	out := make([]*File, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if byPath(a[0], b[0]) < 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// CheckPath accepts a clean absolute slash path naming a file that stays
// inside the site: no "..", no empty or dot segments, no backslash or NUL.
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
	}
	return nil
}
