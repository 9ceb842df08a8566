package sync

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"runtime/debug"
	"strings"
	gosync "sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/httpget"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// ServerInfo is what a server says about itself in the handshake.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// listing is a server's complete answer to tools/list.
type listing struct {
	server ServerInfo
	tools  []json.RawMessage // each tool object as the server sent it
	pages  int
}

// stdioGrace is how long a stdio server may take to exit once its input is
// closed, before it is terminated.
const stdioGrace = 2 * time.Second

// conn is one client session with a server, and what explains its failures.
type conn struct {
	src     *Source
	timeout time.Duration
	tap     *listTap
	cs      *mcp.ClientSession
	probe   *probe    // Streamable HTTP
	cmd     *exec.Cmd // stdio
	stderr  *tail     // stdio
}

// fetch connects to the server, lists all its tools and disconnects. ctx
// bounds the whole exchange; timeout is its limit, for messages.
func fetch(ctx context.Context, src *Source, timeout time.Duration) (*listing, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the HTTP requests the SDK leaves running (see probe)
	c := &conn{src: src, timeout: timeout, tap: &listTap{calls: map[jsonrpc.ID]bool{}}}
	if err := c.connect(ctx); err != nil {
		return nil, err
	}
	defer c.cs.Close()
	l := &listing{}
	if info := c.cs.InitializeResult().ServerInfo; info != nil {
		l.server = ServerInfo{Name: info.Name, Version: info.Version}
	}
	var err error
	l.tools, l.pages, err = c.listTools(ctx)
	return l, err
}

func (c *conn) connect(ctx context.Context) error {
	var t mcp.Transport
	if c.src.endpoint != nil {
		c.probe = &probe{src: c.src, life: ctx}
		t = &mcp.StreamableClientTransport{
			Endpoint:             c.src.endpoint.String(),
			HTTPClient:           c.probe.client(),
			DisableStandaloneSSE: true, // sync only needs answers to its own requests
		}
	} else {
		c.stderr = &tail{}
		c.cmd = exec.Command(c.src.argv[0], c.src.argv[1:]...)
		c.cmd.Stderr = c.stderr
		t = &mcp.CommandTransport{Command: c.cmd, TerminateDuration: stdioGrace}
	}
	cs, err := mcp.NewClient(clientInfo(), nil).Connect(ctx, tapped{t, c.tap}, nil)
	if err != nil {
		return c.explain(ctx, "the handshake", err)
	}
	c.cs = cs
	if c.probe != nil {
		c.probe.setProtocolVersion(cs.InitializeResult().ProtocolVersion)
	}
	return nil
}

// listTools follows tools/list pagination to the end and returns every tool
// object as the server sent it, and the number of pages.
func (c *conn) listTools(ctx context.Context) ([]json.RawMessage, int, error) {
	var tools []json.RawMessage
	seen := map[string]bool{}
	cursor := ""
	for pages := 1; ; pages++ {
		if _, err := c.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor}); err != nil {
			return nil, 0, c.explain(ctx, "tools/list", err)
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(c.tap.take(), &page); err != nil {
			return nil, 0, diag.Errorf("", 0, "%s: malformed tools/list result: %v", c.src, err)
		}
		tools = append(tools, page.Tools...)
		if page.NextCursor == "" {
			return tools, pages, nil
		}
		if seen[page.NextCursor] {
			return nil, 0, diag.Errorf("", 0, "%s: tools/list returned cursor %q a second time (page %d); the listing would never end", c.src, c.src.redact(page.NextCursor), pages)
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
}

// explain turns a failure of the SDK while doing something into an error
// that says which of the usual causes it was, with a hint. Header values are
// redacted from every message.
func (c *conn) explain(ctx context.Context, doing string, err error) error {
	var e *diag.Error
	switch {
	case c.probe != nil && c.probe.refusal() != 0:
		code := c.probe.refusal()
		e = diag.Errorf("", 0, "%s refused access during %s (HTTP %d %s): %v", c.src, doing, code, http.StatusText(code), err).
			WithHint("pass credentials with --header 'Authorization: Bearer $TOKEN' (the variable is read from the environment)")
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		e = diag.Errorf("", 0, "%s did not complete %s within %v", c.src, doing, c.timeout).
			WithHint("raise --timeout, or check that the server is healthy")
	case c.probe != nil && c.probe.overCap():
		e = diag.Errorf("", 0, "%s sent more than %s (the limit for a session) by the end of %s", c.src, inputfile.Size(maxSession), doing).
			WithHint("check that %s is an MCP server: sync reads at most %s from one, the handshake and every page of tools/list together", c.src, inputfile.Size(maxSession))
	case c.probe != nil && c.probe.refusedRedirect() != nil:
		e = diag.Errorf("", 0, "cannot reach %s: %v", c.src, c.probe.refusedRedirect()).
			WithHint("give --url the address the server answers at: sync follows at most %d redirects, never from https to http, nor from another host to this machine", httpget.MaxRedirects)
	case c.probe != nil && c.probe.networkError() != nil:
		e = diag.Errorf("", 0, "cannot reach %s: %v", c.src, c.probe.networkError()).
			WithHint("check --url, and that the server is running and reachable from here")
	case c.cmd != nil && c.cmd.Process == nil:
		e = diag.Errorf("", 0, "cannot start %s: %v", c.src, err).
			WithHint("check --command: its first word must be a program on PATH, or a path to one")
	default:
		e = diag.Errorf("", 0, "%s failed with %s: %v%s", doing, c.src, err, c.stderr.quote()).
			WithHint("check that %s is an MCP server (a Streamable HTTP endpoint such as https://host/mcp, or a stdio command)", c.src)
	}
	e.Msg = c.src.redact(e.Msg)
	return e
}

// clientInfo is how the client introduces itself in the handshake.
func clientInfo() *mcp.Implementation {
	version := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		version = info.Main.Version
	}
	return &mcp.Implementation{Name: "wellknown", Title: "wellknown sync", Version: version}
}

// tapped is a Transport whose connection is tap.
type tapped struct {
	mcp.Transport
	tap *listTap
}

func (t tapped) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.tap.Connection = c
	return t.tap, nil
}

// listTap is a Connection that keeps the raw result of every answer to
// tools/list, in order, because the SDK only hands out typed tools, which
// are not exactly what the server sent (see the package comment).
//
// Wrapping the connection hides it from the SDK's session updates; the one
// that matters, the negotiated protocol version, reaches the HTTP requests
// through probe instead.
type listTap struct {
	mcp.Connection
	mu      gosync.Mutex
	calls   map[jsonrpc.ID]bool // tools/list requests awaiting an answer
	results []json.RawMessage
}

func (t *listTap) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && req.Method == "tools/list" {
		t.mu.Lock()
		t.calls[req.ID] = true
		t.mu.Unlock()
	}
	return t.Connection.Write(ctx, msg)
}

func (t *listTap) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := t.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		t.mu.Lock()
		if t.calls[resp.ID] {
			delete(t.calls, resp.ID)
			if resp.Error == nil {
				t.results = append(t.results, bytes.Clone(resp.Result))
			}
		}
		t.mu.Unlock()
	}
	return msg, err
}

// take returns the oldest result not taken yet (nil when there is none).
func (t *listTap) take() json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.results) == 0 {
		return nil
	}
	r := t.results[0]
	t.results = t.results[1:]
	return r
}

// probe is the HTTP transport of a Streamable HTTP session. It adds the
// user's headers to requests for the endpoint's origin, and only those (a
// redirect elsewhere must not carry credentials), and remembers what the
// SDK's errors carry only as text: an auth refusal, a network failure.
//
// Every request also ends with life, the context of the whole exchange: the
// SDK sends some requests (a cancellation notice, the closing DELETE) on
// contexts of its own, which a stalled server would hold for seconds past
// the timeout.
type probe struct {
	base http.RoundTripper
	src  *Source
	life context.Context

	mu              gosync.Mutex
	protocolVersion string
	refused         int // 401 or 403
	netErr          error
	redirectErr     error // the first redirect the rules refused
	tooLarge        bool  // the session went over maxSession
}

// maxSession caps what a server may send over HTTP in one session, the
// handshake and every page of tools/list together: far above the tools of
// any server, far below what exhausts memory.
const maxSession = inputfile.MaxSize

// client is the HTTP client of the session, with the rules of every fetch.
func (p *probe) client() *http.Client {
	client := httpget.NewSession(maxSession, nil, func(base http.RoundTripper) http.RoundTripper {
		p.base = base
		return p
	})
	check := client.CheckRedirect
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		err := check(req, via)
		p.mu.Lock()
		defer p.mu.Unlock()
		if err != nil && p.redirectErr == nil {
			p.redirectErr = err
		}
		return err
	}
	return client
}

// refusedRedirect returns the first redirect the rules refused, or nil.
func (p *probe) refusedRedirect() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.redirectErr
}

func (p *probe) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	context.AfterFunc(p.life, cancel)
	req = req.Clone(ctx)
	if req.URL.Scheme == p.src.endpoint.Scheme && req.URL.Host == p.src.endpoint.Host {
		for name, values := range p.src.headers {
			req.Header[name] = values
		}
	}
	p.mu.Lock()
	if req.Header.Get("Mcp-Protocol-Version") == "" && p.protocolVersion != "" {
		req.Header.Set("Mcp-Protocol-Version", p.protocolVersion)
	}
	p.mu.Unlock()
	resp, err := p.base.RoundTrip(req)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case errors.Is(err, httpget.ErrTooLarge):
		p.tooLarge = true
	case err != nil && p.netErr == nil:
		p.netErr = err
	case err == nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden):
		p.refused = resp.StatusCode
	}
	if err == nil {
		resp.Body = watchedBody{resp.Body, p}
	}
	return resp, err
}

// overCap reports whether the session went over maxSession: the SDK's
// own error for a body cut off in a stream does not say why.
func (p *probe) overCap() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tooLarge
}

// watchedBody is an answer's body whose cap the probe notices.
type watchedBody struct {
	io.ReadCloser
	p *probe
}

func (b watchedBody) Read(buf []byte) (int, error) {
	n, err := b.ReadCloser.Read(buf)
	if errors.Is(err, httpget.ErrTooLarge) {
		b.p.mu.Lock()
		b.p.tooLarge = true
		b.p.mu.Unlock()
	}
	return n, err
}

func (p *probe) setProtocolVersion(v string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.protocolVersion = v
}

// refusal returns the status of the last auth refusal, or 0.
func (p *probe) refusal() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}

// networkError returns the first request that failed to get a response.
func (p *probe) networkError() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.netErr
}

// tailSize is how much of a stdio server's standard error is kept.
const tailSize = 4 << 10

// tail keeps the end of a stdio server's standard error, to quote when the
// server fails.
type tail struct {
	mu  gosync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = t.buf[len(t.buf)-tailSize:]
	}
	return len(p), nil
}

// quote returns the last line the server wrote to standard error, as a
// clause to append to a message; "" when there is none (or t is nil).
func (t *tail) quote() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	text := strings.TrimSpace(string(t.buf))
	if text == "" {
		return ""
	}
	return fmt.Sprintf(" (its last words on standard error: %q)", text[strings.LastIndexByte(text, '\n')+1:])
}
