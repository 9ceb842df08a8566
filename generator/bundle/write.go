package bundle

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
	"github.com/wellknown-dev/wellknown/internal/parallel"
)

const markerText = "This directory is written by wellknown build; files not in the site are removed on every build.\n"

// tempPrefix starts the name of every file a write creates before renaming
// it into place. One left by an interrupted write is removed by the next.
const tempPrefix = ".wellknown-new-"

// DefaultLockWait is how long a write waits for another build writing into
// the same directory.
const DefaultLockWait = time.Minute

// WriteOptions qualify WriteDir.
type WriteOptions struct {
	// Root is the directory the output must stay inside (the repository or
	// site root); the output may not be Root itself or one of its ancestors.
	Root string
	// Force allows an output directory outside Root.
	Force bool
	// LockWait bounds the wait for another build writing into the same
	// directory; zero means DefaultLockWait.
	LockWait time.Duration
}

// WriteStats says what a write did to the files of the output directory.
type WriteStats struct {
	Written   int `json:"written"`   // new or changed
	Removed   int `json:"removed"`   // no longer in the site
	Unchanged int `json:"unchanged"` // already held the same bytes
}

// testHook, when set by a test, is called after each file a write stages
// ("staged") and after each it renames into place ("renamed").
var testHook func(event string)

// WriteDir makes dir hold exactly the bundle, writing only what changed.
// Each new or changed file is first written beside its target and then
// renamed over it, so no reader ever sees a torn file; every file is staged
// before the first rename, so a write that fails (a full disk, a name too
// long) leaves dir as it was. Files no longer in the bundle, empty
// directories and the temporary files of an interrupted write are removed.
// An existing dir is written into only when it holds the marker
// (paths.OutputMarker) or is empty.
func (b *Bundle) WriteDir(dir string, opt WriteOptions) (WriteStats, error) {
	out, err := resolve(dir)
	if err != nil {
		return WriteStats{}, err
	}
	if err := checkOutputDir(dir, out, opt); err != nil {
		return WriteStats{}, err
	}
	if err := prepareOutputDir(dir, out); err != nil {
		return WriteStats{}, err
	}
	wait := opt.LockWait
	if wait == 0 {
		wait = DefaultLockWait
	}
	marker, err := lockMarker(dir, filepath.Join(out, paths.OutputMarker), wait)
	if err != nil {
		return WriteStats{}, err
	}
	defer marker.Close()
	if err := removeOldCopies(out); err != nil {
		return WriteStats{}, err
	}
	return b.update(out)
}

// removeOldCopies removes the whole-tree copies that versions before this
// writer made beside out and left behind when interrupted: the new tree,
// .public.new-123 (its marker was written last, so it may lack one), and
// the previous output moved aside, .public.new-123.old (which holds one).
func removeOldCopies(out string) error {
	parent := filepath.Dir(out)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return err
	}
	for _, e := range entries {
		suffix, ours := strings.CutPrefix(e.Name(), "."+filepath.Base(out)+".new-")
		number, moved := strings.CutSuffix(suffix, ".old")
		c := filepath.Join(parent, e.Name())
		if !e.IsDir() || !ours || !isNumber(number) || moved && !paths.IsOutput(c) {
			continue
		}
		if err := os.RemoveAll(c); err != nil {
			return err
		}
	}
	return nil
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// resolve returns the absolute form of dir with every symlink in it
// resolved; the part that does not exist yet is kept as written.
func resolve(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	var missing []string
	for p := abs; ; p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{real}, missing...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || p == filepath.Dir(p) {
			return "", err
		}
		missing = append([]string{filepath.Base(p)}, missing...)
	}
}

// checkOutputDir refuses output paths whose rewriting would destroy
// something that is not build output. out is dir resolved.
func checkOutputDir(dir, out string, opt WriteOptions) error {
	refuse := func(why string) error {
		return diag.Errorf("", 0, "refusing to write output to %s: %s", dir, why).
			WithHint("choose a dedicated directory such as public/ with --out")
	}
	if out == filepath.Dir(out) {
		return refuse("it is the file-system root")
	}
	if home, err := os.UserHomeDir(); err == nil && out == resolvedOrClean(home) {
		return refuse("it is your home directory")
	}
	if opt.Root == "" {
		return nil
	}
	root, err := resolve(opt.Root)
	if err != nil {
		return err
	}
	if inputfile.Within(out, root) {
		return refuse("it is the site's root or contains it")
	}
	if !inputfile.Within(root, out) && !opt.Force {
		why := "it is outside the site's repository"
		if abs, err := filepath.Abs(dir); err == nil && abs != out {
			why = fmt.Sprintf("it is %s, outside the site's repository", out)
		}
		return diag.Errorf("", 0, "refusing to write output to %s: %s", dir, why).
			WithHint("pass --force to write there anyway")
	}
	return nil
}

func resolvedOrClean(p string) string {
	if real, err := resolve(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}

// prepareOutputDir creates out, or checks that the existing one is ours to
// write into: it holds the marker or is empty.
func prepareOutputDir(dir, out string) error {
	info, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		// The output is read by web servers and deploy tools running as
		// other users, whatever the umask.
		return os.Chmod(out, 0o755)
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return diag.Errorf("", 0, "refusing to write output to %s: it is a file", dir)
	}
	// One listing decides, with no window between two looks: a build into
	// the same directory may create the marker at any moment, and it is
	// the first file any build puts there.
	entries, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	if len(entries) > 0 && !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == paths.OutputMarker }) {
		return diag.Errorf("", 0, "refusing to write into %s: it was not created by wellknown (no %s marker) and is not empty", dir, paths.OutputMarker).
			WithHint("remove it yourself, or choose another directory with --out")
	}
	return nil
}

// lockMarker opens the marker file, waits up to wait for the lock on it and
// makes sure it says what it is. Closing the file releases the lock.
func lockMarker(dir, path string, wait time.Duration) (*os.File, error) {
	f, err := openMarker(path)
	if err != nil {
		return nil, err
	}
	for delay, deadline := time.Millisecond, time.Now().Add(wait); ; delay = min(2*delay, 100*time.Millisecond) {
		locked, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if locked {
			break
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, diag.Errorf("", 0, "another build is writing to %s; gave up waiting after %s", dir, wait).
				WithHint("let it finish, or build into another directory with --out")
		}
		time.Sleep(delay)
	}
	if err := writeMarker(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func writeMarker(f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.Size() == int64(len(markerText)) && info.Mode().Perm() == 0o644 {
		return nil
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt([]byte(markerText), 0); err != nil {
		return err
	}
	return f.Chmod(0o644)
}

// existing is what a directory tree holds: file paths and directory paths,
// slash-separated and absolute within the site like File.Path.
type existing struct {
	files map[string]bool // anything that is not a directory, symlinks included
	dirs  map[string]bool
}

// scan lists the tree under out without following symlinks.
func scan(out string) (existing, error) {
	ex := existing{files: map[string]bool{}, dirs: map[string]bool{}}
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(out, p)
		if err != nil || rel == "." {
			return err
		}
		site := "/" + filepath.ToSlash(rel)
		if d.IsDir() {
			ex.dirs[site] = true
		} else if site != "/"+paths.OutputMarker {
			ex.files[site] = true
		}
		return nil
	})
	return ex, err
}

// staged is a file written beside its target under a temporary name, to
// be renamed over it: its ref (see listing.all), from which both names
// are made again (see tempFor), and its rank. A long history's cold
// write stages a hundred thousand files.
type staged struct {
	ref  uint32
	rank uint8 // see writeRank
}

// tempFor is the temporary name of the file ref that goes to target.
// Names made so are the write's own, and the lock keeps them so:
// CheckPath refuses them as outputs.
func tempFor(target string, ref uint32) string {
	return filepath.Join(filepath.Dir(target), tempPrefix+strconv.FormatUint(uint64(ref), 10))
}

// The ranks of writeRank, in the order update renames files into place.
// A write killed between two renames then leaves every document that a
// reader follows to another file either old, with its old targets still
// there, or new, with its new targets already written: immutable files
// first, documents after the documents they refer to, the feed and the
// snapshot last. Files no longer in the bundle go after all of them.
const (
	rankImmutable = iota // archived tool versions, feed archives: new paths, never rewritten
	rankPage             // pages, assets, deploy files: no document refers to them
	rankDocument         // cards and did.json, which the documents below refer to
	rankIndex            // documents that list cards
	rankFeed             // refers to archives, tool versions, cards and did.json's key
	rankSnapshot         // summarises the feed
)

// indexes are the documents that list or copy the cards.
var indexes = map[string]bool{
	paths.Catalog: true, paths.ServerCardAlias: true, paths.ServerList: true,
	paths.AICards: true, paths.EntityCard: true,
}

// writeRank is where f goes in the order of renames.
func (b *Bundle) writeRank(f *File) uint8 {
	snapshotMoved := b.has(paths.SnapshotBesideA2A)
	switch {
	case immutable(f.Path):
		return rankImmutable
	case f.Path == paths.Feed:
		return rankFeed
	case f.Path == paths.SnapshotBesideA2A, f.Path == paths.Snapshot && !snapshotMoved:
		return rankSnapshot
	case indexes[f.Path]:
		return rankIndex
	case f.IsDocument():
		return rankDocument
	}
	return rankPage
}

// update makes out hold exactly the bundle.
func (b *Bundle) update(out string) (WriteStats, error) {
	ex, err := scan(out)
	if err != nil {
		return WriteStats{}, err
	}
	created, err := b.makeDirs(out)
	if err != nil {
		removeDirs(created)
		return WriteStats{}, err
	}
	l := b.list()
	target := func(ref uint32) string { return filepath.Join(out, filepath.FromSlash(l.path(ref)[1:])) }
	changes, unchanged, err := b.stage(out, l)
	if err != nil {
		for _, s := range changes {
			os.Remove(tempFor(target(s.ref), s.ref))
		}
		removeDirs(created)
		return WriteStats{}, err
	}
	stats := WriteStats{Unchanged: unchanged}
	slices.SortStableFunc(changes, func(x, y staged) int { return cmp.Compare(x.rank, y.rank) })
	for _, s := range changes {
		to := target(s.ref)
		if err := renameOver(tempFor(to, s.ref), to); err != nil {
			return stats, err
		}
		stats.Written++
		if testHook != nil {
			testHook("renamed")
		}
	}
	removed, err := b.removeStale(out, ex)
	stats.Removed = removed
	return stats, err
}

// makeDirs creates every directory of the bundle that out lacks, parents
// first, and returns those it created. Anything else found where a
// directory belongs (a file, a symlink) is stale output and is removed.
func (b *Bundle) makeDirs(out string) ([]string, error) {
	dirs := make([]string, 0, len(b.dirs))
	for d := range b.dirs {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	var created []string
	for _, d := range dirs {
		p := filepath.Join(out, filepath.FromSlash(d[1:]))
		info, err := os.Lstat(p)
		switch {
		case err == nil && info.IsDir():
			continue
		case err == nil:
			if err := os.Remove(p); err != nil {
				return created, err
			}
		case !errors.Is(err, fs.ErrNotExist):
			return created, err
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			return created, err
		}
		created = append(created, p)
	}
	return created, nil
}

// removeDirs removes directories makeDirs created, children first.
func removeDirs(dirs []string) {
	for _, d := range slices.Backward(dirs) {
		os.Remove(d)
	}
}

// stage writes every file of l whose bytes out lacks to a temporary file
// beside its target, and counts the files already as they should be. It
// takes the files a batch at a time (see stageBatch). On error the files
// staged so far are returned too, for removal.
func (b *Bundle) stage(out string, l listing) ([]staged, int, error) {
	var changes []staged
	unchanged := 0
	refs, files := make([]uint32, 0, stageBatch), make([]*File, 0, stageBatch)
	var err error
	stageFiles := func() {
		var n int
		changes, n, err = b.stageFiles(out, refs, files, changes)
		unchanged += n
		refs, files = refs[:0], files[:0]
	}
	for ref, f := range l.all {
		if refs, files = append(refs, ref), append(files, f); len(files) == stageBatch {
			if stageFiles(); err != nil {
				return changes, unchanged, err
			}
		}
	}
	stageFiles()
	return changes, unchanged, err
}

// stageBatch is how many files a write stages at once, in parallel: a
// File made for a record is held no longer than its batch.
const stageBatch = 1024

// stageFiles stages the files, whose refs are refs, appending them to
// changes, and counts those already as they should be.
func (b *Bundle) stageFiles(out string, refs []uint32, files []*File, changes []staged) ([]staged, int, error) {
	wrote := make([]bool, len(files))
	errs := make([]error, len(files))
	parallel.For(len(files), func(i int) {
		target := filepath.Join(out, filepath.FromSlash(files[i].Path[1:]))
		same, err := holds(target, files[i])
		if same || err != nil {
			errs[i] = err
			return
		}
		errs[i] = writeTemp(tempFor(target, refs[i]), files[i])
		wrote[i] = errs[i] == nil
		if wrote[i] && testHook != nil {
			testHook("staged")
		}
	})
	unchanged := 0
	for i, f := range files {
		switch {
		case wrote[i]:
			changes = append(changes, staged{refs[i], b.writeRank(f)})
		case errs[i] == nil:
			unchanged++
		}
	}
	return changes, unchanged, errors.Join(errs...)
}

// chunk is the most bytes of a file that a write compares or copies at
// once: a long history's changelog is not read back whole from the spool,
// nor its copy on disk.
const chunk = 64 << 10

// buffers holds two chunks for each write of a file under way.
var buffers = sync.Pool{New: func() any { b := make([]byte, 2*chunk); return &b }}

// holds reports whether path is a regular file, readable by others,
// holding exactly f's bytes. An error other than its absence (a name too
// long) would fail the rename, so it is returned now, before anything
// changed; so is an error reading f's bytes.
func holds(path string, f *File) (bool, error) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	body, size, err := f.Reader()
	if err != nil {
		return false, err
	}
	if !info.Mode().IsRegular() || info.Mode().Perm() != 0o644 || info.Size() != size {
		return false, nil
	}
	old, err := os.Open(path)
	if err != nil {
		return false, nil
	}
	defer old.Close()
	buf := buffers.Get().(*[]byte)
	defer buffers.Put(buf)
	want, got := (*buf)[:chunk], (*buf)[chunk:]
	for size > 0 {
		n := int(min(size, chunk))
		if _, err := io.ReadFull(body, want[:n]); err != nil {
			return false, readingBack(f.Path, err)
		}
		if _, err := io.ReadFull(old, got[:n]); err != nil || !bytes.Equal(want[:n], got[:n]) {
			return false, nil
		}
		size -= int64(n)
	}
	return true, nil
}

// writeTemp writes f's bytes to a new file at temp. Whatever an
// interrupted write left there goes first.
func writeTemp(temp string, f *File) error {
	body, size, err := f.Reader()
	if err != nil {
		return err
	}
	t, err := os.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		if err = os.RemoveAll(temp); err == nil {
			t, err = os.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		}
	}
	if err != nil {
		return err
	}
	buf := buffers.Get().(*[]byte)
	// Only Write: *os.File's ReadFrom would copy through a buffer of its
	// own, one a file.
	n, err := io.CopyBuffer(struct{ io.Writer }{t}, body, (*buf)[:chunk])
	buffers.Put(buf)
	if err == nil && n != size {
		// A spooled file's reader ends where the spool's file does: a
		// spool cut short would otherwise publish a file cut short.
		err = readingBack(f.Path, fmt.Errorf("got %d of its %d bytes", n, size))
	}
	// Made private, and then readable by others whatever the umask: the
	// output is read by other users.
	err = errors.Join(err, t.Chmod(0o644), t.Close())
	if err != nil {
		os.Remove(temp)
	}
	return err
}

// renameOver renames temp to target, first removing a directory left at
// target by an older build.
func renameOver(temp, target string) error {
	if info, err := os.Lstat(target); err == nil && info.IsDir() {
		if err := os.RemoveAll(target); err != nil {
			return err
		}
	}
	return os.Rename(temp, target)
}

// removeStale removes what out held that the bundle does not: files (the
// temporary files of an interrupted write among them), then directories,
// deepest first. It returns how many of the files were the site's.
func (b *Bundle) removeStale(out string, ex existing) (int, error) {
	removed := 0
	var errs []error
	for p := range ex.files {
		if b.has(p) || b.dirs[p] || b.replacedByFile(p) {
			continue
		}
		if err := os.Remove(filepath.Join(out, filepath.FromSlash(p[1:]))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		if !strings.HasPrefix(filepath.Base(p), tempPrefix) {
			removed++
		}
	}
	var stale []string
	for d := range ex.dirs {
		if !b.dirs[d] && !b.has(d) && !b.replacedByFile(d) {
			stale = append(stale, d)
		}
	}
	// Longer paths first: a directory's children before it.
	slices.SortFunc(stale, func(x, y string) int { return len(y) - len(x) })
	for _, d := range stale {
		if err := os.RemoveAll(filepath.Join(out, filepath.FromSlash(d[1:]))); err != nil {
			errs = append(errs, err)
		}
	}
	return removed, errors.Join(errs...)
}

// replacedByFile reports whether an ancestor of p is a file of the bundle:
// the old directory there, with p, went when the file was renamed over it.
func (b *Bundle) replacedByFile(p string) bool {
	for d := path.Dir(p); d != "/"; d = path.Dir(d) {
		if b.has(d) {
			return true
		}
	}
	return false
}
