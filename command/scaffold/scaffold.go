// Package scaffold creates the files of a new site: a commented site.toml,
// content/ with a home page and one example tool, a .gitignore that keeps the
// output and every key out of git, a pull-request check workflow, and the
// deploy files of one host (GitHub Pages, Netlify or Cloudflare Pages), with
// a DEPLOY.md that says what to set up on the host's side.
//
// The files are embedded templates: files/common for every site, and
// files/<host> for each host. A file whose name ends in .tmpl is a
// text/template, with « and » as delimiters so that the ${{ … }} of a GitHub
// workflow and the [[…]] of TOML need no escaping, and is written without
// that suffix; any other file is written as it is.
package scaffold

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/version"
)

//go:embed all:files
var files embed.FS

// Module is the module CI installs wellknown from.
const Module = version.ModulePath

// Action is the GitHub Action that installs and runs wellknown: this
// module's repository.
const Action = "wellknown-dev/wellknown"

// installScript is the Action's installer at one tag, which hosts other
// than GitHub run to install the same release archive.
const installScript = "https://raw.githubusercontent.com/" + Action + "/%s/action/install.sh"

// installDir is where hosts other than GitHub install wellknown.
const installDir = "$HOME/.wellknown-bin"

// pinComment, in a workflow, says how to pin what a development build of
// wellknown could not.
const pinComment = `«if not .Pinned»
      # A development build of wellknown wrote this workflow, so it runs the
      # latest wellknown with the Action from main: pin a release by
      # replacing @main and latest with a tag such as v1.2.3.
«- end»`

// KeyFile is where a new site's signing key goes, relative to its directory;
// the scaffolded .gitignore keeps it out of git.
const KeyFile = "signing.key"

// Hosts are the hosts a site can be scaffolded for.
var Hosts = []string{site.HostGitHubPages, site.HostNetlify, site.HostCloudflarePages}

// Options describe the site to create.
type Options struct {
	Host    string // one of Hosts
	BaseURL string // the https origin the site will be published at
	// Version is the version of wellknown CI installs: a release such as
	// v1.2.0, or "latest".
	Version string
	// SyncURL, when set, adds a daily workflow that compares the tools the
	// server at this URL lists with the committed tool files, and opens a
	// pull request with the synced files when they differ.
	SyncURL string
	// Existing adds the site to a repository that has its tools already:
	// no example tool, and the server reads Tools.
	Existing bool
	// Tools is the tools glob of an Existing repository's server ("" for
	// the place a new site's tool files go), and Slug the server's name
	// after the host ("" for hello).
	Tools, Slug string
}

// exampleTool is the example tool file of a new site.
const exampleTool = "content/servers/hello/tools/greet.json"

// File is one file of a new site.
type File struct {
	Path string // slash-separated, relative to the site's directory
	Data []byte
}

// data is what the templates see.
type data struct {
	Target      string // the host, as deploy.targets names it
	BaseURL     string // with a trailing slash
	Origin      string // BaseURL without it, as wellknown verify takes it
	Hostname    string
	Title       string
	FeedURL     string
	ServerName  string // the server's name: the reversed host name, then /hello or the slug
	Slug        string
	ServerTitle string
	Tools       string // the server's tools glob, as a TOML string
	Module      string
	Version     string // a release, or "latest"
	Pinned      bool   // Version is a release
	ActionRef   string // the Action at Version, or at main
	Run         string // a shell command that installs Version and runs it, for hosts other than GitHub
	SyncURL     string
}

// Files returns the files of a new site, sorted by path. The site.toml among
// them is checked as a build would check it.
func Files(opt Options) ([]File, error) {
	if !slices.Contains(Hosts, opt.Host) {
		return nil, fmt.Errorf("host %q is not one of %s", opt.Host, strings.Join(Hosts, ", "))
	}
	d, err := newData(opt)
	if err != nil {
		return nil, err
	}
	sets := []string{"common", opt.Host}
	if opt.SyncURL != "" {
		sets = append(sets, "drift")
	}
	var out []File
	for _, set := range sets {
		rendered, err := render(set, d)
		if err != nil {
			return nil, err
		}
		out = append(out, rendered...)
	}
	if opt.Existing {
		out = slices.DeleteFunc(out, func(f File) bool { return f.Path == exampleTool })
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	if err := checkSite(out); err != nil {
		return nil, err
	}
	return out, nil
}

func newData(opt Options) (data, error) {
	u, err := site.ParseBaseURL(opt.BaseURL)
	if err != nil || u.Scheme != "https" || strings.Trim(u.Path, "/") != "" {
		return data{}, fmt.Errorf("base URL %q is not an https origin like https://example.com/ (discovery documents are only found at an origin's root)", opt.BaseURL)
	}
	if opt.SyncURL != "" && !syncURL.MatchString(opt.SyncURL) {
		return data{}, fmt.Errorf("sync URL %q is not an http(s) URL of a server's endpoint (it is written into a workflow, so quotes, spaces, $ and \\ are refused)", opt.SyncURL)
	}
	origin := "https://" + strings.ToLower(u.Host)
	hostname := strings.ToLower(u.Hostname())
	slug := cmp.Or(opt.Slug, "hello")
	tools := cmp.Or(opt.Tools, "content/servers/"+slug+"/tools/*.json")
	pinned := opt.Version != "latest"
	actionRef, run := Action+"@main", "go run "+Module+"@latest"
	if pinned {
		actionRef = Action + "@" + opt.Version
		// Without pipefail, a failed download pipes nothing into bash, which
		// succeeds, and the build then fails on a missing binary.
		run = fmt.Sprintf("set -o pipefail && curl -fsSL "+installScript+" | WELLKNOWN_VERSION=%s WELLKNOWN_INSTALL_DIR=%s bash && %s/wellknown",
			opt.Version, opt.Version, installDir, installDir)
	}
	return data{
		Target:      opt.Host,
		BaseURL:     origin + "/",
		Origin:      origin,
		Hostname:    hostname,
		Title:       hostname,
		FeedURL:     origin + paths.Feed,
		ServerName:  reverseDNS(hostname) + "/" + slug,
		Slug:        slug,
		ServerTitle: strings.ToUpper(slug[:1]) + slug[1:],
		Tools:       tomlString(tools),
		Module:      Module,
		Version:     opt.Version,
		Pinned:      pinned,
		ActionRef:   actionRef,
		Run:         run,
		SyncURL:     opt.SyncURL,
	}, nil
}

// tomlString quotes s as a TOML basic string, whose escapes are JSON's.
func tomlString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// syncURL matches the URLs init writes into the drift workflow, in a
// shell command and a YAML string.
var syncURL = regexp.MustCompile(`^https?://[A-Za-z0-9._~:/?#@!&*+,;=%\[\]-]+$`)

// reverseDNS turns weather.example.com into com.example.weather, the usual
// namespace of an MCP server name.
func reverseDNS(hostname string) string {
	labels := strings.Split(hostname, ".")
	slices.Reverse(labels)
	return strings.Join(labels, ".")
}

// render renders the files of one template set.
func render(set string, d data) ([]File, error) {
	root := path.Join("files", set)
	var out []File
	err := fs.WalkDir(files, root, func(p string, entry fs.DirEntry, err error) error {
		if err != nil || entry.IsDir() {
			return err
		}
		content, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, root+"/")
		if name, ok := strings.CutSuffix(rel, ".tmpl"); ok {
			rel = name
			if content, err = execute(p, content, d); err != nil {
				return err
			}
		}
		out = append(out, File{Path: rel, Data: content})
		return nil
	})
	return out, err
}

func execute(name string, text []byte, d data) ([]byte, error) {
	t, err := template.New(name).Delims("«", "»").Option("missingkey=error").Parse(string(text))
	if err != nil {
		return nil, err
	}
	if _, err := t.New("pin").Parse(pinComment); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// checkSite parses the new site.toml, so that a template that would not
// build is found here, not by the user.
func checkSite(files []File) error {
	for _, f := range files {
		if f.Path == "site.toml" {
			_, err := site.Parse(f.Path, string(f.Data), nil)
			return err
		}
	}
	return errors.New("the templates hold no site.toml")
}

// Leftovers returns the deploy files of the other hosts that exist in dir:
// after moving a site to another host they would keep deploying it to the
// old one.
func Leftovers(dir string, opt Options) []string {
	mine := map[string]bool{}
	if files, err := Files(opt); err == nil {
		for _, f := range files {
			mine[f.Path] = true
		}
	}
	var out []string
	for _, host := range Hosts {
		other := opt
		other.Host = host
		files, err := Files(other)
		if err != nil {
			continue
		}
		for _, f := range files {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.Path))); err == nil && !mine[f.Path] && !slices.Contains(out, f.Path) {
				out = append(out, f.Path)
			}
		}
	}
	return out
}

// IgnoreFile is the site's .gitignore. Write never replaces one that
// exists, which holds the repository's own rules: it appends the lines it
// lacks.
const IgnoreFile = ".gitignore"

// Write writes files into dir, creating directories as needed, and returns
// the lines it added to an existing IgnoreFile. Unless force, it writes
// nothing when any of the other files exists, and lists each. Even with
// force, it writes nothing when a symlink stands where one of the files or
// its directories goes: writing through it would change a file elsewhere.
func Write(dir string, files []File, force bool) ([]string, error) {
	if err := checkNoSymlinks(dir, files); err != nil {
		return nil, err
	}
	if !force {
		var existing []error
		for _, f := range files {
			p := filepath.Join(dir, filepath.FromSlash(f.Path))
			if _, err := os.Lstat(p); err == nil && f.Path != IgnoreFile {
				existing = append(existing, diag.Errorf(p, 0, "already exists").
					WithHint("wellknown init never overwrites a file unless you pass --force"))
			}
		}
		if len(existing) > 0 {
			return nil, errors.Join(existing...)
		}
	}
	var added []string
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		data := f.Data
		if f.Path == IgnoreFile {
			old, err := os.ReadFile(p)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			if err == nil {
				if data, added = MergeLines(old, f.Data); added == nil {
					continue
				}
			}
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
	}
	return added, nil
}

// checkNoSymlinks lists every symlink among the paths files would be
// written to, and the directories under dir on the way there.
func checkNoSymlinks(dir string, files []File) error {
	seen := map[string]bool{}
	var links []error
	for _, f := range files {
		p := dir
		for _, name := range strings.Split(f.Path, "/") {
			p = filepath.Join(p, name)
			if seen[p] {
				continue
			}
			seen[p] = true
			if info, err := os.Lstat(p); err == nil && info.Mode()&fs.ModeSymlink != 0 {
				links = append(links, diag.Errorf(p, 0, "is a symbolic link; wellknown init never writes through one").
					WithHint("remove the link, or create the site in another directory"))
			}
		}
	}
	return errors.Join(links...)
}
