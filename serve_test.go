package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/generator/serve"
	"github.com/wellknown-dev/wellknown/generator/site"
)

// wellknown serve binds 127.0.0.1 by default, prints its URL, serves the
// site, warns when it listens beyond this machine, signs with the
// development key in a fresh clone that has no key file, and stops cleanly
// on Ctrl-C.
func TestServeCommand(t *testing.T) {
	dir := t.TempDir()
	if err := commitExampleSite(dir); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	config, err := os.ReadFile("site.toml")
	if err != nil {
		t.Fatal(err)
	}
	config = []byte(strings.Replace(string(config), `# key_file = "signing.key"`, `key_file = "signing.key"`, 1))
	if err := os.WriteFile("site.toml", config, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		addr, url, key, warning string
	}{
		{"", "http://127.0.0.1:1313/", testKey, ""},
		{"0.0.0.0:0", "http://", testKey, "wellknown: warning: listening on 0.0.0.0:0, beyond this machine"},
		{"127.0.0.1:0", "http://127.0.0.1:", "", "wellknown: notice: signing.key is missing (a fresh clone has none): this preview is signed with the development key .wellknown/dev.key\n"},
	} {
		t.Setenv("WELLKNOWN_SIGNING_KEY", tc.key)
		args := []string{"serve"}
		if tc.addr != "" {
			args = append(args, "--addr", tc.addr)
		}
		out, outW := io.Pipe()
		var stderr strings.Builder
		done := make(chan int, 1)
		go func() {
			done <- run(args, outW, &stderr)
			outW.Close()
		}()
		lines := bufio.NewScanner(out)
		var url string
		for lines.Scan() {
			if u, ok := strings.CutPrefix(lines.Text(), "serving "); ok {
				url, _, _ = strings.Cut(u, " ")
				break
			}
		}
		if url == "" && strings.Contains(stderr.String(), "address already in use") {
			t.Logf("skipping serve %v: the port is taken on this machine", args)
			continue
		}
		if !strings.HasPrefix(url, tc.url) {
			t.Fatalf("serve %v printed URL %q, want one starting %s\nstderr: %s", args, url, tc.url, stderr.String())
		}
		go io.Copy(io.Discard, out)
		resp, err := http.Get(strings.Replace(url, "0.0.0.0", "127.0.0.1", 1))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", url, resp.Status)
		}
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("serve exited %d after Ctrl-C\n%s", code, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("serve did not stop on Ctrl-C")
		}
		if tc.warning != "" && !strings.Contains(stderr.String(), tc.warning) {
			t.Errorf("stderr lacks %q:\n%s", tc.warning, stderr.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "public")); !os.IsNotExist(err) {
			t.Errorf("serve wrote public/ (%v)", err)
		}
	}
}

// A rebuild prints only the warnings the build before it did not have: a
// host's warning that holds for the whole session appears once, one that
// comes back after it went away appears again.
func TestServeWarningsOnce(t *testing.T) {
	var stderr strings.Builder
	p := &servePrinter{cli: &cli{io.Discard, &stderr}}
	host, uncommitted := "GitHub Pages cannot set headers", "uncommitted changes are not in the change feed"
	for _, warnings := range [][]string{{host}, {uncommitted, host}, {host}, {host, uncommitted}} {
		res := &generator.Result{Config: &site.Config{BaseURL: "https://example.com/"}, Warnings: warnings}
		p.build(serve.Build{Result: res, Changed: []string{"x"}})
	}
	want := "wellknown: warning: " + host + "\n" +
		"wellknown: warning: " + uncommitted + "\n" +
		"wellknown: warning: " + uncommitted + "\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
}
