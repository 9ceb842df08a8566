package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/generator"

	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// deadline bounds every wait for the server to catch up with a change.
const deadline = 15 * time.Second

// testSeed is the signing key of every test build (not a secret).
var testSeed = bytes.Repeat([]byte{0x42}, ed25519.SeedSize)

// testEnv supplies the test key the way CI does, through the environment.
func testEnv(name string) string {
	if name == "WELLKNOWN_SIGNING_KEY" {
		return base64.RawURLEncoding.EncodeToString(testSeed)
	}
	return ""
}

// exampleSite copies the repository's example site (site.example.toml as
// site.toml, and content/) into a temporary directory, not a git repository,
// and returns the site.toml path.
func exampleSite(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := gittest.CopyExampleSite(dir, false); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "site.toml")
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editFile rewrites a file in place, failing if the edit changes nothing.
func editFile(t testing.TB, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	writeFile(t, path, strings.Replace(string(data), old, new, 1))
}

// appendFile adds text at the end of a file.
func appendFile(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(text)
	if err := errors.Join(err, f.Close()); err != nil {
		t.Fatal(err)
	}
}

// buildOptions builds a site with the test key.
func buildOptions(config string) generator.Options {
	return generator.Options{ConfigPath: config, Getenv: testEnv}
}

// harness is a running server and what it reported.
type harness struct {
	t      testing.TB
	srv    *Server
	url    string // without the trailing slash
	client *http.Client

	mu     sync.Mutex
	builds []Build
}

// serveSite starts a server for the site on a free loopback port, built
// with the test key unless opt.Build says otherwise; it stops when the test
// ends.
func serveSite(t testing.TB, config string, opt Options) *harness {
	t.Helper()
	h := &harness{t: t, client: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     &http.Transport{MaxIdleConnsPerHost: 100},
	}}
	if opt.Build.ConfigPath == "" {
		opt.Build = buildOptions(config)
	}
	opt.Addr = "127.0.0.1:0"
	opt.OnBuild = func(b Build) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.builds = append(h.builds, b)
	}
	opt.OnWatchError = func(err error) { t.Errorf("watch error: %v", err) }
	srv, err := New(opt)
	if err != nil {
		t.Fatalf("serve %s: %v", config, err)
	}
	h.srv, h.url = srv, strings.TrimSuffix(srv.URL(), "/")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	return h
}

// do sends a request; header is name, value pairs.
func (h *harness) do(method, path string, header ...string) (*http.Response, []byte) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.url+path, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1] // net/http sends req.Host, never a Host header field
			continue
		}
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp, body
}

func (h *harness) get(path string, header ...string) (*http.Response, []byte) {
	h.t.Helper()
	return h.do(http.MethodGet, path, header...)
}

// page returns the body of a path that must answer 200.
func (h *harness) page(path string) string {
	h.t.Helper()
	resp, body := h.get(path)
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("GET %s: %s", path, resp.Status)
	}
	return string(body)
}

// rebuilds returns the builds reported so far (the first one included).
func (h *harness) rebuilds() []Build {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Build(nil), h.builds...)
}

// awaitRebuild waits for a build after the first n that was caused by a
// change to path (or to something inside it).
func (h *harness) awaitRebuild(n int, path string) Build {
	h.t.Helper()
	var found Build
	eventually(h.t, "a rebuild after a change to "+path, func() error {
		for _, b := range h.rebuilds()[n:] {
			for _, c := range b.Changed {
				if c == path || strings.HasPrefix(c, path+string(filepath.Separator)) {
					found = b
					return nil
				}
			}
		}
		return fmt.Errorf("builds: %v", h.rebuilds())
	})
	return found
}

// eventually polls check until it succeeds or the deadline passes.
func eventually(t testing.TB, what string, check func() error) {
	t.Helper()
	stop := time.Now().Add(deadline)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(stop) {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// awaitPage waits until a page contains want.
func (h *harness) awaitPage(path, want string) string {
	h.t.Helper()
	var page string
	eventually(h.t, fmt.Sprintf("%s to show %q", path, want), func() error {
		page = h.page(path)
		if !strings.Contains(page, want) {
			return fmt.Errorf("it does not")
		}
		return nil
	})
	return page
}

// stream is an open live-reload event stream.
type stream struct {
	versions chan string
	body     io.Closer
}

// events connects to the live-reload stream.
func (h *harness) events() *stream {
	h.t.Helper()
	resp, err := h.client.Get(h.url + EventsPath)
	if err != nil {
		h.t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		h.t.Fatalf("GET %s: %s, Content-Type %q", EventsPath, resp.Status, ct)
	}
	s := &stream{versions: make(chan string, 100), body: resp.Body}
	go func() {
		defer close(s.versions)
		sc := bufio.NewScanner(resp.Body)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				event = v
			}
			if v, ok := strings.CutPrefix(line, "data: "); ok && event == "reload" {
				s.versions <- v
			}
		}
	}()
	h.t.Cleanup(func() { resp.Body.Close() })
	return s
}

// next returns the next version the stream sends.
func (s *stream) next(t testing.TB) string {
	t.Helper()
	select {
	case v, ok := <-s.versions:
		if !ok {
			t.Fatal("the event stream ended")
		}
		return v
	case <-time.After(deadline):
		t.Fatalf("no reload event within %v", deadline)
		return ""
	}
}

// git runs git in dir with a fixed identity and date and no user configuration.
func git(t testing.TB, dir string, args ...string) {
	t.Helper()
	if _, err := gittest.Run(dir, gittest.FirstCommit, args...); err != nil {
		t.Fatal(err)
	}
}
