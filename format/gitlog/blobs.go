package gitlog

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// errBlobsClosed is returned by ReadStream after Close.
var errBlobsClosed = errors.New("git cat-file --batch: blob reader is closed")

// Blobs reads blob contents through one git cat-file --batch process, which
// answers requests in order. A Blobs is not safe for concurrent use: use it
// from one goroutine, or guard it.
type Blobs struct {
	repo   *Repo
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr bytes.Buffer // read only once the process has been waited for
	err    error        // set when the process is gone; every later call returns it

	// Limit, when above 0, caps the size of a blob ReadStream reads: the
	// contents of a larger one are skipped as they stream past, never held,
	// and its id and size are recorded in Skipped instead of passed to fn.
	// A commit can hold a blob of any size; a build's memory must not.
	Limit   int
	Skipped map[string]int

	// Buffer, when set, returns the slice of n bytes ReadStream reads the
	// next blob into (its contents and git's newline after them), in
	// place of a new one: for a caller done with each blob once fn has
	// seen it, which gives the buffers back for the blobs after.
	Buffer func(n int) []byte
}

// skippedBlob is answer's report of a blob over the Limit.
type skippedBlob struct{ size int }

func (s *skippedBlob) Error() string {
	return fmt.Sprintf("blob of %d bytes, over the size limit", s.size)
}

// Blobs starts the process that reads blobs. Close it when done.
func (r *Repo) Blobs() (*Blobs, error) {
	b := &Blobs{repo: r, cmd: r.command("cat-file", "--batch")}
	b.cmd.Stderr = &b.stderr
	stdin, err := b.cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch in %s: %w", r.root, err)
	}
	stdout, err := b.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch in %s: %w", r.root, err)
	}
	growPipe(stdout)
	if err := b.cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file --batch in %s: %w", r.root, err)
	}
	b.stdin, b.stdout = stdin, bufio.NewReaderSize(stdout, 64<<10)
	return b, nil
}

// ReadStream calls fn with the contents of each blob named on ids, in
// order, until ids is closed. Each name is sent to git as it arrives, ahead
// of the answers, so that git never waits for the caller and answers while
// the caller is still finding names (in a git log). It stops calling fn at
// the first error, its own or fn's, and returns it; a missing object (or
// any name git rejects) leaves the reader usable. Names are blob ids, or
// anything git accepts, such as "HEAD:site.toml"; a name that cannot be
// sent is an error, and no name after it is sent. It reads ids to its end
// even after an error, so the sender never blocks. fn may keep data.
func (b *Blobs) ReadStream(ids <-chan string, fn func(id string, data []byte) error) error {
	if b.err != nil {
		for range ids {
		}
		return b.err
	}
	sent := make(chan string, 1024) // the names sent, in order, for their answers
	sendErr := make(chan error, 1)
	go func() { sendErr <- b.send(ids, sent) }()
	var firstErr error
	for id := range sent {
		if b.err != nil {
			continue // the process is gone: only wait for the sender
		}
		// Every answer is read, even after an error, to stay in step with git.
		data, err := b.answer(id)
		var skipped *skippedBlob
		if errors.As(err, &skipped) {
			if b.Skipped == nil {
				b.Skipped = map[string]int{}
			}
			b.Skipped[id] = skipped.size
			continue
		}
		if firstErr == nil {
			firstErr = err
		}
		if firstErr == nil {
			firstErr = fn(id, data)
		}
	}
	err := <-sendErr
	if b.err != nil {
		return b.err
	}
	var invalid invalidName
	if errors.As(err, &invalid) {
		return cmp.Or(firstErr, err)
	}
	if err != nil {
		return b.fail(err)
	}
	return firstErr
}

// send writes one request per name received, and passes each on to sent,
// which it closes at the end. It flushes whenever no name is waiting or the
// reader of the answers is behind, so that git answers what it has been
// asked while the caller finds more.
func (b *Blobs) send(ids <-chan string, sent chan<- string) error {
	defer close(sent)
	w := bufio.NewWriterSize(b.stdin, 64<<10)
	var err error
	for {
		var id string
		var ok bool
		select {
		case id, ok = <-ids:
		default:
			if err == nil {
				err = w.Flush()
			}
			id, ok = <-ids
		}
		if !ok {
			break
		}
		if err == nil {
			if err = checkName(id); err != nil {
				// The names before it are answered, and their answers awaited.
				err = errors.Join(err, w.Flush())
			}
		}
		if err != nil {
			continue // read to the end, so the sender is never blocked
		}
		w.WriteString(id)
		w.WriteByte('\n')
		select {
		case sent <- id:
		default: // the answers are behind: they may wait for this request
			err = w.Flush()
			sent <- id
		}
	}
	if err == nil {
		err = w.Flush()
	}
	return err
}

// checkName rejects what cannot be sent as one request line.
func checkName(id string) error {
	if id == "" || strings.ContainsAny(id, "\n\x00") {
		return invalidName(id)
	}
	return nil
}

// invalidName is the error of a name that cannot be sent to git.
type invalidName string

func (n invalidName) Error() string {
	return fmt.Sprintf("git cat-file --batch: invalid object name %q", string(n))
}

// unanswered is the error of a name git found no object for, or several:
// reason is its word for it, "missing" or "ambiguous".
type unanswered struct{ id, reason string }

func (e *unanswered) Error() string { return fmt.Sprintf("blob %s: %s", e.id, e.reason) }

// Is makes a missing object [ErrMissing].
func (e *unanswered) Is(target error) bool { return target == ErrMissing && e.reason == "missing" }

// answer reads git's answer to the request for id. An error that leaves
// the process out of step also sets b.err.
func (b *Blobs) answer(id string) ([]byte, error) {
	header, err := b.stdout.ReadSlice('\n')
	if err != nil {
		return nil, b.fail(err)
	}
	objType, size, ok := parseHeader(header)
	if !ok {
		// "<id> missing" or "<id> ambiguous": nothing follows.
		if reason, found := strings.CutPrefix(strings.TrimSuffix(string(header), "\n"), id+" "); found && !strings.Contains(reason, " ") {
			return nil, &unanswered{id, reason}
		}
		return nil, b.fail(fmt.Errorf("unexpected answer %q", header))
	}
	if b.Limit > 0 && size > b.Limit {
		if _, err := b.stdout.Discard(size + 1); err != nil {
			return nil, b.fail(err)
		}
		return nil, &skippedBlob{size}
	}
	var data []byte // the contents and a newline
	if b.Buffer != nil {
		data = b.Buffer(size + 1)
	} else {
		data = make([]byte, size+1)
	}
	if _, err := io.ReadFull(b.stdout, data); err != nil {
		return nil, b.fail(err)
	}
	if data[size] != '\n' {
		return nil, b.fail(fmt.Errorf("object %s: contents not followed by a newline", id))
	}
	if objType != "blob" {
		return nil, fmt.Errorf("object %s is a %s, not a blob", id, objType)
	}
	return data[:size], nil
}

// parseHeader parses "<oid> <type> <size>\n".
func parseHeader(header []byte) (objType string, size int, ok bool) {
	fields := strings.Fields(string(header))
	if len(fields) != 3 || !isObjectID([]byte(fields[0])) {
		return "", 0, false
	}
	size, err := strconv.Atoi(fields[2])
	if err != nil || size < 0 {
		return "", 0, false
	}
	return fields[1], size, true
}

// Close ends the process. It is safe to call more than once.
func (b *Blobs) Close() error {
	if b.err != nil {
		return nil
	}
	b.err = errBlobsClosed
	b.stdin.Close() // cat-file exits at the end of its input
	if err := b.cmd.Wait(); err != nil {
		return b.repo.gitError("git cat-file --batch", b.stderr.String(), err)
	}
	return nil
}

// fail ends the process, which can no longer be trusted to answer in step,
// and returns the error that every later call returns. What git said, if
// anything, explains more than the broken pipe or stream.
func (b *Blobs) fail(cause error) error {
	b.stdin.Close()
	_ = b.cmd.Process.Kill() // it may be blocked writing an answer nobody will read
	_ = b.cmd.Wait()
	b.err = b.repo.gitError("git cat-file --batch", b.stderr.String(), cause)
	return b.err
}
