package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/internal/httpget"
)

// Network limits.
const (
	// DefaultMaxBytes caps every document: a feed of 10,000 entries is
	// about 7 MiB.
	DefaultMaxBytes = 16 << 20
	// DefaultMaxArchives bounds the feed's chain of archive documents: a
	// million entries at the default page size.
	DefaultMaxArchives = agentfeed.MaxArchives
	// DefaultTimeout bounds each request, redirects and body included.
	DefaultTimeout = 30 * time.Second
	// MaxRedirects is how many redirects a request may follow.
	MaxRedirects = httpget.MaxRedirects
	// DefaultDeadline bounds a whole run: with MaxConcurrent requests at a
	// time, it is four rounds of requests that each take DefaultTimeout.
	DefaultDeadline = 2 * time.Minute
	// MaxConcurrent is how many documents are read at a time.
	MaxConcurrent = 4
)

// errDeadline is the cause of the run's context when Options.Deadline
// passes.
var errDeadline = errors.New("the run's deadline passed")

// response is a document as a source returned it.
type response struct {
	status int
	body   []byte
	header http.Header // nil from a directory: there is no HTTP to check
}

// A source reads the documents of a site by URL. ifNoneMatch, when set, is
// sent as If-None-Match (a directory ignores it).
type source interface {
	get(ctx context.Context, u *url.URL, ifNoneMatch string) (*response, error)
}

// fetchError is a document that could not be read at all; code is the
// finding's code.
type fetchError struct {
	code string
	msg  string
}

func (e *fetchError) Error() string { return e.msg }

func tooLarge(max int64) error {
	return &fetchError{codeTooLarge, fmt.Sprintf("larger than the %d-byte cap", max)}
}

// notRegular refuses a file that is not a regular one, saying what it is.
func notRegular(mode fs.FileMode) error {
	what := "not a regular file"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO), not a regular file"
	case mode&fs.ModeDevice != 0:
		what = "a device, not a regular file"
	case mode&fs.ModeSocket != 0:
		what = "a socket, not a regular file"
	}
	return &fetchError{codeUnreachable, what + "; not read"}
}

// checkScheme requires https, or http to this machine (a local preview).
func checkScheme(u *url.URL) error {
	if err := httpget.CheckURL(u); err != nil {
		return &fetchError{codeInsecureURL, err.Error()}
	}
	return nil
}

// dirSource reads a built site from a directory: the URL base + p is the
// file p under root. os.Root keeps every read inside the directory, even
// through symbolic links.
type dirSource struct {
	root *os.Root
	base *url.URL
	max  int64
}

func (s *dirSource) get(_ context.Context, u *url.URL, _ string) (*response, error) {
	return s.file(strings.TrimPrefix(u.Path, s.base.Path))
}

// file reads a file by its path relative to the directory.
func (s *dirSource) file(rel string) (*response, error) {
	if rel == "" {
		return &response{status: http.StatusNotFound}, nil
	}
	// Opening a named pipe waits for a writer, and a device may never end:
	// only a regular file is opened, and only one is read.
	info, err := s.root.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &response{status: http.StatusNotFound}, nil
	case err != nil:
		return nil, &fetchError{codeUnreachable, err.Error()}
	case info.IsDir():
		return &response{status: http.StatusNotFound}, nil
	case !info.Mode().IsRegular():
		return nil, notRegular(info.Mode())
	}
	f, err := s.root.Open(rel)
	if err != nil {
		return nil, &fetchError{codeUnreachable, err.Error()}
	}
	defer f.Close()
	info, err = f.Stat()
	switch {
	case err != nil:
		return nil, &fetchError{codeUnreachable, err.Error()}
	case !info.Mode().IsRegular():
		return nil, notRegular(info.Mode())
	case info.Size() > s.max:
		return nil, tooLarge(s.max)
	}
	body, err := readCapped(f, s.max)
	if err != nil {
		return nil, err
	}
	return &response{status: http.StatusOK, body: body}, nil
}

// httpSource reads a live origin.
type httpSource struct{ client *httpget.Client }

func newHTTPSource(max int64, timeout time.Duration) *httpSource {
	return &httpSource{httpget.New(timeout, max, nil)}
}

func (s *httpSource) get(ctx context.Context, u *url.URL, ifNoneMatch string) (*response, error) {
	var header http.Header
	if ifNoneMatch != "" {
		header = http.Header{"If-None-Match": {ifNoneMatch}}
	}
	resp, err := s.client.Do(ctx, u.String(), header)
	if err != nil {
		return nil, classify(err)
	}
	return &response{status: resp.Status, body: resp.Body, header: resp.Header}, nil
}

// classify gives a failed fetch its finding's code.
func classify(err error) error {
	code := codeUnreachable
	switch {
	case errors.Is(err, httpget.ErrTooManyRedirects):
		code = codeTooManyRedirects
	case errors.Is(err, httpget.ErrRefused):
		code = codeInsecureURL
	case errors.Is(err, httpget.ErrTooLarge):
		code = codeTooLarge
	}
	return &fetchError{code, err.Error()}
}

// readCapped reads at most max bytes of a file, failing when there are
// more: the file may have grown since its size was checked. (A body over
// HTTP is capped by httpget.)
func readCapped(r io.Reader, max int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, &fetchError{codeUnreachable, "reading: " + err.Error()}
	}
	if int64(len(body)) > max {
		return nil, tooLarge(max)
	}
	return body, nil
}
