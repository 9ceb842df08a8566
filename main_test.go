package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/wellknown-dev/wellknown/internal/gittest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"wellknown": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI scripts in testdata/script. Each starts in a git
// repository holding a commit of the example site (site.toml and content/).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			return commitExampleSite(env.WorkDir)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"host": host},
	})
}

// host VAR STATUS|closed starts a loopback web server that answers every
// request with STATUS (or, closed, an address nothing listens on) and sets
// VAR to its URL, for the script's lifetime.
func host(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: host VAR STATUS|closed")
	}
	if args[1] == "closed" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		ts.Setenv(args[0], "http://"+l.Addr().String())
		l.Close()
		return
	}
	status, err := strconv.Atoi(args[1])
	ts.Check(err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(status) }))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}

// inExampleSite commits the example site to a new repository, makes it the
// working directory, with the test key and outside CI, and returns it.
func inExampleSite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := commitExampleSite(dir); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("WELLKNOWN_SIGNING_KEY", testKey)
	t.Setenv("CI", "")
	return dir
}

// commitExampleSite commits a copy of the example site to a new repository
// in dir.
func commitExampleSite(dir string) error {
	if err := gittest.CopyExampleSite(dir, false); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "--no-gpg-sign", "-m", "the example site"}} {
		if _, err := gittest.Run(dir, gittest.FirstCommit, args...); err != nil {
			return err
		}
	}
	return nil
}
