// Package worktree is the working tree's side of a build: the servers
// site.toml configures, with their tool files as they are now (Load), and
// how they differ from the committed history the feed is derived from
// (Check).
package worktree

import (
	"errors"
	"path/filepath"

	"github.com/wellknown-dev/wellknown/format/cards"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// Server is a configured server with its tools, sorted by name.
type Server struct {
	Config *site.Server
	Index  int // position in site.toml
	Tools  []tools.Tool
}

// Load checks imported registry documents and reads every server's tool
// files from the working tree, one Server per server of cfg, in order,
// refusing the signing key's file (key) by any name. The cache parses
// only the files it has not seen, and forgets those no server has now.
func Load(cfg *site.Config, cache *tools.Cache, key inputfile.Secret) ([]Server, error) {
	var problems []error
	servers := make([]Server, len(cfg.Servers))
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		servers[i] = Server{Config: s, Index: i}
		if s.ImportData != nil {
			for _, p := range cards.CheckRegistryServer(s.ImportData) {
				problems = append(problems, diag.Errorf(cfg.Path(s.Import), 0, "registry server.json: %v", p))
			}
		}
		if s.Tools == "" {
			continue
		}
		root := cfg.Path(s.Repo)
		if root == "" {
			root = cfg.Dir
		}
		files, err := selectFiles(cfg, i, root)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		ts, err := cache.Load(root, files, func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }, key)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		servers[i].Tools = ts
	}
	cache.Sweep()
	return servers, errors.Join(problems...)
}
