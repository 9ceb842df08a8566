package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/command/scaffold"
	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator/deploy"
	"github.com/wellknown-dev/wellknown/generator/keyguard"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/english"
	"github.com/wellknown-dev/wellknown/internal/version"
)

// exampleBaseURL is the base URL of a site created without --base-url.
const exampleBaseURL = "https://example.com/"

func (c *cli) initSite(args []string) int {
	fs := c.newFlags("init", "[--host HOST] [--base-url URL] [--sync-url URL] [--existing] [--force] [DIR]")
	host := fs.String("host", site.HostGitHubPages, "where the site is deployed: "+strings.Join(scaffold.Hosts, ", "))
	baseURL := fs.String("base-url", exampleBaseURL, "the https origin the site will be published at")
	syncURL := fs.String("sync-url", "", "add a daily workflow that syncs the tools from the server at this URL and opens a pull request when they changed")
	force := fs.Bool("force", false, "overwrite files that exist (never a signing key, never .gitignore, which is only extended)")
	existing := fs.Bool("existing", false, "add a site to an existing repository: keep and extend its .gitignore, write no example tool, and read the tool files found in its history")
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
	opt := scaffold.Options{Host: *host, BaseURL: *baseURL, Version: version.InstallVersion(), SyncURL: *syncURL, Existing: *existing}
	var tools []string
	if *existing {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			c.errorf("%s is not a directory: --existing adds a site to a repository that is there", dir)
			c.hintf("to create a new site, run: wellknown init %s", dir)
			return 2
		}
		var err error
		if tools, err = scaffold.FindTools(dir); err != nil {
			return c.fail(err)
		}
		opt.Tools, opt.Slug = scaffold.ToolsGlob(tools), serverSlug(dir)
	} else if code, refused := c.refuseRepository(dir, *force); refused {
		return code
	}
	files, err := scaffold.Files(opt)
	if err != nil {
		c.errorf("%v", err)
		return 2
	}
	ignored, err := scaffold.Write(dir, files, *force)
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.stdout, "created a site for %s in %s, deployed with %s:\n", *baseURL, dir, *host)
	for _, f := range files {
		line := "  " + f.Path
		if f.Path == scaffold.IgnoreFile && ignored != nil {
			line += " (kept, with " + strings.Join(ignored, " ") + " added)"
		}
		fmt.Fprintln(c.stdout, line)
	}
	if *existing {
		c.reportTools(tools, opt)
	}
	if err := c.initKey(filepath.Join(dir, scaffold.KeyFile), *host); err != nil {
		return c.fail(err)
	}
	var leftovers []*diag.Error
	for _, f := range scaffold.Leftovers(dir, opt) {
		leftovers = append(leftovers, diag.Errorf(filepath.Join(dir, f), 0, "from another host's recipe, it still deploys the site there").
			WithHint("remove it if the site moved"))
	}
	say(c, "warning", leftovers)
	if *baseURL == exampleBaseURL {
		c.noticef("the site's base URL is the placeholder %s; run init again with --base-url and --force, or edit site.toml and the deploy files", exampleBaseURL)
	}
	c.printNextSteps(dir, *host, *baseURL, commitStep(dir, files, *existing))
	return 0
}

// refuseRepository refuses to create a new site where a repository's
// .gitignore is and no site.toml (unless force): its rules belong to the
// repository, and init --existing is the way to add a site to one. A site
// that is there already gets the usual list of files that exist.
func (c *cli) refuseRepository(dir string, force bool) (int, bool) {
	_, ignoreErr := os.Lstat(filepath.Join(dir, scaffold.IgnoreFile))
	_, siteErr := os.Lstat(filepath.Join(dir, "site.toml"))
	if ignoreErr != nil || siteErr == nil || force {
		return 0, false
	}
	c.errorf("%s already exists: %s looks like an existing repository", filepath.Join(dir, scaffold.IgnoreFile), dir)
	c.hintf("add a site to it with: wellknown init --existing %s (it keeps .gitignore, adding only the lines it lacks, writes no example tool and finds the tool files)", dir)
	return 1, true
}

// serverSlug names the server of an existing repository after its
// directory.
func serverSlug(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	return site.Slugify(filepath.Base(abs))
}

// reportTools says which tool files the site reads, or that none was
// found and where they go.
func (c *cli) reportTools(tools []string, opt scaffold.Options) {
	if len(tools) == 0 {
		c.noticef("found no tool files (JSON objects with name and inputSchema) in the repository; add one per tool under content/servers/%s/tools/, or set tools in site.toml to where they are", opt.Slug)
		return
	}
	fmt.Fprintf(c.stdout, "\nfound %s in the repository's history and working tree; site.toml reads them with:\n  tools = %q\n", english.Count(len(tools), "tool file"), opt.Tools)
	if len(tools) <= 5 {
		for _, t := range tools {
			fmt.Fprintf(c.stdout, "    %s\n", t)
		}
	}
	c.hintf("if the glob matches files that are not this server's tools, list them in exclude (see the README's \"Adding wellknown to an existing repository\")")
}

// commitStep is the next step that commits the site: in an existing
// repository, only the files init wrote; otherwise a new repository.
func commitStep(dir string, files []scaffold.File, existing bool) string {
	if _, err := gitlog.Open(dir); err != nil || !existing {
		return "git init -b main && git add -A && git commit -m \"the site\"   (the change feed is derived from commits)"
	}
	var top []string
	for _, f := range files {
		first, _, _ := strings.Cut(f.Path, "/")
		if !slices.Contains(top, first) {
			top = append(top, first)
		}
	}
	return "git add " + strings.Join(top, " ") + " && git commit -m \"the site\"   (the feed already holds the repository's tool history)"
}

// printNextSteps lists what comes after init, from a preview to a deploy.
func (c *cli) printNextSteps(dir, host, baseURL, commit string) {
	cd := ""
	if dir != "." {
		cd = "cd " + dir + " && "
	}
	verify := "check what is live with: wellknown verify " + strings.TrimSuffix(baseURL, "/")
	steps := []string{
		cd + "wellknown serve   (a preview that rebuilds as you edit)",
		commit,
		"on GitHub, set Settings → Pages → Source to \"GitHub Actions\" (DEPLOY.md has the details)",
		"create the secret " + site.DefaultKeyEnv + " there with the content of signing.key",
		"push; the deploy builds the site, then " + verify,
	}
	if host != site.HostGitHubPages {
		// Connecting the repository starts the first build: the commits
		// and the key must be there before.
		steps = append(steps[:2:2],
			"push the commit to the repository the host will build from",
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
	k, err := keyguard.LoadKey(didweb.KeySources{FlagFile: path})
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
