package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"wellknown": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the CLI scripts in testdata/script. Each starts in a
// directory holding a copy of the example site (site.toml and content/).
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			return copyExampleSite(env.WorkDir)
		},
	})
}

// copyExampleSite copies site.example.toml (as site.toml) and content/ into dir.
func copyExampleSite(dir string) error {
	if err := copyPath("site.example.toml", filepath.Join(dir, "site.toml")); err != nil {
		return err
	}
	return filepath.WalkDir("content", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return copyPath(p, filepath.Join(dir, p))
	})
}

func copyPath(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}
