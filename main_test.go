package main

import (
	"os"
	"path/filepath"
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
	})
}

// enterExampleSite commits the example site to a new repository, makes it
// the working directory and returns it, with the test key in the
// environment and CI unset.
func enterExampleSite(t *testing.T) string {
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
