// Package keyguard keeps the signing key out of what a build publishes: it
// refuses a key file git tracks (LoadKey, SiteKey), a key whose file lies in a
// directory the site publishes (CheckSite), a key inside the output
// directory (CheckOutput), and a bundle with any file that holds the key
// in any encoding (Scan). The key's file read as a page, template, asset
// or imported file by any name is refused by the readers themselves (see
// didweb.KeyFileSecret).
package keyguard

import (
	"cmp"
	"crypto/ed25519"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
	"github.com/wellknown-dev/wellknown/internal/parallel"
)

// SiteKey loads the key cfg's site signs with, from the flag's file, the
// site's environment variable or its key_file (see LoadKey), and refuses
// it where the site would publish it (CheckSite).
func SiteKey(cfg *site.Config, flagFile string, getenv func(string) string, strict, preview bool) (didweb.SigningKey, error) {
	key, err := LoadKey(didweb.KeySources{FlagFile: flagFile, EnvName: cfg.Signing.KeyEnv, EnvValue: getenv(cfg.Signing.KeyEnv),
		ConfigFile: cfg.Path(cfg.Signing.KeyFile), SiteDir: cfg.Dir, Strict: strict, Preview: preview})
	if err != nil {
		return key, err
	}
	return key, CheckSite(key, cfg)
}

// LoadKey finds, reads and checks the signing key (see
// didweb.LoadSigningKey), and fails when git tracks its file, judged at its
// real path (a symlink to a tracked key is no less public): a committed
// private key is published to everyone who can read the repository.
func LoadKey(src didweb.KeySources) (didweb.SigningKey, error) {
	key, err := didweb.LoadSigningKey(src)
	if err != nil {
		return key, err
	}
	if err := refuseTracked(key.File); err != nil {
		return didweb.SigningKey{}, err
	}
	return key, nil
}

// refuseTracked fails when git tracks the key file at path ("" for a key
// from the environment, which has none).
func refuseTracked(path string) error {
	if path == "" {
		return nil
	}
	real, err := inputfile.RealPath(path)
	if err != nil {
		return err
	}
	repo, err := gitlog.Open(filepath.Dir(real))
	if err != nil {
		return nil // not in a repository, or no git: nothing to refuse
	}
	if tracked, err := repo.Tracked(real); err != nil || !tracked {
		return err
	}
	return diag.Errorf(path, 0, "the signing key is tracked by git, so it is not private").
		WithHint("remove it from the index (git rm --cached %s), add it to .gitignore, and generate a new key: the old one is in your history", inputfile.Typable(real))
}

// CheckSite fails when the key file lies in a directory whose files the
// site publishes, content/ and templates/ (assets are copied as they are).
// The key under another name there (a symlink, a symlinked directory, a
// hard link) is refused as it is read: see Secret.
func CheckSite(key didweb.SigningKey, cfg *site.Config) error {
	for _, dir := range []string{cfg.ContentDir, cfg.TemplatesDir} {
		if inside(key, cfg.Path(dir)) {
			return diag.Errorf(key.File, 0, "the signing key is inside %s, whose files are published", dir).
				WithHint("move the key out of the site's content and templates, and make a new one if it was ever published")
		}
	}
	return nil
}

// CheckOutput fails when the key's file is inside the output directory dir,
// which a build replaces.
func CheckOutput(key didweb.SigningKey, dir string) error {
	if inside(key, dir) {
		return diag.Errorf(key.File, 0, "the signing key is inside the output directory %s, which a build replaces", dir).
			WithHint("keep the key outside the output, e.g. create one with: wellknown keygen -o signing.key")
	}
	return nil
}

// inside reports whether the key's file, symlinks resolved, is in dir.
func inside(key didweb.SigningKey, dir string) bool {
	if key.File == "" {
		return false
	}
	file, err1 := inputfile.RealPath(key.File)
	dir, err2 := inputfile.RealPath(dir)
	return err1 == nil && err2 == nil && inputfile.Within(dir, file)
}

// Scanned remembers the bodies the last Scan found free of the key (a
// development server's rebuilds, whose stages reuse most files' bodies),
// so that the next Scan with the same key scans only the bodies that are
// new: a body is known by its memory, which a bundle's file never changes.
type Scanned struct {
	key     ed25519.PrivateKey
	scanner *scanner
	clean   map[*byte]int // the length of each clean body, by its first byte
}

// NewScanned returns a Scanned that knows no body yet.
func NewScanned() *Scanned { return &Scanned{} }

// Scan fails when any file of b holds the signing key in any encoding (see
// scanner): the last defence, after the inputs' own checks, before anything
// is written or served. It skips the bodies the last Scan found clean. It
// takes the files a batch at a time (see scanBatch), in order, and names
// the first that holds the key.
func (s *Scanned) Scan(b *bundle.Bundle, key didweb.SigningKey) error {
	scanner, clean := s.scannerFor(key.Private)
	var bodies [][]byte // of the files held whole, for remember
	var failed error
	failures := 0
	for files := range b.Batches(scanBatch) {
		found := make([]string, len(files))
		errs := make([]error, len(files))
		parallel.For(len(files), func(i int) {
			f := files[i]
			if f.Body == nil {
				// A spooled file is read back a chunk at a time: whole, a
				// long history's changelog would be the render's largest
				// allocation.
				r, size, err := f.Reader()
				if err == nil {
					found[i], _, err = scanner.FindReader(r, size)
				}
				if err != nil {
					errs[i] = fmt.Errorf("scanning %s for the signing key: %v", f.Path, err)
				}
			} else if len(f.Body) == 0 || clean[&f.Body[0]] != len(f.Body) {
				found[i], _ = scanner.Find(f.Body)
			}
		})
		for i, encoding := range found {
			if encoding != "" {
				s.remember(nil)
				return diag.Errorf("", 0, "the signing key (%s) would be published in %s", encoding, files[i].Path).
					WithHint("find the input that holds the key (a symlink, a copied key file) and remove it; then make a new key")
			}
		}
		for i, err := range errs {
			if err != nil {
				failed = cmp.Or(failed, err)
				failures++
			}
			if f := files[i]; len(f.Body) > 0 {
				bodies = append(bodies, f.Body)
			}
		}
	}
	// A spool that cannot be read back fails every file in it: the first
	// says why.
	if failures > 0 {
		s.remember(nil)
		if failures > 1 {
			return fmt.Errorf("%v (and %d more files)", failed, failures-1)
		}
		return failed
	}
	s.remember(bodies)
	return nil
}

// scanBatch is how many files Scan takes at once, in parallel: a File
// made for an immutable file in the spool is held no longer than its
// batch (see bundle.Bundle.All).
const scanBatch = 1024

// scannerFor returns the scanner of key and the bodies found clean of it.
func (s *Scanned) scannerFor(key ed25519.PrivateKey) (*scanner, map[*byte]int) {
	if s.scanner == nil || !s.key.Equal(key) {
		s.key, s.scanner, s.clean = slices.Clone(key), newScanner(key), nil
	}
	return s.scanner, s.clean
}

// remember keeps the bodies, all clean and none empty, for the next Scan:
// only these, so that the memory of bodies no longer in a bundle is
// freed.
func (s *Scanned) remember(bodies [][]byte) {
	s.clean = make(map[*byte]int, len(bodies))
	for _, body := range bodies {
		s.clean[&body[0]] = len(body)
	}
}
