// Package httpget fetches the few documents a build reads over the network
// (the feed published before, a provider's key set): from URLs a rule
// allows, through at most a few redirects the same rule allows, within a
// time limit, and never more than a size cap.
package httpget

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// ErrNotFound is the answer 404: for a caller to whom a missing document is
// news rather than a failure.
var ErrNotFound = errors.New("HTTP 404 Not Found")

// StatusError is an answer other than 200, for a caller that tells one
// status from another (a 410 Gone from a 503). Its 404 is ErrNotFound.
type StatusError struct {
	Code   int
	Status string // "404 Not Found"
}

func (e *StatusError) Error() string { return "HTTP " + e.Status }

func (e *StatusError) Is(target error) bool {
	return target == ErrNotFound && e.Code == http.StatusNotFound
}

// Client gets documents. It is safe for concurrent use.
type Client struct {
	http  *http.Client
	allow func(string) error
	max   int64
}

// New returns a client that gives up on one request after timeout, follows
// at most maxRedirects redirects, reads at most max bytes of a body, and
// asks allow of every URL it fetches or is redirected to.
func New(timeout time.Duration, maxRedirects int, max int64, allow func(string) error) *Client {
	return &Client{
		http: &http.Client{
			Timeout: timeout,
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) > maxRedirects {
					return fmt.Errorf("more than %d redirects", maxRedirects)
				}
				return allow(req.URL.String())
			},
		},
		allow: allow,
		max:   max,
	}
}

// Get returns the body of the 200 answer at u. Any other status is a
// *StatusError ("HTTP 500 Internal Server Error"; it is ErrNotFound for 404),
// and so is a body
// over the cap; errors do not repeat the URL.
func (c *Client) Get(ctx context.Context, u string) ([]byte, error) {
	if err := c.allow(u); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &StatusError{Code: resp.StatusCode, Status: resp.Status}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > c.max {
		return nil, fmt.Errorf("larger than %s", inputfile.Size(c.max))
	}
	return data, nil
}

// UseResolver makes the client look names up with r instead of the
// system's resolver: a test points it at a DNS server of its own.
func (c *Client) UseResolver(r *net.Resolver) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Resolver: r}).DialContext
	c.http.Transport = t
}

// CloseIdleConnections closes the connections kept alive for later
// requests, for a caller that is done.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }
