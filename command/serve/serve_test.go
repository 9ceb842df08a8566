package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/prereq"
)

// toolName is the name member of the example's tool files (the only
// top-level member called name).
var toolName = regexp.MustCompile(`"name": "get_[a-z0-9_]+"`)

// Editing any input the build reads shows on the served site, one step
// after the other on one running server.
func TestLiveEdits(t *testing.T) {
	config := exampleSite(t)
	dir := filepath.Dir(config)
	h := serveSite(t, config, Options{})
	tool := filepath.Join(dir, "content", "servers", "forecast", "tools", "get_forecast.json")
	if !strings.Contains(h.page("/"), "get_forecast") {
		t.Fatal("the home page does not list get_forecast")
	}

	t.Run("tool file", func(t *testing.T) {
		editFile(t, tool, `"name": "get_forecast"`, `"name": "get_daily_forecast"`)
		h.awaitPage("/", "get_daily_forecast")
	})

	t.Run("save by rename", func(t *testing.T) {
		for _, name := range []string{"get_forecast_v2", "get_forecast_v3"} {
			data, err := os.ReadFile(tool)
			if err != nil {
				t.Fatal(err)
			}
			edited := toolName.ReplaceAllString(string(data), `"name": "`+name+`"`)
			writeFile(t, tool+".partial", edited)
			if err := os.Rename(tool+".partial", tool); err != nil {
				t.Fatal(err)
			}
			h.awaitPage("/", name)
		}
	})

	t.Run("new directory", func(t *testing.T) {
		deep := filepath.Join(dir, "content", "servers", "alerts", "tools", "archive", "2025")
		writeFile(t, filepath.Join(deep, "check_alert.json"),
			`{"name": "check_alert", "description": "Checks one alert.", "inputSchema": {"type": "object"}}`)
		h.awaitPage("/", "check_alert")
		// The new directory is watched: a later edit inside it shows too.
		writeFile(t, filepath.Join(deep, "check_alert.json"),
			`{"name": "check_one_alert", "description": "Checks one alert.", "inputSchema": {"type": "object"}}`)
		h.awaitPage("/", "check_one_alert")
	})

	t.Run("site.toml", func(t *testing.T) {
		editFile(t, config, `title = "Example Weather Co."`, `title = "Example Weather Company"`)
		h.awaitPage("/", "Example Weather Company")
	})

	t.Run("template override", func(t *testing.T) {
		// The templates directory does not exist yet; creating it and an
		// override rebuilds.
		n := len(h.rebuilds())
		templates := filepath.Join(dir, "templates")
		writeFile(t, filepath.Join(templates, "index.html"), `{{define "main"}}<h1>{{.Site.Title}}</h1>{{end}}`)
		h.awaitRebuild(n, templates)
	})

	t.Run("broken site.toml", func(t *testing.T) {
		good, err := os.ReadFile(config)
		if err != nil {
			t.Fatal(err)
		}
		// An unknown key, reported at its line.
		line := strings.Count(string(good[:strings.Index(string(good), "[feed]")]), "\n") + 2
		editFile(t, config, "[feed]", "[feed]\nstatsu = \"active\"")
		page := h.awaitPage("/", `id="wellknown-overlay"`)
		if want := fmt.Sprintf("site.toml:%d:", line); !strings.Contains(page, want) {
			t.Errorf("the overlay does not name %s:\n%s", want, page)
		}
		if !strings.Contains(page, "Example Weather Company") {
			t.Error("the last good build is not served under the overlay")
		}
		if resp, _ := h.get("/.well-known/did.json"); resp.StatusCode != http.StatusOK {
			t.Errorf("did.json during the failure: %s", resp.Status)
		}
		builds := h.rebuilds()
		var d *diag.Error
		if last := builds[len(builds)-1]; !errors.As(last.Err, &d) || d.Line != line {
			t.Errorf("the reported build error is %v, want a *diag.Error at line %d", last.Err, line)
		}

		writeFile(t, config, string(good))
		eventually(t, "the overlay to clear", func() error {
			if strings.Contains(h.page("/"), "wellknown-overlay") {
				return errors.New("it is still shown")
			}
			return nil
		})
	})

	if _, err := os.Stat(filepath.Join(dir, "public")); !os.IsNotExist(err) {
		t.Errorf("serve wrote public/ (stat: %v)", err)
	}
}

// The stream sends the version of what is served on connecting and after
// every rebuild, once the new build is in place.
func TestReloadEvents(t *testing.T) {
	config := exampleSite(t)
	h := serveSite(t, config, Options{})
	events := h.events()
	first := events.next(t)
	if !strings.Contains(h.page("/"), `"`+first+`"`) {
		t.Fatalf("the home page does not carry the version %s the stream sent", first)
	}
	editFile(t, filepath.Join(filepath.Dir(config), "content", "servers", "forecast", "tools", "get_forecast.json"),
		`"name": "get_forecast"`, `"name": "get_daily_forecast"`)
	second := events.next(t)
	if second == first {
		t.Fatalf("the reload event after an edit repeats the version %s", first)
	}
	// The event comes after the swap: the page is already the new one.
	if page := h.page("/"); !strings.Contains(page, `"`+second+`"`) || !strings.Contains(page, "get_daily_forecast") {
		t.Fatalf("after the reload event, the home page is not the rebuilt one:\n%s", page)
	}
	// JSON documents carry no script.
	if _, body := h.get("/.well-known/ai-catalog.json"); strings.Contains(string(body), EventsPath) {
		t.Error("the live-reload script was injected into a JSON document")
	}
}

// A live-reload stream outlasts the write timeout, which bounds each event
// instead.
func TestReloadStreamOutlastsWriteTimeout(t *testing.T) {
	const writeTimeout = 50 * time.Millisecond
	config := exampleSite(t)
	h := serveSite(t, config, Options{WriteTimeout: writeTimeout})
	events := h.events()
	first := events.next(t)
	time.Sleep(2 * writeTimeout) // the server's own deadline has passed
	editFile(t, filepath.Join(filepath.Dir(config), "content", "servers", "forecast", "tools", "get_forecast.json"),
		`"name": "get_forecast"`, `"name": "get_daily_forecast"`)
	if second := events.next(t); second == first {
		t.Errorf("the reload event repeats the version %s", first)
	}
}

// A commit, a checkout and packing refs each rebuild the site, whose feed
// comes from git history.
func TestGitRefsRebuild(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		prereq.Missing(t, "git is not installed (apt-get install git)")
	}
	config := exampleSite(t)
	dir := filepath.Dir(config)
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "first")
	h := serveSite(t, config, Options{})
	dotgit := filepath.Join(dir, ".git")

	n := len(h.rebuilds())
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "second")
	h.awaitRebuild(n, filepath.Join(dotgit, "refs"))

	n = len(h.rebuilds())
	git(t, dir, "checkout", "-q", "-b", "feature")
	h.awaitRebuild(n, filepath.Join(dotgit, "HEAD"))

	n = len(h.rebuilds())
	git(t, dir, "pack-refs", "--all")
	h.awaitRebuild(n, filepath.Join(dotgit, "packed-refs"))

	// Staging changes nothing a build reads.
	for _, b := range h.rebuilds() {
		for _, c := range b.Changed {
			if strings.HasPrefix(c, filepath.Join(dotgit, "objects")) || c == filepath.Join(dotgit, "index") {
				t.Errorf("a rebuild was caused by %s", c)
			}
		}
	}
}

// Serving a site before its git init, as the quick start does: the first
// commit fills the feed, with no other edit.
func TestGitInitWhileServing(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		prereq.Missing(t, "git is not installed (apt-get install git)")
	}
	config := exampleSite(t)
	dir := filepath.Dir(config)
	h := serveSite(t, config, Options{})
	if n := h.rebuilds()[0].Result.Counts.Entries; n != 0 {
		t.Fatalf("the feed has %d entries before any commit", n)
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "first")
	eventually(t, "a rebuild whose feed has entries", func() error {
		builds := h.rebuilds()
		if last := builds[len(builds)-1]; last.Result == nil || last.Result.Counts.Entries == 0 {
			return fmt.Errorf("builds: %v", builds)
		}
		return nil
	})
	h.awaitPage("/.well-known/agent-feed.xml", "<entry")
}

// A shallow clone is previewed, with the build's warning, where a build
// needs --allow-shallow.
func TestShallowClonePreview(t *testing.T) {
	dir := filepath.Dir(gitExampleSite(t))
	commitAll(t, dir)
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "second")
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, dir, "clone", "-q", "--depth=1", "file://"+dir, clone)
	h := serveSite(t, filepath.Join(clone, "site.toml"), Options{})
	warnings := h.rebuilds()[0].Result.Warnings
	if !slices.ContainsFunc(warnings, func(w *diag.Error) bool { return strings.Contains(w.Msg, "is a shallow clone") }) {
		t.Errorf("the preview of a shallow clone does not warn: %q", warnings)
	}
}

// Polling finds the same changes on file systems without events.
func TestPollEdits(t *testing.T) {
	config := exampleSite(t)
	h := serveSite(t, config, Options{Poll: 20 * time.Millisecond})
	editFile(t, config, `title = "Example Weather Co."`, `title = "Example Weather Company"`)
	h.awaitPage("/", "Example Weather Company")
}

// A tool file over the limits is refused by serve as by build: the
// overlay names the file and the line, over the last good build.
func TestToolFileOverLimits(t *testing.T) {
	config := exampleSite(t)
	h := serveSite(t, config, Options{})
	deep := filepath.Join(filepath.Dir(config), "content", "servers", "forecast", "tools", "deep.json")
	writeFile(t, deep, `{"name": "deep", "inputSchema": {"type": "object", "x": `+strings.Repeat("[", 1000)+strings.Repeat("]", 1000)+`}}`)
	page := h.awaitPage("/", `id="wellknown-overlay"`)
	if want := "deep.json:1: objects and arrays nest more than 64 deep (the limit)"; !strings.Contains(page, want) {
		t.Errorf("the overlay does not say %q:\n%s", want, page)
	}
	eventually(t, "the build error to be tools.ErrLimit", func() error {
		builds := h.rebuilds()
		if last := builds[len(builds)-1]; !errors.Is(last.Err, tools.ErrLimit) {
			return fmt.Errorf("the last build's error is %v", last.Err)
		}
		return nil
	})
}

// A first build that fails is New's error, and the port is let go.
func TestFirstBuildFails(t *testing.T) {
	config := exampleSite(t)
	editFile(t, config, "[feed]", "[feed")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = New(Options{Build: buildOptions(config), Addr: addr})
	var d *diag.Error
	if !errors.As(err, &d) || !strings.HasSuffix(d.File, "site.toml") || d.Line == 0 {
		t.Fatalf("New = %v, want the site.toml error with its line", err)
	}
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the port is still taken after a failed start: %v", err)
	}
	ln.Close()
}

// A busy port fails before any build, with the way out.
func TestAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = New(Options{Build: buildOptions(filepath.Join(t.TempDir(), "missing.toml")), Addr: ln.Addr().String()})
	if !strings.Contains(fmt.Sprint(err), "cannot listen") || !strings.Contains(diag.Hint(err), "--addr") {
		t.Fatalf("New on a busy port = %v (hint %q)", err, diag.Hint(err))
	}
}

// CI=true demands a real key of a deploy build, never of a preview.
func TestPreviewAllowsDevelopmentKey(t *testing.T) {
	ci := func(name string) string {
		if name == "CI" {
			return "true"
		}
		return ""
	}
	config := exampleSite(t)
	h := serveSite(t, "", Options{Build: generator.Options{ConfigPath: config, Strict: true, Getenv: ci}})
	if key := h.rebuilds()[0].Result.Key; !key.Dev {
		t.Errorf("the preview is signed with %s, want a development key", key.Source)
	}
	h.page("/.well-known/did.json")
}

// In a fresh clone the key file site.toml names is missing (it is never
// committed): the preview signs with the development key and says which
// file it stands in for, where a build fails.
func TestPreviewStandsInForMissingKeyFile(t *testing.T) {
	config := exampleSite(t)
	editFile(t, config, `# key_file = "signing.key"`, `key_file = "signing.key"`)
	noKey := func(string) string { return "" }
	if _, err := generator.Build(generator.Options{ConfigPath: config, Getenv: noKey}); err == nil || !strings.Contains(diag.Hint(err), "restore the site's key") {
		t.Fatalf("a build without its key file = %v (hint %q), want the error that says to restore it", err, diag.Hint(err))
	}
	h := serveSite(t, "", Options{Build: generator.Options{ConfigPath: config, Getenv: noKey}})
	key := h.rebuilds()[0].Result.Key
	if want := filepath.Join(filepath.Dir(config), "signing.key"); !key.Dev || key.Missing != want {
		t.Errorf("the preview is signed with %s (dev %v), standing in for %q; want the development key for %s", key.Source, key.Dev, key.Missing, want)
	}
	h.page("/.well-known/did.json")
}

// Stopping ends open live-reload streams instead of waiting for them.
func TestShutdownEndsStreams(t *testing.T) {
	config := exampleSite(t)
	srv, err := New(Options{Build: buildOptions(config), Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	h := &harness{t: t, srv: srv, url: strings.TrimSuffix(srv.URL(), "/"), client: http.DefaultClient}
	events := h.events()
	events.next(t)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(deadline):
		t.Fatal("the server did not stop")
	}
	if _, open := <-events.versions; open {
		t.Error("the event stream is still open after shutdown")
	}
}

// A connection opened ahead of need (as browsers do) and never used does
// not hold up stopping the server: http.Server.Shutdown alone would count
// it as active for 5 s, past a shorter shutdown timeout.
func TestStopWithUnusedConnection(t *testing.T) {
	opt := Options{Build: buildOptions(exampleSite(t)), Addr: "127.0.0.1:0", ShutdownTimeout: time.Second}
	srv, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	conn, err := net.Dial("tcp", srv.listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	eventually(t, "the connection to be accepted", func() error {
		srv.unused.mu.Lock()
		defer srv.unused.mu.Unlock()
		if len(srv.unused.conns) == 0 {
			return errors.New("not yet")
		}
		return nil
	})
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	conn.SetReadDeadline(time.Now().Add(deadline))
	if n, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("the unused connection: read %d bytes, %v; want it closed", n, err)
	}
}
