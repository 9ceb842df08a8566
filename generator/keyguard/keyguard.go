// Package keyguard keeps the signing key out of what a build publishes: it
// refuses a key whose file lies in, or is linked from, a directory the site
// publishes (CheckSite), a key inside the output directory (CheckOutput),
// and a bundle with any file that holds the key in any encoding (Scan, with
// package keyscan).
package keyguard

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/diag"
	"github.com/wellknown-dev/wellknown/generator/didweb"
	"github.com/wellknown-dev/wellknown/generator/keyscan"
	"github.com/wellknown-dev/wellknown/generator/site"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
	"github.com/wellknown-dev/wellknown/internal/parallel"
)

// CheckSite fails when the key file lies in a directory whose files the
// site publishes, content/ and templates/ (assets are copied as they are),
// or when a file there is the key under another name (a symlink or a hard
// link): Markdown can split a key so that no scan of the output finds it.
func CheckSite(key didweb.SigningKey, cfg *site.Config) error {
	for _, dir := range []string{cfg.ContentDir, cfg.TemplatesDir} {
		if inside(key, cfg.Path(dir)) {
			return diag.Errorf(key.File, 0, "the signing key is inside %s, whose files are published", dir).
				WithHint("move the key out of the site's content and templates, and make a new one if it was ever published")
		}
		if alias := keyAlias(key, cfg.Path(dir)); alias != "" {
			return diag.Errorf(alias, 0, "is the signing key %s under another name, and its directory is published", key.File).
				WithHint("remove %s, and make a new key if it was ever published", alias)
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

// keyAlias returns a file under dir that is the key's file (os.SameFile,
// symlinks followed), or "".
func keyAlias(key didweb.SigningKey, dir string) string {
	if key.File == "" {
		return ""
	}
	keyInfo, err := os.Stat(key.File)
	if err != nil {
		return ""
	}
	var alias string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := os.Stat(p); err == nil && os.SameFile(info, keyInfo) {
			alias = p
			return filepath.SkipAll
		}
		return nil
	})
	return alias
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

// Scan fails when any file of b holds the signing key in any encoding (see
// keyscan): the last defence, after the inputs' own checks, before anything
// is written or served.
func Scan(b *bundle.Bundle, key didweb.SigningKey) error {
	scan := keyscan.New(key.Private)
	files := b.Files()
	found := make([]string, len(files))
	parallel.For(len(files), func(i int) { found[i], _ = scan.Find(files[i].Body) })
	for i, encoding := range found {
		if encoding != "" {
			return diag.Errorf("", 0, "the signing key (%s) would be published in %s", encoding, files[i].Path).
				WithHint("find the input that holds the key (a symlink, a copied key file) and remove it; then make a new key")
		}
	}
	return nil
}
