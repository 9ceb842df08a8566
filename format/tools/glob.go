package tools

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
	"github.com/wellknown-dev/wellknown/internal/parallel"
)

// Match reports whether the slash-separated path name matches pattern.
// Segments match as in path.Match; a "**" segment matches zero or more
// whole segments. It is the same language as git's :(glob) pathspec magic,
// so a pattern selects the same files in the working tree and in history.
func Match(pattern, name string) bool {
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchSegments(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// Glob returns the files under root whose slash-separated path relative to
// root matches pattern, sorted. Directories named .git and build output (a
// directory holding paths.OutputMarker) are not entered: a build never
// reads its own output. A match that is not a regular file is an error naming it: a
// tool's history is read from git, which keeps a symlink, not what it
// points to.
func Glob(root, pattern string) ([]string, error) {
	start := Dir(pattern)
	var out []string
	err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(start)), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || paths.IsOutput(p) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !Match(pattern, rel) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return diag.Errorf(p, 0, "is a symlink, not a regular file: a tool file's history is read from git, which keeps a symlink, not what it points to")
		}
		if !d.Type().IsRegular() {
			return diag.Errorf(p, 0, "is %s, not a regular file", inputfile.Kind(d.Type()))
		}
		out = append(out, rel)
		return nil
	})
	sort.Strings(out)
	return out, err
}

// HasWildcard reports whether a glob, or a part of one, holds a character
// Match treats specially; one without matches only its own text.
func HasWildcard(pattern string) bool { return strings.ContainsAny(pattern, `*?[\`) }

// Dir is the leading directories of pattern that hold no wildcard: the
// directory every match is under, "" when the pattern starts with one.
func Dir(pattern string) string {
	segs := strings.Split(pattern, "/")
	var dirs []string
	for _, s := range segs[:len(segs)-1] {
		if HasWildcard(s) {
			break
		}
		dirs = append(dirs, s)
	}
	return path.Join(dirs...)
}

// Load reads and parses the tool files under root named by files
// (slash-separated, relative to root: what Glob returns, less what the
// server excludes), refusing secret (the signing key's file) by any name,
// and checks that no tool name is declared twice. Files are named in
// errors as display(rel), so messages can show the path the user knows.
// It parses only the files whose name or bytes the cache has not seen
// parsed.
func (c *Cache) Load(root string, files []string, display func(rel string) string, secret inputfile.Secret) ([]Tool, error) {
	repo, err := inputfile.RepoRoot(root)
	if err != nil {
		return nil, err
	}
	// On every processor: a rebuild with a Cache reads every file and
	// parses few.
	ts, problems := make([]Tool, len(files)), make([]error, len(files))
	reader := c.files.NewReader(repo, secret)
	parallel.For(len(files), func(i int) {
		rel := files[i]
		data, err := reader.ReadFile(filepath.Join(root, filepath.FromSlash(rel)), inputfile.MaxSize)
		if err != nil {
			problems[i] = diag.Errorf(display(rel), 0, "%v", diag.Cause(err)).WithHint("%s", diag.Hint(err))
			return
		}
		ts[i], problems[i] = c.parse(display(rel), data)
	})
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	return ts, CheckUnique(ts)
}

// MatchAny reports whether name matches one of patterns.
func MatchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if Match(p, name) {
			return true
		}
	}
	return false
}
