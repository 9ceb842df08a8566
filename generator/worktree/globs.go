package worktree

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/suggest"
)

// selectFiles returns the tool files of the server at index i of cfg: what
// its tools glob matches under root, less what an exclude glob matches. A
// glob that matches no file is an error at its key of site.toml when a
// glob close to it matches (a typo, or a directory moved), naming that one:
// a typo in tools would make every tool vanish from the site, one in
// exclude would quietly keep the files meant to be left out. With nothing
// close, a glob may still match files of the history (tools all removed,
// an exclude for files long gone); only one that matches no file of either
// is an error, as a server without tool files leaves tools out.
func selectFiles(cfg *site.Config, i int, root string) ([]string, error) {
	s := cfg.Servers[i]
	at := fmt.Sprintf("servers.%d", i)
	all, err := tools.Glob(root, s.Tools)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		e := cfg.Errorf(at+".tools", "tools glob %q matches no file", s.Tools)
		if near, ok := nearGlob(root, s.Tools, otherTools(cfg, i)); ok {
			return nil, e.WithHint("did you mean tools = %q? (a typo, or a moved directory)", near)
		}
		if !inHistory(root, s.Tools) {
			return nil, e.WithHint("no commit has a file it matches either: fix the glob, or leave tools out for a server without tool files")
		}
		return nil, nil
	}
	var problems []error
	for j, g := range s.Exclude {
		if slices.ContainsFunc(all, func(rel string) bool { return tools.Match(g, rel) }) {
			continue
		}
		e := cfg.Errorf(fmt.Sprintf("%s.exclude.%d", at, j), "exclude glob %q matches none of the files of tools = %q", g, s.Tools)
		if near, ok := nearExclude(g, s.Tools, all); ok {
			problems = append(problems, e.WithHint("an exclude glob is relative to %s, as tools is: did you mean %q?", globBase(s), near))
		} else if !inHistory(root, g) {
			problems = append(problems, e.WithHint("no commit has a file it matches either: remove it, or write it relative to %s, as tools is", globBase(s)))
		}
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return slices.DeleteFunc(all, func(rel string) bool { return tools.MatchAny(s.Exclude, rel) }), nil
}

// errFound stops a walk of the history at the first commit it looks for.
var errFound = errors.New("found")

// inHistory reports whether a commit of HEAD's first-parent history
// changed a file the glob g, relative to root, matches. It says true when
// it cannot tell (no repository, no commit yet), so that only a glob
// known to match nothing is reported.
func inHistory(root, g string) bool {
	repo, err := gitlog.Open(root)
	if err != nil {
		return true
	}
	prefix, err := repo.Rel(root)
	if err != nil {
		return true
	}
	spec := ":(glob)" + path.Join(prefix, g)
	err = repo.LogEach("HEAD", []string{spec}, func(gitlog.Commit) error { return errFound })
	return err != nil
}

// otherTools returns the tools globs of the servers of cfg other than the
// one at index i whose tool files are in the same directory.
func otherTools(cfg *site.Config, i int) []string {
	var out []string
	for j, s := range cfg.Servers {
		if j != i && s.Tools != "" && cfg.Path(s.Repo) == cfg.Path(cfg.Servers[i].Repo) {
			out = append(out, s.Tools)
		}
	}
	return out
}

// globBase names the directory a server's globs are relative to.
func globBase(s site.Server) string {
	if s.Repo != "" {
		return "the repository " + s.Repo
	}
	return "the directory of site.toml"
}

// nearExclude returns the exclude glob probably meant by g, which matches
// none of files: g under the tools glob's directory (written relative to
// the tools directory instead of the repository), or, for a glob without
// wildcards, the closest file.
func nearExclude(g, pattern string, files []string) (string, bool) {
	if dir := tools.Dir(pattern); dir != "" {
		under := path.Join(dir, g)
		if slices.ContainsFunc(files, func(rel string) bool { return tools.Match(under, rel) }) {
			return under, true
		}
	}
	if tools.HasWildcard(g) {
		return "", false
	}
	return suggest.Closest(g, files)
}

// maxDirs bounds the directories nearGlob looks at: it runs only for a
// glob that matches nothing, and a search must not cost more than a build.
const maxDirs = 10_000

// nearGlob returns the tools glob probably meant by pattern, which matches
// no file under root: the same glob with its leading directory replaced by
// the closest existing one (a typo), or else by the one existing directory
// of the same name elsewhere (a moved directory), provided the result
// matches files that none of the globs taken (other servers' tools) does:
// the tools of another server are not the ones meant, and a server whose
// tools were all deleted must not be sent to them. Two directories of that
// name are a guess, not a hint.
func nearGlob(root, pattern string, taken []string) (string, bool) {
	dir := tools.Dir(pattern)
	if dir == "" {
		return "", false
	}
	rest := strings.TrimPrefix(pattern, dir)
	matches := func(d string) bool {
		files, err := tools.Glob(root, d+rest)
		return err == nil && slices.ContainsFunc(files, func(rel string) bool { return !tools.MatchAny(taken, rel) })
	}
	dirs := directories(root)
	if near, ok := suggest.Closest(dir, dirs); ok && matches(near) {
		return near + rest, true
	}
	var moved []string
	for _, d := range dirs {
		if path.Base(d) == path.Base(dir) && d != dir && matches(d) {
			moved = append(moved, d)
		}
	}
	if len(moved) == 1 {
		return moved[0] + rest, true
	}
	return "", false
}

// directories lists the directories under root, slash-separated and
// relative to it, skipping .git and build output as tools.Glob does, at
// most maxDirs of them.
func directories(root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if d.Name() == ".git" || paths.IsOutput(p) || len(out) >= maxDirs {
			return filepath.SkipDir
		}
		if rel, err := filepath.Rel(root, p); err == nil && rel != "." {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}
