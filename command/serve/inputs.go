package serve

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/command/serve/watch"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// inputs are the paths a build of cfg reads, to watch: site.toml, the
// content and templates directories, each server's tool directory and
// import file, the signing key file, the entity card's attestation files
// (token and provider key), what the symlinks in those directories lead
// to (see addLinked), and the repositories' files (see repositories).
func inputs(cfg *site.Config, keyFile string) watch.Targets {
	t := watch.Targets{
		Trees: []string{cfg.Path(cfg.ContentDir), cfg.Path(cfg.TemplatesDir)},
		Files: []string{cfg.File},
	}
	for _, s := range cfg.Servers {
		if s.Import != "" {
			t.Files = append(t.Files, cfg.Path(s.Import))
		}
		if s.Tools != "" {
			t.Trees = append(t.Trees, filepath.Join(toolsRoot(cfg, s), filepath.FromSlash(tools.Dir(s.Tools))))
		}
	}
	addLinked(&t)
	files := []string{keyFile, cfg.Path(cfg.Signing.KeyFile)}
	if cfg.Entity != nil {
		for _, ref := range cfg.Entity.AllMCPs() {
			if vf := ref.MCP.Verification; vf != nil {
				files = append(files, cfg.Path(vf.SignatureFile), cfg.Path(vf.PublicKeyFile))
			}
		}
	}
	for _, f := range files {
		if f != "" {
			t.Files = append(t.Files, f)
		}
	}
	git := repositories(cfg)
	t.Files = append(t.Files, git.Files...)
	t.Trees = append(t.Trees, git.Trees...)
	return t
}

// toolsRoot is the directory the tools pattern of server s is under.
func toolsRoot(cfg *site.Config, s site.Server) string {
	if s.Repo != "" {
		return cfg.Path(s.Repo)
	}
	return cfg.Dir
}

// repositories are the files of every git repository whose history feeds
// a build of cfg that tell its state (what replay.States compares): its
// refs (a commit, checkout or rebase moves them), its shallow file (a
// fetch that deepens a shallow clone moves no ref) and its config (the
// remotes commits are linked to). Git's object store is left alone:
// objects change only along with a ref or the shallow file. A directory
// not in a repository yet has its .git/HEAD and .git/refs watched, so that
// a git init and first commit made while serving fill the feed.
func repositories(cfg *site.Config) watch.Targets {
	var t watch.Targets
	repos := []string{cfg.Dir}
	for _, s := range cfg.Servers {
		if s.Tools != "" && s.Repo != "" {
			repos = append(repos, toolsRoot(cfg, s))
		}
	}
	for _, r := range repos {
		head, common, ok := gitDirs(r)
		if !ok {
			head = filepath.Join(r, ".git")
			common = head
		}
		t.Files = append(t.Files, filepath.Join(head, "HEAD"), filepath.Join(common, "packed-refs"),
			filepath.Join(common, "shallow"), filepath.Join(common, "config"))
		t.Trees = append(t.Trees, filepath.Join(common, "refs"))
	}
	return t
}

// moves reports whether a change at the absolute path p may move one of
// the repositories whose files are t (see repositories): p is one of them,
// lies in one of them, or holds one (a .git directory made or removed).
func moves(t watch.Targets, p string) bool {
	for _, f := range append(slices.Clone(t.Files), t.Trees...) {
		if f, err := filepath.Abs(f); err == nil && (inputfile.Within(f, p) || inputfile.Within(p, f)) {
			return true
		}
	}
	return false
}

// addLinked adds to t what the symlinks in its trees lead to inside their
// repository, as far as a build follows them: a symlinked file (and the
// links on its way there), and a tree that is itself a symlink (a build
// does not enter a symlinked directory inside a tree). An edit there
// changes the site, and no event under the tree's own path tells it: the
// watcher walks a tree without following links.
func addLinked(t *watch.Targets) {
	for i := 0; i < len(t.Trees); i++ { // a tree's real directory, appended, is searched in turn
		tree := t.Trees[i]
		root, err := inputfile.RepoRoot(tree)
		if err != nil {
			continue
		}
		filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil
			case d.IsDir() && d.Name() == ".git":
				return filepath.SkipDir
			case d.Type()&fs.ModeSymlink == 0:
				return nil
			}
			real, err := filepath.EvalSymlinks(p)
			if err != nil || !inputfile.Within(root, real) {
				return nil
			}
			t.Files = append(t.Files, linksAfter(p, root)...)
			info, err := os.Stat(real)
			switch {
			case err == nil && !info.IsDir():
				t.Files = append(t.Files, real)
			case err == nil && p == tree:
				t.Trees = append(t.Trees, real)
			}
			return nil
		})
	}
}

// maxLinks bounds a chain of symlinks, as the kernel does.
const maxLinks = 40

// linksAfter returns the symlinks that the link p leads through on its way
// to a file, inside root: retargeting one of them changes what p reads.
func linksAfter(p, root string) []string {
	var links []string
	for range maxLinks {
		target, err := os.Readlink(p)
		if err != nil {
			return links
		}
		if !filepath.IsAbs(target) {
			dir, err := filepath.EvalSymlinks(filepath.Dir(p))
			if err != nil {
				return links
			}
			target = filepath.Join(dir, target)
		}
		info, err := os.Lstat(target)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return links
		}
		if inputfile.Within(root, target) {
			links = append(links, target)
		}
		p = target
	}
	return links
}

// gitDirs finds the git repository holding dir: the directory with its HEAD
// and the one with its refs, which differ in a linked worktree (where .git
// is a file naming the worktree's directory, whose commondir file names the
// main repository's).
func gitDirs(dir string) (head, common string, ok bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", false
	}
	for d := abs; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() {
				return dotgit, dotgit, true
			}
			return linkedGitDirs(d, dotgit)
		}
		if filepath.Dir(d) == d {
			return "", "", false
		}
	}
}

func linkedGitDirs(worktree, dotgit string) (head, common string, ok bool) {
	head, ok = readPointer(worktree, dotgit, "gitdir: ")
	if !ok {
		return "", "", false
	}
	common, ok = readPointer(head, filepath.Join(head, "commondir"), "")
	if !ok {
		common = head
	}
	return head, common, true
}

// readPointer reads a path from a git pointer file (after prefix), resolved
// against base when relative.
func readPointer(base, file, prefix string) (string, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	p, ok := strings.CutPrefix(strings.TrimSpace(string(data)), prefix)
	if !ok || p == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p), true
}
