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

	"github.com/wellknown-dev/wellknown/command/serve"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/gittest"
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
		url, stop := startServe(t, args)
		if url == "" {
			continue
		}
		if !strings.HasPrefix(url, tc.url) {
			_, stderr := stop()
			t.Fatalf("serve %v printed URL %q, want one starting %s\nstderr: %s", args, url, tc.url, stderr)
		}
		resp, err := http.Get(strings.Replace(url, "0.0.0.0", "127.0.0.1", 1))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", url, resp.Status)
		}
		code, stderr := stop()
		if code != 0 {
			t.Errorf("serve exited %d after Ctrl-C\n%s", code, stderr)
		}
		if tc.warning != "" && !strings.Contains(stderr, tc.warning) {
			t.Errorf("stderr lacks %q:\n%s", tc.warning, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "public")); !os.IsNotExist(err) {
			t.Errorf("serve wrote public/ (%v)", err)
		}
	}
}

// startServe runs wellknown with args (a serve command) until it prints
// the URL it serves, and returns that URL and what stops it with Ctrl-C,
// giving its exit status and standard error. The URL is "" when the
// address is taken on this machine: the caller skips that case.
func startServe(t *testing.T, args []string) (string, func() (int, string)) {
	t.Helper()
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
	go io.Copy(io.Discard, out)
	stop := func() (int, string) {
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		select {
		case code := <-done:
			return code, stderr.String()
		case <-time.After(10 * time.Second):
			t.Fatal("serve did not stop on Ctrl-C")
			return 0, ""
		}
	}
	if url == "" {
		code := <-done
		if strings.Contains(stderr.String(), "address already in use") {
			t.Logf("skipping serve %v: the port is taken on this machine", args)
			return "", nil
		}
		t.Fatalf("serve %v exited %d without serving:\n%s", args, code, stderr.String())
	}
	return url, stop
}

// A second person's fresh clone of a site init made previews with one
// command: the clone has no signing.key, and serve signs the preview with
// the development key, with the whole feed.
func TestServeFreshClone(t *testing.T) {
	t.Setenv("WELLKNOWN_SIGNING_KEY", "")
	t.Setenv("CI", "true")
	dir := t.TempDir()
	site, clone := filepath.Join(dir, "site"), filepath.Join(dir, "clone")
	var initOut strings.Builder
	if code := run([]string{"init", site}, io.Discard, &initOut); code != 0 {
		t.Fatalf("init exited %d:\n%s", code, initOut.String())
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "--no-gpg-sign", "-m", "the site"}} {
		if _, err := gittest.Run(site, gittest.FirstCommit, args...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := gittest.Run(dir, gittest.FirstCommit, "clone", "-q", site, clone); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(clone, "signing.key")); !os.IsNotExist(err) {
		t.Fatalf("the clone has a signing.key (%v): git let the key in", err)
	}
	t.Chdir(clone)
	url, stop := startServe(t, []string{"serve", "--addr", "127.0.0.1:0"})
	if url == "" {
		return
	}
	resp, err := http.Get(url + ".well-known/agent-feed.xml")
	if err != nil {
		t.Fatal(err)
	}
	feed, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	code, stderr := stop()
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(feed), "<title>greet 1.0.0 published</title>") {
		t.Errorf("GET the feed: %s, %v; want the feed with greet:\n%s", resp.Status, err, feed)
	}
	if want := "wellknown: notice: signing.key is missing (a fresh clone has none): this preview is signed with the development key .wellknown/dev.key\n"; code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("serve exited %d; stderr lacks %q:\n%s", code, want, stderr)
	}
}

// A rebuild prints only the warnings the build before it did not have: a
// host's warning that holds for the whole session appears once, one that
// comes back after it went away appears again. Each build makes its
// warnings anew: they are compared by what they say.
func TestServeWarningsOnce(t *testing.T) {
	var stderr strings.Builder
	p := &servePrinter{cli: &cli{stdout: io.Discard, stderr: &stderr}}
	host := func() *diag.Error { return diag.Errorf("site.toml", 4, "GitHub Pages cannot set headers") }
	uncommitted := func() *diag.Error {
		return diag.Errorf("", 0, "uncommitted changes are not in the change feed").WithHint("commit them")
	}
	for _, warnings := range [][]func() *diag.Error{{host}, {uncommitted, host}, {host}, {host, uncommitted}} {
		res := &generator.Result{Config: &site.Config{BaseURL: "https://example.com/"}}
		for _, w := range warnings {
			res.Warnings = append(res.Warnings, w())
		}
		p.build(serve.Build{Result: res, Changed: []string{"x"}})
	}
	want := "wellknown: warning: site.toml:4: GitHub Pages cannot set headers\n" +
		"wellknown: warning: uncommitted changes are not in the change feed\nwellknown: hint: commit them\n" +
		"wellknown: warning: uncommitted changes are not in the change feed\nwellknown: hint: commit them\n"
	if stderr.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr.String(), want)
	}
}
