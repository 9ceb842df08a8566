package pages

import (
	"errors"
	"io/fs"
	"sort"
)

// Templates returns the templates of a site: each file of site in place of
// the default of the same name. A directory lists the files of both.
func Templates(site, defaults fs.FS) fs.FS { return overlay{site, defaults} }

type overlay struct{ top, bottom fs.FS }

func (o overlay) Open(name string) (fs.File, error) {
	f, err := o.top.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return o.bottom.Open(name)
	}
	return f, err
}

// ReadDir merges the entries of both, the site's winning.
func (o overlay) ReadDir(name string) ([]fs.DirEntry, error) {
	top, topErr := fs.ReadDir(o.top, name)
	bottom, bottomErr := fs.ReadDir(o.bottom, name)
	if topErr != nil && !errors.Is(topErr, fs.ErrNotExist) {
		return nil, topErr
	}
	if bottomErr != nil && !errors.Is(bottomErr, fs.ErrNotExist) {
		return nil, bottomErr
	}
	if topErr != nil && bottomErr != nil {
		return nil, topErr
	}
	byName := map[string]fs.DirEntry{}
	for _, e := range append(bottom, top...) {
		byName[e.Name()] = e
	}
	out := make([]fs.DirEntry, 0, len(byName))
	for _, e := range byName {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}
