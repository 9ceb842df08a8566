package worktree

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// Input is what Check compares.
type Input struct {
	Config   *site.Config
	Timeline *timeline.Timeline // the committed history of the inputs
	Servers  []Server           // the working tree (see Load)
	// Strict makes a difference an error instead of a warning.
	Strict bool
	// IgnoreUncommitted skips the comparison (a build of another
	// revision's feed); the deprecations are still checked.
	IgnoreUncommitted bool
}

// Check compares what the working tree says with the committed history the
// feed is derived from. The feed only ever holds committed history; a
// difference means the cards and pages describe something the feed does not
// yet, which is a warning for a local build and an error for a strict one.
// Deprecations in site.toml must name an endpoint the history or the
// working tree knows. A landing that removes every tool of a server at once
// (see EmptiedServers) is a warning, or an error for a strict build, unless
// site.toml acknowledges it.
func Check(in Input) (warnings []*diag.Error, err error) {
	if err := checkDeprecations(in); err != nil {
		return nil, err
	}
	if in.IgnoreUncommitted || len(in.Timeline.Servers) == 0 && in.Timeline.EventCount() == 0 {
		return nil, nil // nothing to compare with, or no history at all: already reported
	}
	var emptied []error
	for _, e := range EmptiedServers(in.Config, in.Timeline) {
		p := e.Problem(in.Config)
		emptied = append(emptied, p)
		warnings = append(warnings, p)
	}
	if in.Strict && len(emptied) > 0 {
		return nil, errors.Join(emptied...)
	}
	var pending []string
	for _, s := range in.Servers {
		pending = append(pending, uncommitted(in.Config, in.Timeline, s)...)
	}
	if len(pending) == 0 {
		return warnings, nil
	}
	e := diag.Errorf("", 0, "uncommitted changes are not in the change feed: %s", strings.Join(pending, "; ")).
		WithHint("commit them to publish them (wellknown serve previews uncommitted tool changes)")
	if in.Strict {
		return nil, e
	}
	return append(warnings, e), nil
}

// uncommitted lists how a server in the working tree differs from its last
// committed state.
func uncommitted(cfg *site.Config, tl *timeline.Timeline, s Server) []string {
	var committed *timeline.ServerHistory
	for _, h := range tl.Servers {
		if h.Name == s.Config.Name && !h.Removed {
			committed = h
		}
	}
	if committed == nil {
		return []string{fmt.Sprintf("server %s is new", s.Config.Name)}
	}
	var out []string
	if v := committed.Last.Version; v != s.Config.Version {
		out = append(out, fmt.Sprintf("server %s version %s (committed: %s)", s.Config.Name, s.Config.Version, v))
	}
	if ep := cfg.Endpoint(*s.Config); ep != committed.Last.Endpoint {
		out = append(out, fmt.Sprintf("server %s endpoint %s (committed: %s)", s.Config.Name, ep, committed.Last.Endpoint))
	}
	working := map[string]bool{}
	for _, t := range s.Tools {
		working[t.Name] = true
		old, ok := committed.Last.Tools[t.Name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("tool %s is new", t.Name))
		case string(old.Canonical) != string(t.Canonical):
			out = append(out, fmt.Sprintf("tool %s changed", t.Name))
		}
	}
	for name := range committed.Last.Tools {
		if !working[name] {
			out = append(out, fmt.Sprintf("tool %s was removed", name))
		}
	}
	return out
}

// checkDeprecations requires every configured deprecation to name a server
// or tool of the site, committed or about to be.
func checkDeprecations(in Input) error {
	known := map[string]bool{}
	for _, s := range in.Timeline.Servers {
		known[s.Name] = true
		for _, t := range s.Tools {
			known[t.EndpointID()] = true
		}
	}
	for _, s := range in.Servers {
		known[s.Config.Name] = true
		for _, t := range s.Tools {
			known[timeline.ToolEndpointID(s.Config.Name, t.Name)] = true
		}
	}
	var problems []error
	for i, d := range in.Config.Deprecations {
		if !known[d.Endpoint] {
			problems = append(problems, in.Config.Errorf(fmt.Sprintf("deprecations.%d.endpoint", i), "deprecation names %q, which is no server or tool of this site", d.Endpoint).
				WithHint("name a server (com.example/weather) or a tool (com.example/weather#get_forecast)"))
		}
		if d.Replacement != "" && !known[d.Replacement] {
			problems = append(problems, in.Config.Errorf(fmt.Sprintf("deprecations.%d.replacement", i), "deprecation replacement %q is no server or tool of this site", d.Replacement))
		}
	}
	return errors.Join(problems...)
}
