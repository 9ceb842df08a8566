// Package inputfile reads the files a build takes as input the way a reader
// must when anyone who can commit may have written them: regular files
// only (a device, FIFO or socket is never opened, so it can neither block
// nor stream forever), symlinks resolved and kept inside a root directory
// (the repository), and never more than a cap of bytes.
package inputfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/wellknown-dev/wellknown/internal/diag"
)

// MaxSize is the cap for an input no other limit applies to: far above any
// page, template or asset a site keeps in git, far below what exhausts
// memory.
const MaxSize = 64 << 20

// RealPath is path made absolute with its symlinks resolved, as far as it
// exists.
func RealPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}

// RepoRoot returns the top of the git work tree holding dir (the nearest
// directory upwards with a .git entry), or dir itself outside any, as an
// absolute path with its symlinks resolved.
func RepoRoot(dir string) (string, error) {
	abs, err := RealPath(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return abs, nil
		}
	}
}

// Resolve returns the real path of name, which must be a regular file, and
// inside root unless root is "". The error is an *fs.PathError naming name,
// its Err saying what name is instead.
func Resolve(root, name string) (string, fs.FileInfo, error) {
	return resolve(root, name, Secret{}, evalSymlinks)
}

// Secret is a file that no input may be, by whatever name it is reached: a
// symlink, a symlinked directory on the way, or a hard link (another name
// for the same file). It is known by what it is (os.SameFile: the device
// and inode, or Windows' volume and file index), which no spelling of a
// path hides. The zero Secret refuses nothing.
type Secret struct {
	what string      // for messages: "the signing key signing.key"
	info fs.FileInfo // nil: none
}

// NewSecret returns the Secret of the file at name, called what in
// messages. A file that cannot be stat'd now cannot be read either: its
// Secret is the zero one.
func NewSecret(name, what string) Secret {
	info, err := os.Stat(name)
	if err != nil {
		return Secret{}
	}
	return Secret{what: what, info: info}
}

// ReadFile is ReadFile(root, name, max), refusing s: for a file read once,
// where a Reader would resolve its directory for nothing.
func (s Secret) ReadFile(root, name string, max int64) ([]byte, error) {
	real, info, err := resolve(root, name, s, evalSymlinks)
	if err != nil {
		return nil, err
	}
	data, _, err := readResolved(name, real, info, max, s)
	return data, err
}

// refuse says why a file whose stat is info is refused, or nil when it is
// not the secret.
func (s Secret) refuse(info fs.FileInfo) error {
	if s.info == nil || !os.SameFile(s.info, info) {
		return nil
	}
	return diag.Errorf("", 0, "is %s under another name, and what a build reads may be published", s.what).
		WithHint("remove the link or copy that leads to it, and make a new key if it was ever published")
}

// evalSymlinks is filepath.EvalSymlinks, with no stat of the result.
func evalSymlinks(name string) (string, fs.FileInfo, error) {
	real, err := filepath.EvalSymlinks(name)
	return real, nil, err
}

// resolve is Resolve, refusing secret, with eval for evalSymlinks: it may
// return the real path's stat, which then is not taken again.
func resolve(root, name string, secret Secret, eval func(string) (string, fs.FileInfo, error)) (string, fs.FileInfo, error) {
	refuse := func(err error) (string, fs.FileInfo, error) {
		return "", nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	real, info, err := eval(name)
	if err != nil {
		if _, statErr := os.Stat(name); statErr != nil {
			err = statErr // says "too many levels of symbolic links" for a cycle
		}
		return refuse(diag.Cause(err))
	}
	if real, err = filepath.Abs(real); err != nil {
		return refuse(err)
	}
	if root != "" && !Within(root, real) {
		return refuse(outside(root, name, real))
	}
	if info == nil {
		if info, err = os.Stat(real); err != nil {
			return refuse(diag.Cause(err))
		}
	}
	if !info.Mode().IsRegular() {
		return refuse(fmt.Errorf("is %s, not a regular file", Kind(info.Mode())))
	}
	if err := secret.refuse(info); err != nil {
		return refuse(err)
	}
	return real, info, nil
}

// ReadFile reads the regular file name (see Resolve), at most max bytes.
func ReadFile(root, name string, max int64) ([]byte, error) {
	return Secret{}.ReadFile(root, name, max)
}

// read reads name as ReadFile does, refusing secret, or takes the bytes
// files kept of it when its stat says it has not changed since (see Files).
func (files *Files) read(root, name string, max int64, secret Secret, eval func(string) (string, fs.FileInfo, error)) ([]byte, fs.FileInfo, error) {
	real, info, err := resolve(root, name, secret, eval)
	if err != nil {
		return nil, nil, err
	}
	if data, ok := files.unchanged(real, info, max); ok {
		return data, info, nil
	}
	start := files.now()
	data, opened, err := readResolved(name, real, info, max, secret)
	if err != nil {
		return nil, nil, err
	}
	files.keep(real, opened, start, data)
	return data, info, nil
}

// readResolved reads the file name resolved to real, whose stat was info,
// at most max bytes; opened is its stat once open.
func readResolved(name, real string, info fs.FileInfo, max int64, secret Secret) (data []byte, opened fs.FileInfo, err error) {
	// O_NONBLOCK: should the file be swapped for a FIFO after Resolve, the
	// open does not wait for a writer; the check after opening refuses it.
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "read", Path: name, Err: diag.Cause(err)}
	}
	defer f.Close()
	opened, err = f.Stat()
	// A file swapped for the secret after Resolve is refused the same way.
	if err != nil || !opened.Mode().IsRegular() || secret.refuse(opened) != nil {
		return nil, nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("changed while being read")}
	}
	// Sized by the stat, so that the file is read in one go; one that grew
	// since is read whole all the same.
	buf := bytes.NewBuffer(make([]byte, 0, min(info.Size(), max)+bytes.MinRead))
	_, err = buf.ReadFrom(io.LimitReader(f, max+1))
	data = buf.Bytes()
	if err != nil {
		return nil, nil, &fs.PathError{Op: "read", Path: name, Err: diag.Cause(err)}
	}
	if int64(len(data)) > max {
		return nil, nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("is larger than the limit of %s", Size(max))}
	}
	return data, opened, nil
}

// Typable is path as the user can type it here: relative to the working
// directory when inside it.
func Typable(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	if rel, err := filepath.Rel(wd, path); err == nil && Within(wd, path) {
		return rel
	}
	return path
}

// Within reports whether path is dir or inside it; both absolute and clean.
func Within(dir, path string) bool {
	// The common case without filepath.Rel, which a build's thousands of
	// reads feel.
	if rest, ok := strings.CutPrefix(path, dir); ok && (rest == "" || rest[0] == filepath.Separator) {
		return true
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Size formats a byte count for messages: "64 MiB", "512 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// outside says how name, whose real path is real, leaves the repository
// at root.
func outside(root, name, real string) error {
	if t, err := os.Readlink(name); err == nil {
		return fmt.Errorf("is a symlink to %s, outside the repository", t)
	}
	if abs, err := filepath.Abs(name); err == nil && !Within(root, abs) {
		return fmt.Errorf("is outside the repository %s", root)
	}
	return fmt.Errorf("leads through a symlinked directory to %s, outside the repository", real)
}

// Kind names what a file of mode m is, for messages: "a FIFO", "a symlink".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// FS returns the tree under dir as an fs.FS whose files are read with
// ReadFile (inside root, at most max bytes each, never secret), through
// files. A file it refuses is a *diag.Error naming the file by its path
// under dir.
func (files *Files) FS(root, dir string, max int64, secret Secret) fs.FS {
	return inputFS{root: root, dir: dir, max: max, reader: files.NewReader(root, secret)}
}

type inputFS struct {
	root, dir string
	max       int64
	reader    *Reader
}

// Reader reads files inside root as ReadFile does, resolving each
// directory once: reading many files of a tree then costs one lstat a
// file, not one for every part of its path. It is safe for concurrent use.
//
// The directories' real paths are kept for the Reader's life, which is
// one build's: a directory swapped for a symlink later is resolved anew
// by the next build's Reader.
type Reader struct {
	root   string
	secret Secret
	dirs   sync.Map // directory → its real path
	files  *Files
}

// NewReader returns a Reader of the files inside root but secret, reading
// through files.
func (files *Files) NewReader(root string, secret Secret) *Reader {
	return &Reader{root: root, secret: secret, files: files}
}

// ReadFile is ReadFile(root, name, max), refusing the Reader's secret.
func (r *Reader) ReadFile(name string, max int64) ([]byte, error) {
	data, _, err := r.files.read(r.root, name, max, r.secret, r.evalSymlinks)
	return data, err
}

// evalSymlinks is filepath.EvalSymlinks with the directory's real path
// kept, and the stat of a plain file in it returned. Anything but a plain
// file in a directory seen before is resolved as EvalSymlinks does.
func (r *Reader) evalSymlinks(name string) (string, fs.FileInfo, error) {
	dir, base := filepath.Split(name)
	real, ok := r.dirs.Load(dir)
	if !ok {
		d, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return evalSymlinks(name)
		}
		real, _ = r.dirs.LoadOrStore(dir, d)
	}
	p := filepath.Join(real.(string), base)
	info, err := os.Lstat(p)
	if err != nil || info.Mode()&fs.ModeSymlink != 0 {
		return evalSymlinks(name)
	}
	return p, info, nil
}

// Open opens a directory inside root as it is, and reads a file whole.
func (f inputFS) Open(name string) (fs.File, error) {
	p, err := f.path("open", name)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		if info, err := os.Stat(real); err == nil && info.IsDir() {
			return f.openDir(p, real)
		}
	}
	data, info, err := f.reader.files.read(f.root, p, f.max, f.reader.secret, f.reader.evalSymlinks)
	if err != nil {
		return nil, located(err)
	}
	return &memFile{Reader: bytes.NewReader(data), info: info}, nil
}

func (f inputFS) openDir(p, real string) (fs.File, error) {
	if real, err := filepath.Abs(real); err != nil || !Within(f.root, real) {
		return nil, diag.Errorf(p, 0, "%v", outside(f.root, p, real))
	}
	return os.Open(p)
}

// ReadFile reads a file with ReadFile.
func (f inputFS) ReadFile(name string) ([]byte, error) {
	p, err := f.path("read", name)
	if err != nil {
		return nil, err
	}
	data, err := f.reader.ReadFile(p, f.max)
	return data, located(err)
}

func (f inputFS) path(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.Join(f.dir, filepath.FromSlash(name)), nil
}

// located turns a refusal into a *diag.Error; a missing file stays an
// fs.ErrNotExist, which callers of an fs.FS test for.
func located(err error) error {
	var pe *fs.PathError
	if errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
		return err
	}
	return diag.Errorf(pe.Path, 0, "%v", pe.Err).WithHint("%s", diag.Hint(pe.Err))
}

// memFile is a file already read.
type memFile struct {
	*bytes.Reader
	info fs.FileInfo
}

func (m *memFile) Stat() (fs.FileInfo, error) { return m.info, nil }
func (m *memFile) Close() error               { return nil }
