package sync

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// ChooseServer returns the server of cfg whose name or slug is name. With
// name "", it returns the site's only server, or nil when the site has
// none; a site with several needs a name.
func ChooseServer(cfg *site.Config, name string) (*site.Server, error) {
	if name == "" {
		switch len(cfg.Servers) {
		case 0:
			return nil, nil
		case 1:
			return &cfg.Servers[0], nil
		}
		return nil, fmt.Errorf("%s has %d servers; pick one with --server NAME or SLUG: %s", cfg.File, len(cfg.Servers), serverChoices(cfg))
	}
	for i, s := range cfg.Servers {
		if s.Name == name || s.Slug == name {
			return &cfg.Servers[i], nil
		}
	}
	if len(cfg.Servers) == 0 {
		return nil, fmt.Errorf("--server %s: %s has no servers", name, cfg.File)
	}
	return nil, fmt.Errorf("--server %s: %s has no such server; its servers are %s", name, cfg.File, serverChoices(cfg))
}

// serverChoices lists the servers of cfg as "name (slug)".
func serverChoices(cfg *site.Config) string {
	choices := make([]string, len(cfg.Servers))
	for i, s := range cfg.Servers {
		choices[i] = fmt.Sprintf("%s (%s)", s.Name, s.Slug)
	}
	return strings.Join(choices, ", ")
}

// DefaultDir returns the directory whose <tool name>.json files the tools
// glob of s reads: the glob's directory part, less trailing "**" segments
// (which match zero directories too), resolved against the server's
// repository. The directory part must then be free of wildcards, and the
// file part must read every name sync writes: "*.json" or "*".
func DefaultDir(cfg *site.Config, s *site.Server) (string, error) {
	if s == nil {
		return "", diag.Errorf(cfg.File, 0, "the site has no servers, so there is no tools glob to sync into").
			WithHint("pass --out DIR")
	}
	at := fmt.Sprintf("servers.%d.tools", indexOf(cfg, s))
	if s.Tools == "" {
		return "", cfg.Errorf(at, "server %s has no tools glob to sync into", s.Name).
			WithHint(`set tools = "tools/*.json" for the server, or pass --out DIR`)
	}
	dir, file := path.Split(s.Tools)
	segs := strings.Split(strings.TrimSuffix(dir, "/"), "/")
	for len(segs) > 0 && segs[len(segs)-1] == "**" {
		segs = segs[:len(segs)-1]
	}
	dir = path.Join(segs...)
	if (file != "*.json" && file != "*") || tools.HasWildcard(dir) {
		return "", cfg.Errorf(at, "tools glob %q does not name one directory whose <tool name>.json files it reads all of", s.Tools).
			WithHint(`pass --out DIR, or use a glob like "tools/*.json" or "tools/**/*.json"`)
	}
	return filepath.Join(globRoot(cfg, s), filepath.FromSlash(dir)), nil
}

// globRoot is the directory the tools glob of s is relative to.
func globRoot(cfg *site.Config, s *site.Server) string {
	if s.Repo != "" {
		return cfg.Path(s.Repo)
	}
	return cfg.Dir
}

func indexOf(cfg *site.Config, s *site.Server) int {
	for i := range cfg.Servers {
		if &cfg.Servers[i] == s {
			return i
		}
	}
	return -1
}
