package gitlog

import (
	"bytes"
	"fmt"
)

// Renames returns the files git sees renamed between two commits (the
// parent of a landing's first commit and its last), old path → new path.
// Rename detection reads blobs, so it is run only for the landings that
// remove a tool, never for the whole log.
func (r *Repo) Renames(from, to string) (map[string]string, error) {
	out, stderr, err := r.output("-c", "core.quotepath=off", "diff-tree", "-r", "-z", "-M", "--diff-filter=R",
		"--no-commit-id", "--no-ext-diff", "--end-of-options", from, to, "--")
	if err != nil {
		return nil, r.gitError("git diff-tree -M", stderr, err)
	}
	// Each rename is ":<modes> <blobs> R<score>", the old path and the new
	// one, each NUL-terminated.
	fields := bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0})
	renames := map[string]string{}
	for i := 0; i+2 < len(fields); i += 3 {
		if len(fields[i]) == 0 || fields[i][0] != ':' {
			return nil, fmt.Errorf("git diff-tree -M in %s: malformed entry %q", r.root, fields[i])
		}
		renames[string(fields[i+1])] = string(fields[i+2])
	}
	return renames, nil
}
