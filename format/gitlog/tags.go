package gitlog

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Tag is a tag on the first-parent line of a revision.
type Tag struct {
	Name   string // without refs/tags/
	Commit string // the commit it names (an annotated tag peeled)
}

// Tags returns the tags whose commits rev reaches. A tag of anything but a
// commit is left out.
func (r *Repo) Tags(rev string) ([]Tag, error) {
	out, stderr, err := r.output("for-each-ref", "--merged="+rev, "--format=%(objecttype) %(objectname) %(*objecttype) %(*objectname) %(refname:strip=2)", "refs/tags")
	if err != nil {
		return nil, r.gitError("git for-each-ref", stderr, err)
	}
	var tags []Tag
	for line := range strings.Lines(string(out)) {
		f := strings.SplitN(strings.TrimSuffix(line, "\n"), " ", 5)
		if len(f) != 5 {
			continue
		}
		switch {
		case f[0] == "commit":
			tags = append(tags, Tag{Name: f[4], Commit: f[1]})
		case f[0] == "tag" && f[2] == "commit":
			tags = append(tags, Tag{Name: f[4], Commit: f[3]})
		}
	}
	return tags, nil
}

// FirstParents returns, oldest first, every commit of rev's first-parent
// line, with its time and no changes.
func (r *Repo) FirstParents(rev string) ([]Commit, error) {
	out, stderr, err := r.output("log", "--first-parent", "--reverse", "--format=%H %ct", rev, "--")
	if err != nil {
		return nil, r.gitError("git log --first-parent", stderr, err)
	}
	var commits []Commit
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		hash, ct, _ := strings.Cut(sc.Text(), " ")
		sec, err := strconv.ParseInt(ct, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("git log --first-parent in %s: commit time %q: not a number", r.root, ct)
		}
		commits = append(commits, Commit{Hash: hash, Time: time.Unix(sec, 0).UTC()})
	}
	return commits, nil
}
