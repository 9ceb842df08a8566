package httpget

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/internal/tlstest"
)

func TestMain(m *testing.M) { tlstest.Main(m) }

// handler answers the paths the tests fetch; plain is the URL of a plain
// http server on this machine.
func handler(plain *string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "12345") })
	mux.HandleFunc("/agent", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, r.UserAgent()) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "123456") })
	mux.HandleFunc("/bigstream", func(w http.ResponseWriter, r *http.Request) {
		for range 6 {
			fmt.Fprint(w, "1")
			w.(http.Flusher).Flush() // no Content-Length: the cap is found while reading
		}
	})
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusInternalServerError) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/hop/", func(w http.ResponseWriter, r *http.Request) {
		n := len(strings.Split(strings.TrimPrefix(r.URL.Path, "/hop/"), "/")) - 1
		if n == 0 {
			http.Redirect(w, r, "/ok", http.StatusFound)
			return
		}
		http.Redirect(w, r, "/hop/"+strings.Repeat("x/", n-1), http.StatusFound)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://elsewhere.example/x", http.StatusFound)
	})
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://forbidden.example/x", http.StatusFound)
	})
	mux.HandleFunc("/toplain", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, *plain+"/ok", http.StatusFound) })
	return mux
}

// servers are a plain http and an https server on this machine, answering
// the same paths.
func servers(t *testing.T) (plain, tls *httptest.Server) {
	tlstest.Skip(t)
	var plainURL string
	plain = httptest.NewServer(handler(&plainURL))
	plainURL = plain.URL
	tls = httptest.NewTLSServer(handler(&plainURL))
	t.Cleanup(plain.Close)
	t.Cleanup(tls.Close)
	return plain, tls
}

func TestGet(t *testing.T) {
	plain, tls := servers(t)
	allow := func(u string) error {
		if strings.Contains(u, "forbidden") {
			return errors.New("refused " + u)
		}
		return nil
	}
	c := New(5*time.Second, 5, allow)
	defer c.CloseIdleConnections()
	for _, srv := range []*httptest.Server{plain, tls} {
		for _, tc := range []struct {
			path, body, err string
			kind            error
		}{
			{"/ok", "12345", "", nil},
			{"/hop/x/x/", "12345", "", nil}, // three redirects
			{"/hop/x/x/x/", "", "more than 3 redirects (the last to " + srv.URL + "/ok)", ErrTooManyRedirects},
			{"/loop", "", "more than 3 redirects (the last to " + srv.URL + "/loop)", ErrTooManyRedirects},
			{"/big", "", "larger than 5 bytes", ErrTooLarge},
			{"/bigstream", "", "larger than 5 bytes", ErrTooLarge},
			{"/elsewhere", "", "refused https://forbidden.example/x", nil}, // the caller's rule
			{"/fail", "", "HTTP 500 Internal Server Error", nil},
			{"/missing", "", "HTTP 404 Not Found", ErrNotFound},
			{"/away", "", "http://elsewhere.example/x: https is required (plain http only for localhost and loopback addresses)", ErrRefused},
		} {
			if srv == tls && tc.path == "/away" {
				tc.err = "redirect from https to http refused (http://elsewhere.example/x)"
			}
			body, err := c.Get(context.Background(), srv.URL+tc.path)
			if got := errString(err); got != tc.err || string(body) != tc.body {
				t.Errorf("Get %s%s = %q, %q; want %q, %q", srv.URL, tc.path, body, got, tc.body, tc.err)
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("Get %s%s: %v is not %v", srv.URL, tc.path, err, tc.kind)
			}
		}
	}
	var se *StatusError
	if _, err := c.Get(context.Background(), tls.URL+"/fail"); !errors.As(err, &se) || se.Code != 500 {
		t.Errorf("500: %v, want a StatusError with the code", err)
	}
	if body, err := New(5*time.Second, 1<<10, nil).Get(context.Background(), tls.URL+"/agent"); err != nil || string(body) != UserAgent {
		t.Errorf("user agent %q, %v; want %q", body, err, UserAgent)
	}
}

// Every rule of the package, with a redirect between real servers: never
// from https to http, even on this machine.
func TestRedirectFromHTTPS(t *testing.T) {
	plain, tls := servers(t)
	c := New(5*time.Second, 1<<20, nil)
	defer c.CloseIdleConnections()
	_, err := c.Get(context.Background(), tls.URL+"/toplain")
	if want := "redirect from https to http refused (" + plain.URL + "/ok)"; errString(err) != want || !errors.Is(err, ErrRefused) {
		t.Errorf("https to http: %v, want %q", err, want)
	}
	if body, err := c.Get(context.Background(), plain.URL+"/toplain"); err != nil || string(body) != "12345" {
		t.Errorf("http to http on this machine: %q, %v", body, err)
	}
}

// A URL the rules refuse is not fetched.
func TestCheckURL(t *testing.T) {
	c := New(5*time.Second, 10, nil)
	for _, u := range []string{"http://example.com/x", "http://192.0.2.1/", "ftp://example.com/", "/relative", "http://localhost.example.com/"} {
		if _, err := c.Get(context.Background(), u); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v, want ErrRefused", u, err)
		}
	}
	for _, u := range []string{"https://example.com/", "http://localhost:8080/", "http://127.0.0.1/", "http://[::1]:9/", "http://Preview.Localhost/"} {
		if err := CheckURL(mustURL(t, u)); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}

// CheckURLFor refuses what CheckURL refuses, saying what is fetched when
// the scheme is what is wrong, and in CheckURL's words otherwise.
func TestCheckURLFor(t *testing.T) {
	for u, want := range map[string]string{
		"http://example.com/k":   "http://example.com/k: a key is fetched over https (plain http only from localhost)",
		"ftp://localhost/k":      "ftp://localhost/k: a key is fetched over https (plain http only from localhost)",
		"/relative":              "/relative is not an absolute URL",
		"https://example.com/k":  "",
		"http://localhost:8080/": "",
	} {
		err := CheckURLFor("a key", u)
		if got := fmt.Sprint(err); want == "" && err != nil || want != "" && got != want {
			t.Errorf("%s: %v, want %q", u, err, want)
		}
	}
}

// A redirect from another host to this machine is refused however the name
// is written; from this machine to itself, or to another host, it is not.
// (Test servers all live on this machine, so this rule is checked on the
// function that applies it.)
func TestRedirectToThisMachine(t *testing.T) {
	check := checkRedirect(nil)
	from := &http.Request{URL: mustURL(t, "https://example.com/.well-known/did.json")}
	for _, to := range []string{"https://localhost/x", "https://LOCALHOST/x", "https://Preview.LocalHost/x", "https://127.0.0.1/x", "https://[::1]/x", "https://localhost./x"} {
		if err := check(&http.Request{URL: mustURL(t, to)}, []*http.Request{from}); !errors.Is(err, ErrRefused) {
			t.Errorf("redirect to %s: %v, want ErrRefused", to, err)
		}
	}
	if err := check(&http.Request{URL: mustURL(t, "https://www.example.com/x")}, []*http.Request{from}); err != nil {
		t.Errorf("redirect to another https host: %v", err)
	}
	local := &http.Request{URL: mustURL(t, "http://localhost:1313/x")}
	if err := check(&http.Request{URL: mustURL(t, "http://127.0.0.1:1313/y")}, []*http.Request{local}); err != nil {
		t.Errorf("redirect on this machine: %v", err)
	}
}

// A server that never answers times out, and one that is not there is a
// network failure whose cause stays reachable.
func TestNetworkFailures(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	c := New(100*time.Millisecond, 10, nil)
	if _, err := c.Get(context.Background(), srv.URL); errString(err) != "timed out" || !errors.Is(err, ErrNetwork) {
		t.Errorf("a server that never answers: %v, want a timeout", err)
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	_, err := c.Get(context.Background(), closed.URL)
	var op *net.OpError
	if !errors.Is(err, ErrNetwork) || !errors.As(err, &op) || errors.Is(err, ErrNotFound) {
		t.Errorf("a closed port: %v, want a network failure with its *net.OpError", err)
	}
}

// A session client follows the same redirect rules and sends the user
// agent, through the caller's wrapper.
func TestNewSession(t *testing.T) {
	plain, tls := servers(t)
	var seen []string
	client := NewSession(1<<20, nil, func(base http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			seen = append(seen, r.URL.Path)
			return base.RoundTrip(r)
		})
	})
	resp, err := client.Get(tls.URL + "/toplain")
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, ErrRefused) {
		t.Errorf("https to http: %v, want ErrRefused", err)
	}
	resp, err = client.Get(plain.URL + "/agent")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	agent, _ := io.ReadAll(resp.Body)
	if string(agent) != UserAgent || strings.Join(seen, " ") != "/toplain /agent" {
		t.Errorf("user agent %q, requests %q", agent, seen)
	}
}

// A session's bodies are cut off at its cap, which counts every body of
// the session: a body of the cap's size is read whole, one over it fails
// with ErrTooLarge whether its length is announced or found while reading,
// and so does a body that takes the session over the cap.
func TestSessionCap(t *testing.T) {
	plain, _ := servers(t)
	for _, tc := range []struct {
		max   int64
		paths []string
		want  error
	}{
		{5, []string{"/ok"}, nil},
		{5, []string{"/big"}, ErrTooLarge},
		{5, []string{"/bigstream"}, ErrTooLarge},
		{9, []string{"/ok", "/ok"}, ErrTooLarge},
	} {
		client := NewSession(tc.max, nil, nil)
		var err error
		for _, path := range tc.paths {
			resp, getErr := client.Get(plain.URL + path)
			if err = getErr; err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
		}
		if !errors.Is(err, tc.want) || (tc.want != nil && !strings.Contains(err.Error(), fmt.Sprintf("more than %d bytes in all", tc.max))) {
			t.Errorf("%s: %v, want %v", tc.paths, err, tc.want)
		}
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
