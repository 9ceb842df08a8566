package gitlog

import (
	"errors"
	"fmt"
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
		{"rev-parse", "--is-shallow-repository", "--git-path", "shallow", rev + "^{commit}"},
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
	head := strings.SplitN(b.String(), "\n", 3) // shallowness, the shallow file's path, the commit
	if len(head) < 3 {
		return "", fmt.Errorf("git rev-parse in %s: unexpected answer %q", r.root, b.String())
	}
	boundary, err := r.shallowBoundary(head[1])
	if err != nil {
		return "", err
	}
	b.Write(boundary)
	return b.String(), nil
}

// shallowBoundary returns the shallow clone's boundary commits, which git
// keeps in the file at path (relative to the top level), none in a full
// clone: a fetch that deepens a clone moves them, and nothing else a State
// holds.
func (r *Repo) shallowBoundary(path string) ([]byte, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.root, path)
	}
	data, err := os.ReadFile(path)
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
	lines := strings.Split(strings.TrimSuffix(head, "\n"), "\n")
	last := len(lines) - 1
	return lines[last], strings.Join(lines[:last], "\n") + "\x00" + tail
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
