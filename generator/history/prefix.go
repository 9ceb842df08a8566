package history

import "path/filepath"

// Prefix returns dir relative to the top of the work tree, slash-separated
// ("." for the top itself): what a pathspec for the files under dir starts
// with. dir is made absolute and its symbolic links resolved, as git
// resolves the top it reports.
func (r *Repo) Prefix(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	rel, err := filepath.Rel(r.root, abs)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}
