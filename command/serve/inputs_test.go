package serve

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/internal/prereq"
)

// The inputs of a site whose tools live in another repository, checked
// out as a linked worktree: its refs are in the main repository.
func TestInputs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		prereq.Missing(t, "git is not installed (apt-get install git)")
	}
	root := t.TempDir()
	siteDir, main, linked := filepath.Join(root, "site"), filepath.Join(root, "main"), filepath.Join(root, "linked")
	for _, dir := range []string{siteDir, main} {
		writeFile(t, filepath.Join(dir, "README"), "x\n")
		git(t, dir, "init", "-q")
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", "first")
	}
	git(t, main, "worktree", "add", "-q", linked)

	config := filepath.Join(siteDir, "site.toml")
	writeFile(t, config, `base_url = "https://example.com/"

[signing]
key_file = "keys/site.pem"

[[servers]]
name = "com.example/local"
description = "Local tools."
version = "1.0.0"
tools = "content/tools/**/*.json"

[[servers]]
import = "imports/server.json"
tools = "schemas/*.json"
repo = "../linked"
`)
	writeFile(t, filepath.Join(siteDir, "imports", "server.json"), `{"name": "com.example/other", "description": "Other tools.", "version": "1.0.0"}`)
	cfg, err := site.Load(config, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := inputs(cfg, "flag.pem")
	siteGit, mainGit := filepath.Join(siteDir, ".git"), filepath.Join(main, ".git")
	linkedGit := filepath.Join(mainGit, "worktrees", "linked")
	wantTrees := []string{
		filepath.Join(siteDir, "content"),
		filepath.Join(siteDir, "templates"),
		filepath.Join(siteDir, "content", "tools"),
		filepath.Join(linked, "schemas"),
		filepath.Join(siteGit, "refs"),
		filepath.Join(mainGit, "refs"),
	}
	wantFiles := []string{
		config,
		filepath.Join(siteDir, "imports", "server.json"),
		"flag.pem",
		filepath.Join(siteDir, "keys", "site.pem"),
		filepath.Join(siteGit, "HEAD"),
		filepath.Join(siteGit, "packed-refs"),
		filepath.Join(siteGit, "shallow"),
		filepath.Join(siteGit, "config"),
		filepath.Join(linkedGit, "HEAD"),
		filepath.Join(mainGit, "packed-refs"),
		filepath.Join(mainGit, "shallow"),
		filepath.Join(mainGit, "config"),
	}
	if !slices.Equal(got.Trees, wantTrees) {
		t.Errorf("trees:\n%q\nwant:\n%q", got.Trees, wantTrees)
	}
	if !slices.Equal(got.Files, wantFiles) {
		t.Errorf("files:\n%q\nwant:\n%q", got.Files, wantFiles)
	}
}

// The entity card's attestation token and provider key files are read by
// every build, wherever they are: an edit to either rebuilds.
func TestInputsHoldTheAttestationFiles(t *testing.T) {
	config := exampleSite(t)
	dir := filepath.Dir(config)
	line := `capabilities = ["forecast", "alerts"]`
	editFile(t, config, line, line+"\n\n[entity.entities.mcps.verification]\nsignature_file = \"attest/token.jwt\"\npublic_key_file = \"attest/provider.pem\"")
	cfg, err := site.Load(config, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := inputs(cfg, "").Files
	for _, want := range []string{filepath.Join(dir, "attest", "token.jwt"), filepath.Join(dir, "attest", "provider.pem")} {
		if !slices.Contains(got, want) {
			t.Errorf("the watched files %q lack %s", got, want)
		}
	}
}
