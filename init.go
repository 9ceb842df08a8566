package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wellknown-dev/wellknown/generator/deploy"
	"github.com/wellknown-dev/wellknown/generator/didweb"
	"github.com/wellknown-dev/wellknown/generator/scaffold"
	"github.com/wellknown-dev/wellknown/generator/site"
	"github.com/wellknown-dev/wellknown/internal/release"
)

// exampleBaseURL is the base URL of a site created without --base-url.
const exampleBaseURL = "https://example.com/"

func (c *cli) initSite(args []string) int {
	fs := c.newFlags("init", "[--host HOST] [--base-url URL] [--sync-url URL] [--force] [DIR]")
	host := fs.String("host", site.HostGitHubPages, "where the site is deployed: "+strings.Join(scaffold.Hosts, ", "))
	baseURL := fs.String("base-url", exampleBaseURL, "the https origin the site will be published at")
	syncURL := fs.String("sync-url", "", "add a daily workflow that syncs the tools from the server at this URL and opens a pull request when they changed")
	force := fs.Bool("force", false, "overwrite files that exist (never a signing key)")
	if code, done := c.parse(fs, args); done {
		return code
	}
	if fs.NArg() > 1 {
		c.errorf("init takes one directory (got %q)", strings.Join(fs.Args(), " "))
		return 2
	}
	dir := "."
	if fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	opt := scaffold.Options{Host: *host, BaseURL: *baseURL, Version: release.InstallVersion(), SyncURL: *syncURL}
	files, err := scaffold.Files(opt)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	if err := scaffold.Write(dir, files, *force); err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.stdout, "created a site for %s in %s, deployed with %s:\n", *baseURL, dir, *host)
	for _, f := range files {
		fmt.Fprintf(c.stdout, "  %s\n", f.Path)
	}
	if err := c.initKey(filepath.Join(dir, scaffold.KeyFile), *host); err != nil {
		return c.fail(err)
	}
	for _, f := range scaffold.Leftovers(dir, opt) {
		c.warnf("%s is from another host's recipe and still deploys the site there; remove it if the site moved", filepath.Join(dir, f))
	}
	if *baseURL == exampleBaseURL {
		c.noticef("the site's base URL is the placeholder %s; run init again with --base-url and --force, or edit site.toml and the deploy files", exampleBaseURL)
	}
	c.printNextSteps(dir, *host, *baseURL)
	return 0
}

// printNextSteps lists what comes after init, from a preview to a deploy.
func (c *cli) printNextSteps(dir, host, baseURL string) {
	cd := ""
	if dir != "." {
		cd = "cd " + dir + " && "
	}
	verify := "check what is live with: wellknown verify " + strings.TrimSuffix(baseURL, "/")
	steps := []string{
		cd + "wellknown serve   (a preview that rebuilds as you edit)",
		"git init -b main && git add -A && git commit -m \"the site\"   (the change feed is derived from commits)",
		"on GitHub, set Settings → Pages → Source to \"GitHub Actions\" (DEPLOY.md has the details)",
		"create the secret " + site.DefaultKeyEnv + " there with the content of signing.key",
		"push; the deploy builds the site, then " + verify,
	}
	if host != site.HostGitHubPages {
		// Connecting the repository starts the first build: the commits
		// and the key must be there before.
		steps = append(steps[:2:2],
			"push to a new repository",
			"follow DEPLOY.md to connect it to "+deploy.HostName(host)+", entering the secret "+site.DefaultKeyEnv+" (the content of signing.key) in the same form",
			"the first build deploys the site; then "+verify)
	}
	fmt.Fprintf(c.stdout, "\nnext steps:\n")
	for i, step := range steps {
		fmt.Fprintf(c.stdout, "  %d. %s\n", i+1, step)
	}
}

// initKey creates the site's signing key unless one is there, and says how
// to hand it to the host.
func (c *cli) initKey(path, host string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := didweb.WriteNewKey(path); err != nil {
			return err
		}
		c.noticef("wrote a new signing key to %s; .gitignore keeps it out of git", path)
	} else {
		c.noticef("kept the signing key that is already at %s", path)
	}
	k, err := didweb.LoadSigningKey(didweb.KeySources{FlagFile: path})
	if err != nil {
		return err
	}
	c.describeKey(k.Public())
	secret := "store the content of " + path + " in the CI secret " + site.DefaultKeyEnv
	if host == site.HostGitHubPages {
		secret += " (gh secret set " + site.DefaultKeyEnv + " < " + path + ")"
	}
	c.hintf("local builds sign with %s (site.toml's key_file); for deploys, %s; keep a copy somewhere safe", path, secret)
	return nil
}
