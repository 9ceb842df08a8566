package history

import (
	"errors"
	"os/exec"
	"strings"
)

// State identifies what a read of the repository at rev can see: the
// commit rev names, whether the clone is shallow, its tags (a server may
// take its versions from them) and its remotes' and partial clone's
// settings. A read of one repository in the same state finds the same
// history; a state is compared, never shown.
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
	return b.String(), nil
}
