// Package httpget is the one HTTP client of wellknown: every document read
// over the network (the feed published before, a provider's key set, the
// documents verify checks) and every MCP session of sync go through it, so
// they all follow the same rules:
//
//   - https, or plain http only to this machine (a local preview);
//   - a redirect is followed at most MaxRedirects times, never from https to
//     http, and never from another host to this machine, where a redirect
//     would reach services that trust local callers;
//   - a request has a time limit and a body a size cap (Client), and every
//     request says who is asking (UserAgent).
//
// Errors say what failed, so that callers can tell the cases apart:
// StatusError for an answer other than 200 (errors.Is ErrNotFound for 404),
// ErrRefused for a URL or redirect the rules refuse, ErrTooManyRedirects,
// ErrTooLarge, and ErrNetwork for a request that got no answer (DNS,
// connection, TLS, timeout; the cause, such as a *net.DNSError, stays
// reachable with errors.As).
package httpget

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wellknown-dev/wellknown/internal/inputfile"
	"github.com/wellknown-dev/wellknown/internal/urlrule"
	"github.com/wellknown-dev/wellknown/internal/version"
)

// MaxRedirects is how many redirects a request may follow.
const MaxRedirects = 3

// UserAgent is sent with every request.
var UserAgent = "wellknown/" + strings.Trim(version.Get().Version, "()")

// The kinds of failure, for errors.Is.
var (
	// ErrNotFound is the answer 404: for a caller to whom a missing
	// document is news rather than a failure.
	ErrNotFound = errors.New("HTTP 404 Not Found")
	// ErrRefused is a URL, or a redirect, the rules refuse.
	ErrRefused          = errors.New("refused")
	ErrTooManyRedirects = errors.New("too many redirects")
	ErrTooLarge         = errors.New("too large")
	// ErrNetwork is a request that got no answer at all.
	ErrNetwork = errors.New("network failure")
)

// StatusError is an answer other than 200 OK.
type StatusError struct {
	Code   int
	Status string // "404 Not Found"
}

func (e *StatusError) Error() string { return "HTTP " + e.Status }

// Is makes a 404 errors.Is ErrNotFound.
func (e *StatusError) Is(target error) bool {
	return target == ErrNotFound && e.Code == http.StatusNotFound
}

// kindError is an error of one of the kinds above, with its own message.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

// networkError is a request that got no answer; it unwraps to ErrNetwork
// and to its cause. msg, when set, says it better than the cause.
type networkError struct {
	msg string
	err error
}

func (e *networkError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return e.err.Error()
}

func (e *networkError) Unwrap() []error { return []error{ErrNetwork, e.err} }

// CheckURL allows an absolute URL urlrule.Secure allows: https, and plain
// http only to this machine. What decides trust must not come over a
// connection anyone on the way can rewrite.
func CheckURL(u *url.URL) error {
	switch {
	case u.Host == "":
		return &kindError{ErrRefused, fmt.Sprintf("%s is not an absolute URL", u.Redacted())}
	case urlrule.Secure(u):
		return nil
	}
	return &kindError{ErrRefused, fmt.Sprintf("%s: https is required (plain http only for localhost and loopback addresses)", u.Redacted())}
}

// CheckURLFor is CheckURL of a URL given as text, refused in the words of
// a caller that says what it fetches: "<url>: <what> is fetched over https
// (plain http only from localhost)". It suits New's allow.
func CheckURLFor(what, s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	// A URL without a host is refused in CheckURL's words: its scheme is
	// not what is wrong with it.
	err = CheckURL(u)
	if err != nil && u.Host != "" {
		return fmt.Errorf("%s: %s is fetched over https (plain http only from localhost)", s, what)
	}
	return err
}

// checkRedirect applies the redirect rules, then allow (when not nil),
// which words a refusal of the URL in the caller's terms, then CheckURL.
func checkRedirect(allow func(string) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		from, to := via[len(via)-1].URL, req.URL
		switch {
		case len(via) > MaxRedirects:
			return &kindError{ErrTooManyRedirects, fmt.Sprintf("more than %d redirects (the last to %s)", MaxRedirects, to.Redacted())}
		case from.Scheme == "https" && to.Scheme != "https":
			return &kindError{ErrRefused, fmt.Sprintf("redirect from https to %s refused (%s)", to.Scheme, to.Redacted())}
		case urlrule.IsThisMachine(to.Hostname()) && !urlrule.IsThisMachine(via[0].URL.Hostname()):
			return &kindError{ErrRefused, fmt.Sprintf("redirect from %s to this machine refused (%s)", via[0].URL.Host, to.Redacted())}
		}
		if allow != nil {
			if err := allow(to.String()); err != nil {
				return err
			}
		}
		return CheckURL(to)
	}
}

// agent is a transport that sends UserAgent.
type agent struct{ base http.RoundTripper }

func (a agent) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("User-Agent", UserAgent)
	return a.base.RoundTrip(req)
}

func newTransport() http.RoundTripper {
	return agent{http.DefaultTransport.(*http.Transport).Clone()}
}

// NewSession returns an http.Client for a protocol that reads its bodies
// itself, such as an MCP session: the rules of this package, at most max
// bytes of bodies in all, over every request of the session (reading past
// them fails with ErrTooLarge, so that a server that streams without end,
// in one answer or in many, cannot exhaust memory), and no time limit of
// its own (the caller's context bounds it). wrap, when not nil, wraps its
// transport, to add headers or watch responses.
func NewSession(max int64, allow func(string) error, wrap func(http.RoundTripper) http.RoundTripper) *http.Client {
	c := &capped{base: newTransport(), max: max}
	c.left.Store(max)
	var t http.RoundTripper = c
	if wrap != nil {
		t = wrap(t)
	}
	return &http.Client{Transport: t, CheckRedirect: checkRedirect(allow)}
}

// capped is a transport whose response bodies together fail past max
// bytes.
type capped struct {
	base http.RoundTripper
	max  int64
	left atomic.Int64 // what the bodies may still hold
}

func (c *capped) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > c.left.Load() {
		resp.Body.Close()
		return nil, c.tooLarge()
	}
	resp.Body = &cappedBody{resp.Body, c}
	return resp, nil
}

func (c *capped) tooLarge() error {
	return &kindError{ErrTooLarge, fmt.Sprintf("more than %s in all", inputfile.Size(c.max))}
}

// cappedBody is a body whose bytes count against its transport's cap.
type cappedBody struct {
	io.ReadCloser
	c *capped
}

func (b *cappedBody) Read(p []byte) (int, error) {
	// One byte past the cap tells a body that ends there from a longer one.
	p = p[:min(int64(len(p)), max(b.c.left.Load(), 0)+1)]
	n, err := b.ReadCloser.Read(p)
	if left := b.c.left.Add(-int64(n)); left < 0 {
		return max(n+int(left), 0), b.c.tooLarge()
	}
	return n, err
}

// Client gets documents. It is safe for concurrent use.
type Client struct {
	http  *http.Client
	allow func(string) error
	max   int64
}

// New returns a client that gives up on one request after timeout
// (redirects and body included), reads at most max bytes of a body, and
// asks allow (when not nil) of every URL it fetches or is redirected to,
// besides the rules of this package.
func New(timeout time.Duration, max int64, allow func(string) error) *Client {
	return &Client{
		http:  &http.Client{Timeout: timeout, Transport: newTransport(), CheckRedirect: checkRedirect(allow)},
		allow: allow,
		max:   max,
	}
}

// Response is an answer of any status.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do gets u with the request headers given (nil for none) and returns the
// answer whatever its status. Errors do not repeat the URL.
func (c *Client) Do(ctx context.Context, u string, header http.Header) (*Response, error) {
	resp, err := c.send(ctx, u, header)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := c.read(resp)
	if err != nil {
		return nil, err
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

// Get returns the body of the 200 answer at u. Any other status is a
// *StatusError, whatever its body.
func (c *Client) Get(ctx context.Context, u string) ([]byte, error) {
	resp, err := c.send(ctx, u, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &StatusError{Code: resp.StatusCode, Status: resp.Status}
	}
	return c.read(resp)
}

// send checks u and sends the request; the caller closes the body.
func (c *Client) send(ctx context.Context, u string, header http.Header) (*http.Response, error) {
	parsed, err := url.Parse(u)
	if err != nil {
		return nil, &kindError{ErrRefused, err.Error()}
	}
	if c.allow != nil {
		if err := c.allow(u); err != nil {
			return nil, err // the caller's rule says it in the caller's words
		}
	}
	if err := CheckURL(parsed); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &kindError{ErrRefused, err.Error()}
	}
	for name, values := range header {
		req.Header[name] = values
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, classify(err)
	}
	return resp, nil
}

// read reads the body up to the cap.
func (c *Client) read(resp *http.Response) ([]byte, error) {
	if resp.ContentLength > c.max {
		return nil, tooLarge(c.max)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.max+1))
	if err != nil {
		return nil, classify(fmt.Errorf("reading: %w", err))
	}
	if int64(len(body)) > c.max {
		return nil, tooLarge(c.max)
	}
	return body, nil
}

// tooLarge is the error of a body over max bytes.
func tooLarge(max int64) error {
	return &kindError{ErrTooLarge, fmt.Sprintf("larger than %s", inputfile.Size(max))}
}

// classify keeps the kind of a refused redirect, and makes anything else a
// network failure, saying "timed out" for a timeout.
func classify(err error) error {
	var k *kindError
	if errors.As(err, &k) {
		return k
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return &networkError{"timed out", ue.Err}
		}
		err = ue.Err
	}
	return &networkError{err: err}
}

// UseResolver makes the client look names up with r instead of the
// system's resolver: a test points it at a DNS server of its own.
func (c *Client) UseResolver(r *net.Resolver) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Resolver: r}).DialContext
	c.http.Transport = agent{t}
}

// CloseIdleConnections closes the connections kept alive for later
// requests, for a caller that is done.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }
