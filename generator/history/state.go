package history

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// State identifies what a read of the repository at rev can see: the
// commit rev names, whether the clone is shallow and where its history is
// cut, its tags (a server may take its versions from them) and its
// remotes' and partial clone's settings. A read of one repository in the
// same state finds the same history; a state is compared, never shown.
func (r *Repo) State(rev string) (string, error) {
	if rev == "" {
		rev = "HEAD"
	}
	var b strings.Builder
	for _, args := range [][]string{
		{"rev-parse", "--is-shallow-repository", rev + "^{commit}"},
		{"for-each-ref", "--format=%(objectname) %(refname)", "refs/tags"},
		{"config", "--get-regexp", `^(remote\..*|extensions\.partialclone)$`},
	} {
		out, stderr, err := r.output(args...)
		var exit *exec.ExitError
		if args[0] == "config" && errors.As(err, &exit) && exit.ExitCode() == 1 && stderr == "" {
			err = nil // no remote
		}
		if err != nil {
			return "", r.gitError("git "+args[0], stderr, err)
		}
		b.Write(out)
		b.WriteByte(0)
	}
	boundary, err := r.shallowBoundary()
	if err != nil {
		return "", err
	}
	b.Write(boundary)
	return b.String(), nil
}

// shallowBoundary returns the shallow clone's boundary commits (git's
// shallow file), none in a full clone: a fetch that deepens a clone moves
// them, and nothing else a State holds.
func (r *Repo) shallowBoundary() ([]byte, error) {
	out, stderr, err := r.output("rev-parse", "--git-path", "shallow")
	if err != nil {
		return nil, r.gitError("git rev-parse", stderr, err)
	}
	name := strings.TrimSuffix(string(out), "\n")
	if !filepath.IsAbs(name) {
		name = filepath.Join(r.root, name)
	}
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// SplitState splits a State into the commit it names and the rest of it
// (shallowness, tags, remotes): two states with the same rest differ by
// their commit alone.
func SplitState(state string) (commit, rest string) {
	head, tail, _ := strings.Cut(state, "\x00")
	shallow, commit, _ := strings.Cut(head, "\n")
	return strings.TrimSuffix(commit, "\n"), shallow + "\x00" + tail
}

// OnFirstParentLine reports whether commit old is on the first-parent line
// of rev, before it: whether a first-parent history of rev is one of old
// followed by the commits of old..rev.
func (r *Repo) OnFirstParentLine(old, rev string) (bool, error) {
	out, stderr, err := r.output("rev-list", "--first-parent", "--parents", "--end-of-options", old+".."+rev, "--")
	if err != nil {
		return false, r.gitError("git rev-list", stderr, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	parents := strings.Fields(lines[len(lines)-1])
	return len(parents) > 1 && parents[1] == old, nil
}
