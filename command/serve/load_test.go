package serve

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Many clients fetch every file while the site is rebuilt under them: no
// request fails and every body matches the ETag sent with it, so no
// response mixes two builds. The rebuilds really happen during the load:
// the home page is seen in more than one version.
func TestLoadDuringRebuilds(t *testing.T) {
	requests, clients := 20000, 50
	if testing.Short() {
		requests = 2000
	}
	config := exampleSite(t)
	h := serveSite(t, config, Options{Debounce: 10 * time.Millisecond})
	// The edits below rename a tool, so its pages come and go: leave them out.
	var paths []string
	for p := range h.srv.state.Load().files {
		if !hostOnly[p] && !strings.HasPrefix(p, "/servers/forecast/tools/") {
			paths = append(paths, p)
		}
	}
	tool := filepath.Join(filepath.Dir(config), "content", "servers", "forecast", "tools", "get_forecast.json")

	var sent atomic.Int64
	var mu sync.Mutex
	var failures []string
	homeVersions := map[string]bool{}
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 10 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}

	// Rebuild until the load is over, a few times a second: often enough
	// to land under many requests, seldom enough to leave the CPU to them.
	done := make(chan struct{})
	edits := make(chan int, 1)
	go func() {
		n := 0
		defer func() { edits <- n }()
		for {
			before := len(h.rebuilds())
			n++
			if err := renameTool(tool, fmt.Sprintf("get_forecast_%d", n)); err != nil {
				fail("edit: %v", err)
				return
			}
			for len(h.rebuilds()) == before {
				select {
				case <-done:
					return
				case <-time.After(time.Millisecond):
				}
			}
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()

	start := time.Now()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := c; ; i += clients {
				if sent.Add(1) > int64(requests) {
					return
				}
				p := paths[i%len(paths)]
				resp, err := h.client.Get(h.url + p)
				if err != nil {
					fail("GET %s: %v", p, err)
					continue
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch {
				case err != nil:
					fail("GET %s: reading the body: %v", p, err)
				case resp.StatusCode != http.StatusOK:
					fail("GET %s: %s", p, resp.Status)
				case resp.Header.Get("ETag") != etagOf(body):
					fail("GET %s: a torn response: ETag %s, body hashes to %s", p, resp.Header.Get("ETag"), etagOf(body))
				case p == "/index.html":
					mu.Lock()
					homeVersions[etagOf(body)] = true
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	close(done)
	n := <-edits
	elapsed := time.Since(start)
	t.Logf("%d requests from %d clients in %v (%.0f/s) during %d edits; %d versions of the home page seen",
		requests, clients, elapsed.Round(time.Millisecond), float64(requests)/elapsed.Seconds(), n, len(homeVersions))
	for _, f := range failures {
		t.Error(f)
	}
	if len(homeVersions) < 2 {
		t.Errorf("the home page was served in %d version(s) during the load: no rebuild happened under it", len(homeVersions))
	}
}

// renameTool gives the tool in a file a new name.
func renameTool(file, name string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return os.WriteFile(file, toolName.ReplaceAll(data, []byte(`"name": "`+name+`"`)), 0o644)
}
