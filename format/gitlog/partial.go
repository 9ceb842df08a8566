package gitlog

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// PromisorRemote returns the remote a partial ("blobless") clone fetches its
// missing objects from, or "" for a complete repository: the remote named
// by extensions.partialClone, or else the first with remote.<name>.promisor.
func (r *Repo) PromisorRemote() (string, error) {
	// One process for both settings; git prints names in lower case, but
	// keeps the remote's own.
	out, stderr, err := r.output("config", "--get-regexp", `^(extensions\.partialclone|remote\..*\.promisor)$`)
	if err != nil {
		if stderr != "" {
			return "", r.gitError("git config extensions.partialClone", stderr, err)
		}
		return "", nil // exit status 1 with nothing said: neither is set
	}
	var promisor string
	for line := range strings.Lines(string(out)) {
		key, value, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		if key == "extensions.partialclone" && value != "" {
			return value, nil
		}
		name, isRemote := strings.CutPrefix(key, "remote.")
		if isRemote && promisor == "" && slices.Contains([]string{"true", "yes", "on", "1"}, strings.ToLower(value)) {
			promisor = strings.TrimSuffix(name, ".promisor")
		}
	}
	return promisor, nil
}

// FetchMissing fetches from remote, in one git fetch, those of the objects
// ids that the repository does not hold, and returns how many it asked for.
// In a partial clone git would otherwise fetch each missing blob on demand,
// one round trip at a time, as git cat-file reads it.
func (r *Repo) FetchMissing(remote string, ids []string) (int, error) {
	missing, err := r.missing(ids)
	if err != nil || len(missing) == 0 {
		return 0, err
	}
	// What git's own fetch of missing promisor objects runs: no negotiation
	// (the wanted objects are known), no tags, refs or submodules.
	cmd := r.command("-c", "fetch.negotiationAlgorithm=noop", "fetch", "--quiet", "--no-tags",
		"--no-write-fetch-head", "--recurse-submodules=no", "--filter=blob:none", "--stdin", "--end-of-options", remote)
	cmd.Stdin = strings.NewReader(strings.Join(missing, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, r.gitError("git fetch "+remote+" (the missing blobs of a partial clone)", stderr.String(), err)
	}
	return len(missing), nil
}

// missing returns, in order and once each, the ids of objects the
// repository does not hold. It lists the objects present rather than asking
// for each id, which in a partial clone would fetch it.
func (r *Repo) missing(ids []string) ([]string, error) {
	cmd := r.command("cat-file", "--batch-all-objects", "--batch-check=%(objectname)", "--unordered")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch-all-objects in %s: %w", r.root, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file --batch-all-objects in %s: %w", r.root, err)
	}
	wanted := make(map[string]bool, len(ids))
	for _, id := range ids {
		wanted[id] = true
	}
	s := bufio.NewScanner(stdout)
	for s.Scan() {
		delete(wanted, s.Text())
	}
	if err := cmd.Wait(); err != nil {
		return nil, r.gitError("git cat-file --batch-all-objects", stderr.String(), err)
	}
	var missing []string
	for _, id := range ids {
		if wanted[id] {
			missing = append(missing, id)
			delete(wanted, id)
		}
	}
	return missing, nil
}
