package gitlog

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Change is one regular file whose contents a commit added, modified or
// deleted.
type Change struct {
	Path string   // slash-separated, relative to the repository root, exactly as stored
	Blob ObjectID // new blob id; "" when the file was deleted
}

// ObjectID is a git object id in binary: 20 bytes (SHA-1) or 32
// (SHA-256). A long history names a blob in each change, and the hex
// digits git prints, which String gives back, take twice the room.
type ObjectID string

// String returns the id as git writes it, in hex.
func (id ObjectID) String() string { return hex.EncodeToString([]byte(id)) }

// ParseObjectID returns the id git writes as name; ok is false when name
// is not a full object id in hex.
func ParseObjectID(name string) (id ObjectID, ok bool) {
	if !isObjectID([]byte(name)) {
		return "", false
	}
	return objectID([]byte(name)), true
}

// objectID returns the id whose hex digits (checked by isObjectID) are
// digits.
func objectID(digits []byte) ObjectID {
	var id [32]byte
	n, _ := hex.Decode(id[:], digits)
	return ObjectID(id[:n])
}

// Commit is one commit of a first-parent history.
type Commit struct {
	Hash string
	Time time.Time // committer time, in UTC
	// Committer is the committer's email: with Time, it tells the commits
	// one "rebase and merge" wrote apart from commits made one by one.
	// The message is not read: nothing asks for it, and a long history's
	// subjects cost as much memory as its hashes.
	Committer string
	// First is, for a landing of several commits (see Landings), the hash
	// of its first; "" for a single commit.
	First   string
	Changes []Change // vs the first parent (root commit: vs the empty tree), sorted by Path
}

// Short abbreviates a commit hash for people: its first 12 digits, enough
// to stay unique in a large repository and short enough for a line of text.
func Short(hash string) string { return Abbrev(hash, 12) }

// Abbrev is the first n digits of a commit hash, or the whole of a shorter
// one.
func Abbrev(hash string, n int) string {
	if len(hash) > n {
		return hash[:n]
	}
	return hash
}

// Tree is the set of matching files at one point of history: path → blob id.
type Tree map[string]ObjectID

// Apply replays the changes of c, which must be the commit after t's point
// of history.
func (t Tree) Apply(c Commit) {
	for _, ch := range c.Changes {
		if ch.Blob == "" {
			delete(t, ch.Path)
		} else {
			t[ch.Path] = ch.Blob
		}
	}
}

// logFormat prints the header of each commit as NUL-terminated fields:
// hash, committer time, committer email. None can contain NUL, so each
// field ends at the first one.
const logFormat = "--format=%H%x00%ct%x00%ce"

// LogEach calls fn with each commit of the first-parent history of rev
// restricted to pathspecs, newest first, as git prints it, so that what fn
// starts (reading the commit's blobs) overlaps with git's walk of the
// history. pathspecs are passed to git unchanged (":(glob)tools/**/*.json",
// "site.toml"); no pathspec means every file. A merge commit is one commit
// whose changes are its diff against the first parent; the commits it merged
// do not appear. Only the contents of regular files count: symbolic links
// and submodules are left out, a file replaced by either is deleted, a change
// of the executable bit alone is no change, and a commit that changed no
// matching file is not passed to fn. It stops at fn's first error and
// returns it.
func (r *Repo) LogEach(rev string, pathspecs []string, fn func(Commit) error) error {
	if rev == "" {
		return fmt.Errorf("git log in %s: empty revision", r.root)
	}
	cmd := r.command(logArgs(rev, pathspecs)...)
	// Without a flush per commit git writes whole buffers: fewer writes for
	// it, fewer reads and wake-ups for us.
	cmd.Env = append(cmd.Env, "GIT_FLUSH=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git log in %s: %w", r.root, err)
	}
	growPipe(stdout)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git log in %s: %w", r.root, err)
	}
	var fnErr error
	parseErr := parseLog(bufio.NewReaderSize(stdout, 64<<10), func(c Commit) error {
		fnErr = fn(c)
		return fnErr
	})
	if parseErr != nil {
		// Let git finish, so that its own failure, if any, is what we report.
		_, _ = io.Copy(io.Discard, stdout)
	}
	if err := cmd.Wait(); err != nil {
		return r.gitError("git log", stderr.String(), err)
	}
	if fnErr != nil {
		return fnErr
	}
	if parseErr != nil {
		return fmt.Errorf("git log in %s: reading output: %w", r.root, parseErr)
	}
	return nil
}

// logArgs returns the arguments of the git log that Log parses. Each flag
// overrides a setting that would change the output; --end-of-options keeps
// a rev such as "--output=x" from being taken as an option. The output is
// newest first: with --reverse git would print nothing until it had walked
// the whole history, and the parsing could not overlap with the walk.
func logArgs(rev string, pathspecs []string) []string {
	args := []string{
		"-c", "core.quotepath=off", "-c", "log.showSignature=false", "-c", "log.follow=false",
		"log", "-z", "--first-parent", "--diff-merges=first-parent",
		"--raw", "--no-abbrev", "--no-renames", "--root", "--no-relative",
		"--no-ext-diff", "--no-textconv", "--no-color", "--encoding=UTF-8",
		logFormat, "--end-of-options", rev, "--",
	}
	return append(args, pathspecs...)
}

// parseLog reads the output of git log -z --raw with logFormat and calls fn
// with each commit that changed a regular file, stopping at fn's first
// error. Each commit is its three header fields followed by its raw diff
// entries, each a ":<old mode> <new mode> <old blob> <new blob> <status>"
// field and a path field; the first entry of a commit is preceded by a
// newline.
func parseLog(r *bufio.Reader, fn func(Commit) error) error {
	p := logParser{r: r, names: map[string]string{}}
	field, err := p.field()
	for err == nil {
		var c Commit
		if c, field, err = p.commit(field); err != nil && err != io.EOF {
			return err
		}
		if len(c.Changes) > 0 {
			if fnErr := fn(c); fnErr != nil {
				return fnErr
			}
		}
	}
	if err != io.EOF { // the output could not be read at all
		return err
	}
	return nil
}

// logParser splits git log -z output into NUL-terminated fields.
type logParser struct {
	r     *bufio.Reader
	long  []byte // holds a field longer than the reader's buffer
	entry []byte // the diff entry being read (see change)
	// names are the paths and committers read so far, each kept once: a
	// long history names the same few in every commit, and its commits
	// (and the tool versions read from their files) would keep a copy each.
	names map[string]string
}

// name returns b as a string, the same one for the same bytes.
func (p *logParser) name(b []byte) string {
	if s, ok := p.names[string(b)]; ok {
		return s
	}
	s := string(b)
	p.names[s] = s
	return s
}

// field returns the next field without its NUL, valid until the next call,
// or io.EOF at the clean end of the output.
func (p *logParser) field() ([]byte, error) {
	b, err := p.r.ReadSlice(0)
	if err == nil {
		return b[:len(b)-1], nil
	}
	if err != bufio.ErrBufferFull {
		if err == io.EOF && len(b) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	p.long = append(p.long[:0], b...)
	for err == bufio.ErrBufferFull {
		b, err = p.r.ReadSlice(0)
		p.long = append(p.long, b...)
	}
	if err != nil {
		return nil, noEOF(err)
	}
	return p.long[:len(p.long)-1], nil
}

// commit parses the commit whose hash is the field just read, and returns
// the field after it, the next commit's hash, or io.EOF after the last
// commit.
func (p *logParser) commit(hash []byte) (c Commit, next []byte, err error) {
	if !isObjectID(hash) {
		return c, nil, fmt.Errorf("expected a commit hash, found %q", hash)
	}
	c.Hash = string(hash)
	if c.Time, err = p.commitTime(); err != nil {
		return c, nil, fmt.Errorf("commit %s: %w", c.Hash, err)
	}
	committer, err := p.field()
	if err != nil {
		return c, nil, fmt.Errorf("commit %s: committer: %w", c.Hash, noEOF(err))
	}
	c.Committer = p.name(committer)
	for {
		next, err = p.field()
		if err != nil {
			break
		}
		next = bytes.TrimPrefix(next, []byte{'\n'})
		if len(next) == 0 || next[0] != ':' {
			break
		}
		if err = p.change(&c, next); err != nil {
			return c, nil, fmt.Errorf("commit %s: %w", c.Hash, err)
		}
	}
	slices.SortFunc(c.Changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return c, next, err
}

func (p *logParser) commitTime() (time.Time, error) {
	f, err := p.field()
	if err != nil {
		return time.Time{}, fmt.Errorf("committer time: %w", noEOF(err))
	}
	sec, err := strconv.ParseInt(string(f), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("committer time %q: not a number", f)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// change parses one raw diff entry and its path, and adds it to c when it
// concerns a regular file. The entry is read from a copy, since reading
// the path overwrites it, kept from one entry to the next: a long history
// has one or more a commit.
func (p *logParser) change(c *Commit, entry []byte) error {
	p.entry = append(p.entry[:0], entry...)
	var fields [5][]byte
	n := 0
	for f := range bytes.FieldsSeq(p.entry[1:]) {
		if n == len(fields) {
			n++
			break
		}
		fields[n] = f
		n++
	}
	if n != len(fields) || !isObjectID(fields[3]) {
		return fmt.Errorf("malformed diff entry %q", p.entry)
	}
	oldMode, newMode, oldBlob, newBlob := fields[0], fields[1], fields[2], fields[3]
	path, err := p.field()
	if err != nil {
		return fmt.Errorf("diff entry %q: path: %w", p.entry, noEOF(err))
	}
	switch {
	case isRegular(newMode) && isRegular(oldMode) && bytes.Equal(newBlob, oldBlob):
		// Only the executable bit changed: the contents are the same.
	case isRegular(newMode):
		c.Changes = append(c.Changes, Change{Path: p.name(path), Blob: objectID(newBlob)})
	case isRegular(oldMode): // deleted, or replaced by a link or submodule
		c.Changes = append(c.Changes, Change{Path: p.name(path)})
	}
	return nil
}

// isRegular reports whether a git file mode (100644, 100755) is a regular
// file's; links are 120000, submodules 160000, absent files 000000.
func isRegular(mode []byte) bool {
	return len(mode) == 6 && bytes.HasPrefix(mode, []byte("100"))
}

// isObjectID reports whether b is a full SHA-1 or SHA-256 object id.
func isObjectID(b []byte) bool {
	if len(b) != 40 && len(b) != 64 {
		return false
	}
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// noEOF turns an end of output in the middle of a commit into an error.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
