// Package serve is the development server: it builds a site in memory,
// serves the Bundle over HTTP the way a production host serves the built
// files, rebuilds when an input changes, and reloads the pages open in a
// browser. It never writes the site to disk. Each rebuild reuses, through
// one generator.Cache, what the build before made from inputs that did not
// change.
//
// # HTTP
//
// Every file is sent with exactly the headers the build's header table gives
// it (bundle.File.Header, from which _headers is rendered too), plus a strong
// ETag: a double quote, the hex SHA-256 of the body sent, a double quote.
//
//   - GET and HEAD serve a file. An If-None-Match that matches its ETag
//     (strong or W/ tags, "*", comma lists) gets 304 with the ETag and
//     Cache-Control and no body.
//   - Any other method, OPTIONS included, gets 405 with "Allow: GET, HEAD":
//     Netlify and Cloudflare Pages answer a CORS preflight so, and a
//     preview that answered it would hide what fails in production.
//   - A Server Card (application/mcp-server-card+json) requested with an
//     Accept header that admits neither its type nor application/* nor */*
//     gets 406; the most specific range that matches decides, so "its
//     type;q=0, */*" gets 406 too. A request without Accept is fine.
//   - Listening on loopback, only Host names of this machine are answered
//     (localhost, *.localhost, loopback addresses, in any letter case).
//   - A request's header must arrive within 10 s, a response be written
//     within WriteTimeout (each event, for a live-reload stream), and a
//     kept-alive connection is closed after IdleTimeout without a request.
//   - "/dir/" serves /dir/index.html and "/dir" redirects to "/dir/" when
//     that exists. There are no directory listings.
//   - _redirects rules apply as on the configured host (deploy.RedirectHost):
//     on Netlify when no file answers the path, on Cloudflare Pages before
//     the files. A 3xx rule redirects, a 200 rule serves the bundle file it
//     names with the headers of the path asked for, and a 200 rule to
//     another origin (a proxy on the host) gets 502, since the dev server
//     does not proxy.
//   - Anything else gets the site's /404.html with status 404: a missing
//     file, _headers and _redirects (which hosts read but never serve), and
//     any path that is not a clean site path (dot or empty segments,
//     backslashes, NUL, encoded slashes), so nothing outside the bundle and
//     no alias of a file in it is ever reached.
//
// # Live reload and errors
//
// HTML responses, and only those, carry a script inserted before </body>
// that listens for Server-Sent Events at EventsPath. Each state the server
// can be in (a build, or the last good build with a failed rebuild's errors)
// has a version; the stream sends it as a "reload" event on connecting and
// after every rebuild, and a page reloads when the version differs from the
// one it was served with, so a page loaded while a rebuild was under way
// catches up too. A failed rebuild keeps serving the last good build, adds
// an overlay listing the errors (file:line, and the fix when known) to every
// page, and reports them through Options.OnBuild; the next good build
// removes it.
package serve

import (
	"cmp"
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wellknown-dev/wellknown/command/serve/watch"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// DefaultAddr is where the server listens unless told otherwise: loopback
// only, since the preview is unpublished and may be signed with a
// development key.
const DefaultAddr = "127.0.0.1:1313"

// DefaultShutdownTimeout bounds how long Run waits for requests in flight.
const DefaultShutdownTimeout = 5 * time.Second

// Connection timeouts: no client holds a connection for nothing.
const (
	// readHeaderTimeout bounds reading a request's header.
	readHeaderTimeout = 10 * time.Second
	// DefaultIdleTimeout closes a kept-alive connection that sends nothing.
	DefaultIdleTimeout = time.Minute
	// DefaultWriteTimeout bounds writing one response, or one event of a
	// live-reload stream (a stream itself lasts as long as its page).
	DefaultWriteTimeout = 30 * time.Second
)

// Options configure a Server.
type Options struct {
	// Build says what to build. Strict is ignored and CI=true does not
	// demand a real key: a preview may be signed with a development key,
	// also when the key file site.toml names is missing (a fresh clone),
	// and be built from a shallow clone.
	Build    generator.Options
	Addr     string        // host:port to listen on; "" means DefaultAddr
	Poll     time.Duration // > 0: poll for changes at this interval instead of using file-system events
	Debounce time.Duration // quiet time that ends a batch of changes; 0: watch.DefaultDebounce
	// IdleTimeout, WriteTimeout and ShutdownTimeout override
	// DefaultIdleTimeout, DefaultWriteTimeout and DefaultShutdownTimeout
	// when not 0.
	IdleTimeout, WriteTimeout, ShutdownTimeout time.Duration

	// OnBuild receives the outcome of every rebuild, and of the first build
	// when it succeeds (a failed first build is New's error). OnWatchError
	// receives problems with watching; serving goes on. Both are called
	// from one goroutine at a time and may be nil.
	OnBuild      func(Build)
	OnWatchError func(error)
}

// Build is the outcome of one build.
type Build struct {
	Result  *generator.Result // nil when the build failed
	Err     error             // why it failed; the server goes on serving the last good build
	Changed []string          // the changed paths that caused it; nil for the first build
	Elapsed time.Duration
}

// Server is a running development server.
type Server struct {
	opt      Options
	build    generator.Options
	state    atomic.Pointer[state]
	unused   unusedConns
	good     *generator.Result // the last good build; owned by the rebuild loop
	repos    watch.Targets     // the files of its repositories (see repositories); owned by the rebuild loop
	events   *hub
	watcher  *watch.Watcher
	listener net.Listener
	http     *http.Server
}

// New listens on the address, builds the site and starts watching its
// inputs. It does not serve until Run.
func New(opt Options) (_ *Server, err error) {
	addr := opt.Addr
	if addr == "" {
		addr = DefaultAddr
	}
	// Listening first makes a busy port fail fast, before a build.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, diag.Errorf("", 0, "cannot listen on %s: %v", addr, err).
			WithHint("choose another address with --addr HOST:PORT (port 0 picks a free one)")
	}
	defer func() {
		if err != nil {
			ln.Close()
		}
	}()
	s := &Server{opt: opt, build: previewBuild(opt.Build), events: newHub(), listener: ln}
	start := time.Now()
	res, err := generator.Build(s.build)
	if err != nil {
		return nil, err
	}
	s.setGood(res)
	s.watcher, err = watch.New(inputs(res.Config, s.build.KeyFile), watch.Options{Poll: opt.Poll, Debounce: opt.Debounce})
	if err != nil {
		return nil, err
	}
	// A rebuild asks git whether a repository moved only when one of its
	// files did: four git commands fewer for an edit.
	s.build.Cache.Watched()
	s.http = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       cmp.Or(opt.IdleTimeout, DefaultIdleTimeout),
		WriteTimeout:      cmp.Or(opt.WriteTimeout, DefaultWriteTimeout),
		ConnState:         s.unused.track,
	}
	s.http.RegisterOnShutdown(s.events.close)
	s.http.RegisterOnShutdown(s.unused.close)
	s.report(Build{Result: res, Elapsed: time.Since(start)})
	return s, nil
}

// previewBuild adapts build options to a preview: a development key is
// always acceptable, also in place of a missing key file, a shallow clone
// is built with a warning, and each build reuses what the one before made.
func previewBuild(opt generator.Options) generator.Options {
	getenv := opt.Getenv
	opt.Strict, opt.Preview, opt.AllowShallow = false, true, true
	if opt.Cache == nil {
		opt.Cache = generator.NewCache()
	}
	opt.Getenv = func(name string) string {
		if name == "CI" || getenv == nil {
			return ""
		}
		return getenv(name)
	}
	return opt
}

// URL is the server's address as a URL a browser can open.
func (s *Server) URL() string {
	a := s.listener.Addr().(*net.TCPAddr)
	host := a.IP.String()
	if a.IP.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(a.Port)) + "/"
}

// Loopback reports whether only this machine can reach the server.
func (s *Server) Loopback() bool {
	return s.listener.Addr().(*net.TCPAddr).IP.IsLoopback()
}

// Run serves and rebuilds on every change until ctx is done, then shuts
// down: it stops accepting connections, ends live-reload streams, lets
// requests in flight finish (for a few seconds at most), stops watching and
// waits for a rebuild under way.
func (s *Server) Run(ctx context.Context) error {
	served := make(chan error, 1)
	go func() { served <- s.http.Serve(s.listener) }()
	rebuilt := make(chan struct{})
	go func() {
		defer close(rebuilt)
		s.rebuildLoop()
	}()

	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	stop, cancel := context.WithTimeout(context.Background(), cmp.Or(s.opt.ShutdownTimeout, DefaultShutdownTimeout))
	defer cancel()
	err = errors.Join(err, s.http.Shutdown(stop), s.watcher.Close())
	<-rebuilt
	return err
}

// rebuildLoop rebuilds after every batch of changes until the watcher is
// closed.
func (s *Server) rebuildLoop() {
	changes, problems := s.watcher.Changes(), s.watcher.Errors()
	for {
		select {
		case changed, ok := <-changes:
			if !ok {
				return
			}
			s.rebuild(changed)
		case err, ok := <-problems:
			if !ok {
				return
			}
			if s.opt.OnWatchError != nil {
				s.opt.OnWatchError(err)
			}
		}
	}
}

// rebuild builds the site again and swaps the result in, or keeps the last
// good build with the errors; then open pages are told. The build is told
// what changed, so that a Markdown edit renders that page alone and reads
// nothing else (see generator.Cache.Changed). The watch list is brought up
// to date after that, off the way from a save to the reload: a change made
// meanwhile to a path watched before is seen all the same. It stands as it
// is after a kept build, since no input came or went: the build is kept
// only for plain files of one name (a symlink's target would have to be
// watched).
func (s *Server) rebuild(changed []string) {
	start := time.Now()
	if slices.ContainsFunc(changed, func(p string) bool { return moves(s.repos, p) }) {
		s.build.Cache.Moved()
	}
	s.build.Cache.Changed(changed)
	res, err := generator.Build(s.build)
	if err != nil {
		s.state.Store(newState(s.state.Load(), s.good, err))
	} else {
		s.setGood(res)
	}
	s.events.publish(s.state.Load().version)
	elapsed := time.Since(start)
	if err == nil && !res.Reuse.Build {
		s.watcher.Watch(inputs(res.Config, s.build.KeyFile))
	}
	s.report(Build{Result: res, Err: err, Changed: changed, Elapsed: elapsed})
}

func (s *Server) setGood(res *generator.Result) {
	s.good, s.repos = res, repositories(res.Config)
	s.state.Store(newState(s.state.Load(), res, nil))
}

func (s *Server) report(b Build) {
	if s.opt.OnBuild != nil {
		s.opt.OnBuild(b)
	}
}

// unusedConns are the connections that have not sent a request yet, which
// a browser opens ahead of need. http.Server.Shutdown counts such a
// connection as active for its first 5 s, so Ctrl-C would wait that long;
// Shutdown closes the listener first, then these are closed at once.
type unusedConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (u *unusedConns) track(c net.Conn, state http.ConnState) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if state != http.StateNew {
		delete(u.conns, c)
		return
	}
	if u.conns == nil {
		u.conns = map[net.Conn]struct{}{}
	}
	u.conns[c] = struct{}{}
}

func (u *unusedConns) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for c := range u.conns {
		c.Close()
	}
	clear(u.conns)
}
