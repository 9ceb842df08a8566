package replay

import (
	"cmp"

	"github.com/wellknown-dev/wellknown/generator/history"
	"github.com/wellknown-dev/wellknown/generator/site"
)

// Source is a repository a replay read, at the revision it read.
type Source struct {
	Root string
	Rev  string
}

// sources lists the repositories read, the site's first.
func (h *historyReader) sources() []Source {
	out := make([]Source, len(h.repos))
	for i, rh := range h.repos {
		out[i] = Source{Root: rh.repo.Root(), Rev: h.rev(i)}
	}
	return out
}

// SiteSource is the site's repository as a replay of in reads it: the
// first of Output.Sources, known before the replay; ok is false when the
// site is not in a repository.
func SiteSource(in Input) (src Source, ok bool) {
	repo, err := history.Open(in.Config.Dir)
	if err != nil {
		return Source{}, false
	}
	return Source{Root: repo.Root(), Rev: cmp.Or(in.Rev, "HEAD")}, true
}

// States returns the state (history.Repo.State) of each repository: a
// replay of the same Input whose repositories (Output.Sources) are all in
// the same states reads the same history, so its Output may be reused. ok
// is false when there is nothing to compare, as for a site outside git.
func States(sources []Source) (states []string, ok bool) {
	if len(sources) == 0 {
		return nil, false
	}
	for _, s := range sources {
		repo, err := history.Open(s.Root)
		if err != nil {
			return nil, false
		}
		state, err := repo.State(s.Rev)
		if err != nil {
			return nil, false
		}
		states = append(states, state)
	}
	return states, true
}

// ApplyTo gives cfg what Read gives its Input.Config: each server that
// takes its versions from tags gets the version its history ends with. A
// build that reuses an Output applies it to its own config.
func (o *Output) ApplyTo(cfg *site.Config) {
	for i, s := range cfg.Servers {
		if s.VersionTags == "" {
			continue
		}
		for _, sh := range o.Timeline.Servers {
			if sh.Name == s.Name && !sh.Removed {
				cfg.Servers[i].Version = sh.Last.Version
			}
		}
	}
}
