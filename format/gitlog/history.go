// Package gitlog reads the history of a site's input files from a git
// repository, through the git command.
//
// A build needs two things from git: the first-parent history of the input
// paths with the blob id of every changed file ([Repo.LogEach]), and the
// contents of those blobs ([Repo.Blobs]). Small questions (is the clone shallow, is a
// file tracked, which commit does a name resolve to) have a method each.
//
// # Processes
//
// The cost of reading history is dominated by process start-up and by what
// git itself computes, so the package keeps both to the minimum: one
// git log process per [Repo.LogEach] call, streamed and parsed as it is
// produced, and one long-lived git cat-file --batch process per [Blobs]
// for any number of blobs, to which [Blobs.ReadStream] sends its requests
// ahead of the answers, as they arrive: blobs are asked for while git log
// is still walking. Nothing here
// starts a process per commit or per file.
//
// # Predictable output
//
// Every git process runs with LC_ALL=C, GIT_TERMINAL_PROMPT=0 and no pager,
// without the variables that tie a process to one repository (GIT_DIR,
// GIT_INDEX_FILE and the others listed by git rev-parse --local-env-vars, as
// a git hook sets them), and with flags that override each setting of the
// user's configuration that would change the output: rename detection,
// relative paths, external diff drivers, colour, abbreviation, root-commit
// display, log encoding, signatures.
//
// LogEach needs git 2.31 or later, the first version that shows the diff of a
// merge commit against its first parent; on an older git it fails with git's
// own error rather than silently dropping merged changes.
package gitlog

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrNotRepository is returned, wrapped, by [Open] for a directory outside
// any git work tree.
var ErrNotRepository = errors.New("not in a git repository")

// ErrNoMergeBase is returned, wrapped, by [Repo.MergeBase] for two commits
// without a common ancestor.
var ErrNoMergeBase = errors.New("no common ancestor")

// ErrNoCommits is returned, wrapped, by [Repo.Head] for a repository whose
// current branch has no commits yet.
var ErrNoCommits = errors.New("no commits yet")

// Repo is a git work tree read through the git command.
type Repo struct {
	root string // top-level directory of the work tree
	git  string // path of the git executable, resolved once by Open
}

// Open returns the repository whose work tree contains dir.
func Open(dir string) (*Repo, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("git command not found: %w", err)
	}
	probe := &Repo{root: dir, git: git}
	out, stderr, err := probe.output("rev-parse", "--show-toplevel")
	if err != nil {
		if strings.Contains(stderr, "not a git repository") {
			return nil, fmt.Errorf("%s is %w", dir, ErrNotRepository)
		}
		return nil, probe.gitError("git rev-parse --show-toplevel", stderr, err)
	}
	root := strings.TrimSuffix(string(out), "\n")
	return &Repo{root: filepath.FromSlash(root), git: git}, nil
}

// Root returns the top-level directory of the work tree. Paths in the
// results of this package and pathspecs given to it are relative to it.
func (r *Repo) Root() string { return r.root }

// Rel returns target's path in the work tree, slash-separated, "" for the
// top-level directory itself; it begins with ".." for a target outside.
// target is made absolute and resolved through symbolic links, as git
// reports the top level, through its directory when it does not exist (a
// file deleted since).
func (r *Repo) Rel(target string) (string, error) {
	abs, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	if dir, file := filepath.Split(abs); file != "" {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			abs = filepath.Join(real, file)
		}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	rel, err := filepath.Rel(r.root, abs)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}

// IsShallow reports whether the repository is a shallow clone, whose history
// is cut off: its oldest commit then seems to add every file.
func (r *Repo) IsShallow() (bool, error) {
	out, stderr, err := r.output("rev-parse", "--is-shallow-repository")
	if err != nil {
		return false, r.gitError("git rev-parse --is-shallow-repository", stderr, err)
	}
	switch answer := strings.TrimSuffix(string(out), "\n"); answer {
	case "true":
		return true, nil
	case "false":
		return false, nil
	default:
		return false, fmt.Errorf("git rev-parse --is-shallow-repository in %s: unexpected answer %q", r.root, answer)
	}
}

// Head returns the commit hash of HEAD. For a repository without commits the
// error wraps [ErrNoCommits].
func (r *Repo) Head() (string, error) {
	out, stderr, err := r.output("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		// --quiet makes an unborn HEAD exit 1 with nothing on stderr.
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 1 && stderr == "" {
			return "", fmt.Errorf("git repository %s: %w", r.root, ErrNoCommits)
		}
		return "", r.gitError("git rev-parse HEAD", stderr, err)
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// Tracked reports whether git tracks the file at path (absolute, or
// relative to the working directory).
func (r *Repo) Tracked(path string) (bool, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false, err
	}
	_, stderr, err := r.output("ls-files", "--error-unmatch", "--", abs)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return false, nil
	}
	if err != nil {
		return false, r.gitError("git ls-files", stderr, err)
	}
	return true, nil
}

// Resolve returns the commit a revision (branch, tag, hash, expression)
// names, or "" when it names none.
func (r *Repo) Resolve(rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", nil // an option, not a revision
	}
	out, stderr, err := r.output("rev-parse", "--verify", "--quiet", rev+"^{commit}")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 && stderr == "" {
		return "", nil
	}
	if err != nil {
		return "", r.gitError("git rev-parse", stderr, err)
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// MergeBase returns the best common ancestor of two commits. For commits
// without one the error wraps [ErrNoMergeBase].
func (r *Repo) MergeBase(a, b string) (string, error) {
	out, stderr, err := r.output("merge-base", "--end-of-options", a, b)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 && stderr == "" {
		return "", fmt.Errorf("%s and %s in %s: %w", a, b, r.root, ErrNoMergeBase)
	}
	if err != nil {
		return "", r.gitError("git merge-base", stderr, err)
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// localEnv lists the variables that tie a git process to one repository
// (git rev-parse --local-env-vars). A git hook sets some of them, and they
// would send every command to the hook's repository instead of this one.
var localEnv = []string{
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT", "GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE",
	"GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE", "GIT_INDEX_FILE",
	"GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX",
	"GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE", "GIT_COMMON_DIR",
}

// command returns a git command run in the repository's top level with a
// predictable environment.
func (r *Repo) command(args ...string) *exec.Cmd {
	cmd := exec.Command(r.git, append([]string{"--no-pager"}, args...)...)
	cmd.Dir = r.root
	cmd.Env = gitEnv(os.Environ())
	return cmd
}

// gitConfig is given to every git command. advice.graftFileDeprecated
// keeps git's advice about grafts off standard error. The others bound
// the memory git reads packs with: by default it maps up to 1 GiB of a
// pack at a time, keeps every page it touched, and caches up to 96 MiB
// of delta bases. On a 100,000-commit history git log then held 212 MB
// and git cat-file 188 MB, beside the build's own memory; with these
// limits they held 70 and 52 MB, in the same time (BENCHMARKS.md).
const gitConfig = "'advice.graftFileDeprecated=false' 'core.packedGitWindowSize=16m' " +
	"'core.packedGitLimit=32m' 'core.deltaBaseCacheLimit=16m'"

// gitEnv returns environ without the repository-local variables and the
// locale, plus the settings that make git's output predictable and its
// memory bounded (gitConfig). Replacement refs (git replace) and grafts
// (.git/info/grafts) are ignored: they are local to one clone, so a build
// would differ from CI's of the same commit, and they change what git log
// reads without changing the state a development server compares.
func gitEnv(environ []string) []string {
	env := make([]string, 0, len(environ)+6)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if name == "LC_ALL" || name == "GIT_TERMINAL_PROMPT" || slices.Contains(localEnv, name) {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1",
		"GIT_GRAFT_FILE="+os.DevNull, "GIT_CONFIG_PARAMETERS="+gitConfig)
}

// output runs a short git command and returns its standard output and
// standard error.
func (r *Repo) output(args ...string) (stdout []byte, stderr string, err error) {
	cmd := r.command(args...)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	stdout, err = cmd.Output()
	return stdout, errBuf.String(), err
}

// gitError describes a failed git command by its short form, the directory
// and the first line of what git said, or the process error when it said
// nothing.
func (r *Repo) gitError(what, stderr string, err error) error {
	detail, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if detail == "" {
		detail = err.Error()
	}
	return fmt.Errorf("%s in %s: %s", what, r.root, detail)
}

// CommitTime returns the commit time of the commit a revision names; ok is
// false when it names none.
func (r *Repo) CommitTime(rev string) (t time.Time, ok bool, err error) {
	hash, err := r.Resolve(rev)
	if err != nil || hash == "" {
		return time.Time{}, false, err
	}
	out, stderr, err := r.output("show", "-s", "--format=%ct", hash)
	if err != nil {
		return time.Time{}, false, r.gitError("git show", stderr, err)
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("git show %s: commit time %q: %v", hash, out, err)
	}
	return time.Unix(sec, 0).UTC(), true, nil
}

// RemoteURLs returns the URLs of the repository's remotes, sorted; none
// when it has no remote.
func (r *Repo) RemoteURLs() ([]string, error) {
	out, stderr, err := r.output("config", "--get-regexp", `^remote\..*\.url$`)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 && stderr == "" {
		return nil, nil // no such key: no remote
	}
	if err != nil {
		return nil, r.gitError("git config", stderr, err)
	}
	var urls []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if _, u, ok := strings.Cut(line, " "); ok {
			urls = append(urls, u)
		}
	}
	slices.Sort(urls)
	return urls, nil
}

// SameRepository reports whether two repository addresses name the same
// repository: https://github.com/o/r, https://github.com/o/r.git,
// git@github.com:o/r.git and ssh://git@github.com/o/r all do.
func SameRepository(a, b string) bool {
	ka, kb := repositoryKey(a), repositoryKey(b)
	return ka != "" && strings.EqualFold(ka, kb)
}

// repositoryKey is "host/path" of a repository address, or "".
func repositoryKey(addr string) string {
	addr = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(addr), "/"), ".git")
	if !strings.Contains(addr, "://") {
		// scp-like: [user@]host:path
		userHost, p, ok := strings.Cut(addr, ":")
		if !ok || strings.Contains(userHost, "/") {
			return ""
		}
		_, host, _ := strings.Cut(userHost, "@")
		if host == "" {
			host = userHost
		}
		return host + "/" + strings.Trim(p, "/")
	}
	u, err := url.Parse(addr)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	return u.Hostname() + "/" + strings.Trim(u.Path, "/")
}
