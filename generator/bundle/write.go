package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wellknown-dev/wellknown/generator/diag"
)

// Marker is written into every output directory we create. Only a directory
// holding it is ever replaced or deleted.
const Marker = ".wellknown-output"

const markerText = "This directory is written by wellknown build and replaced on every build.\n"

// WriteOptions qualify WriteDir.
type WriteOptions struct {
	// Root is the directory the output must stay inside (the repository or
	// site root); the output may not be Root itself or one of its ancestors.
	Root string
	// Force allows an output directory outside Root.
	Force bool
}

// WriteDir writes the bundle to dir atomically: it renders into a temporary
// sibling directory, then swaps it into place. When anything fails, dir is
// left exactly as it was. An existing dir is replaced only when it holds the
// Marker (or is empty).
func (b *Bundle) WriteDir(dir string, opt WriteOptions) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := checkOutputDir(dir, abs, opt); err != nil {
		return err
	}
	existed, err := checkReplaceable(dir, abs)
	if err != nil {
		return err
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(abs)+".new-")
	if err != nil {
		return err
	}
	// MkdirTemp makes a private directory; the output is read by web
	// servers and deploy tools running as other users.
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := b.writeTree(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := swap(tmp, abs, existed); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return nil
}

// checkOutputDir refuses output paths whose replacement would destroy
// something that is not build output.
func checkOutputDir(dir, abs string, opt WriteOptions) error {
	refuse := func(why string) error {
		return diag.Errorf("", 0, "refusing to write output to %s: %s", dir, why).
			WithHint("choose a dedicated directory such as public/ with --out")
	}
	if abs == filepath.Dir(abs) {
		return refuse("it is the file-system root")
	}
	if home, err := os.UserHomeDir(); err == nil && abs == filepath.Clean(home) {
		return refuse("it is your home directory")
	}
	if opt.Root == "" {
		return nil
	}
	root, err := filepath.Abs(opt.Root)
	if err != nil {
		return err
	}
	if abs == root || within(root, abs) {
		return refuse("it is the site's root or contains it")
	}
	if !within(abs, root) && !opt.Force {
		return diag.Errorf("", 0, "refusing to write output to %s: it is outside the site's repository", dir).
			WithHint("pass --force to write there anyway")
	}
	return nil
}

// within reports whether path is strictly inside dir.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// checkReplaceable reports whether dir exists, failing when it exists but was
// not created by us.
func checkReplaceable(dir, abs string) (bool, error) {
	info, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !info.IsDir() {
		return false, diag.Errorf("", 0, "refusing to write output to %s: it is a file", dir)
	}
	if _, err := os.Stat(filepath.Join(abs, Marker)); err == nil {
		return true, nil
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return false, err
	}
	if len(entries) > 0 {
		return false, diag.Errorf("", 0, "refusing to replace %s: it was not created by wellknown (no %s marker) and is not empty", dir, Marker).
			WithHint("remove it yourself, or choose another directory with --out")
	}
	return true, nil
}

// writers is how many files are written at once: writing many small files
// waits on the file system more than on the CPU.
const writers = 8

// writeTree writes every file under root: the directories first, parents
// before children, then the files by several writers.
func (b *Bundle) writeTree(root string) error {
	dirs := make([]string, 0, len(b.dirs))
	for d := range b.dirs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if err := os.Mkdir(filepath.Join(root, filepath.FromSlash(d[1:])), 0o755); err != nil {
			return err
		}
	}
	files := make(chan *File)
	errs := make(chan error, writers)
	for range writers {
		go func() {
			var first error
			for f := range files {
				if first == nil {
					first = os.WriteFile(filepath.Join(root, filepath.FromSlash(f.Path[1:])), f.Body, 0o644)
				}
			}
			errs <- first
		}()
	}
	for _, f := range b.files {
		files <- f
	}
	close(files)
	var err error
	for range writers {
		err = errors.Join(err, <-errs)
	}
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, Marker), []byte(markerText), 0o644)
}

// swap puts the new tree at abs, moving the old one aside first and deleting
// it only once the new one is in place.
func swap(tmp, abs string, existed bool) error {
	if !existed {
		return os.Rename(tmp, abs)
	}
	old := tmp + ".old"
	if err := os.Rename(abs, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, abs); err != nil {
		if restoreErr := os.Rename(old, abs); restoreErr != nil {
			return fmt.Errorf("%v; the previous output is at %s", err, old)
		}
		return err
	}
	return os.RemoveAll(old)
}
