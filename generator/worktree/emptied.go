package worktree

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// Emptied is a landing at which a server that stays on the site lost every
// one of its tools at once: what a typo in its tools glob, or a directory
// moved without the glob, looks like in the history. The feed signs a
// removal for each tool, and a signed entry is permanent.
type Emptied struct {
	Server string
	Commit string
	Time   time.Time
	Tools  []string // the endpoint ids of the tools removed, sorted
}

// Problem describes e, located at the server's tools glob in site.toml
// when the server is still configured there.
func (e Emptied) Problem(cfg *site.Config) *diag.Error {
	names := make([]string, len(e.Tools))
	for i, id := range e.Tools {
		_, names[i], _ = strings.Cut(id, "#")
	}
	msg := fmt.Sprintf("commit %s (%s) removes every tool of %s at once (%s): the feed would sign the removal of each",
		gitlog.Short(e.Commit), e.Time.UTC().Format(time.DateOnly), e.Server, strings.Join(names, ", "))
	for i, s := range cfg.Servers {
		if s.Name == e.Server {
			return cfg.Errorf(fmt.Sprintf("servers.%d.tools", i), "%s", msg).WithHint("%s", e.Hint())
		}
	}
	return diag.Errorf(cfg.File, 0, "%s", msg).WithHint("%s", e.Hint())
}

// Hint says what to do about e: fix the glob, or acknowledge the removal.
func (e Emptied) Hint() string {
	return fmt.Sprintf("a typo in its tools glob, or a directory moved? Fix the glob; if the removal is intended, acknowledge it in site.toml: [[breaking]] endpoint = %q to = %q", e.Server, site.Removed)
}

// EmptiedServers finds the landings of the timeline at which a server kept
// on the site lost all its tools at once, and that site.toml does not
// acknowledge: by a [[breaking]] removal of the server or of each tool, or
// by a deprecation of the server or of each tool whose sunset the removal
// comes after.
func EmptiedServers(cfg *site.Config, tl *timeline.Timeline) []Emptied {
	var out []Emptied
	present := map[string]map[string]bool{} // server → its tools present
	var landing []timeline.Event
	flush := func() {
		for _, e := range landingEmptied(landing, present) {
			if !removalAcknowledged(cfg, e) {
				out = append(out, e)
			}
		}
		landing = landing[:0]
	}
	for e := range tl.Events() {
		if len(landing) > 0 && e.Commit != landing[0].Commit {
			flush()
		}
		landing = append(landing, e)
	}
	flush()
	return out
}

// landingEmptied applies the events of one landing to present and returns
// the servers it emptied.
func landingEmptied(events []timeline.Event, present map[string]map[string]bool) []Emptied {
	removed := map[string][]string{} // server → its tools removed here
	leaving := map[string]bool{}     // servers removed from the site here
	for _, ev := range events {
		server, _, isTool := strings.Cut(ev.EndpointID, "#")
		switch {
		case ev.Type == agentfeed.TypeAnnouncement && isTool:
			if present[server] == nil {
				present[server] = map[string]bool{}
			}
			present[server][ev.EndpointID] = true
		case isRemoval(ev) && isTool:
			delete(present[server], ev.EndpointID)
			removed[server] = append(removed[server], ev.EndpointID)
		case isRemoval(ev):
			leaving[server] = true
		}
	}
	var out []Emptied
	for server, ids := range removed {
		if len(present[server]) == 0 && !leaving[server] {
			slices.Sort(ids)
			out = append(out, Emptied{Server: server, Commit: events[0].Commit, Time: events[0].Time, Tools: ids})
		}
	}
	slices.SortFunc(out, func(a, b Emptied) int { return strings.Compare(a.Server, b.Server) })
	return out
}

// isRemoval reports whether ev deprecates an endpoint as it disappears: a
// sunset at the announcement, unlike a deprecation site.toml configures
// ahead of its sunset.
func isRemoval(ev timeline.Event) bool {
	if ev.Type != agentfeed.TypeDeprecation {
		return false // without its payload: a schema change's is made from its change, read back
	}
	d, ok := ev.Payload().(agentfeed.Deprecation)
	return ok && d.Sunset == d.AnnouncedAt && d.Sunset == agentfeed.FormatTime(ev.Time)
}

// removalAcknowledged reports whether site.toml acknowledges the removal
// of every tool e removes.
func removalAcknowledged(cfg *site.Config, e Emptied) bool {
	for _, id := range e.Tools {
		if !acknowledgedRemoval(cfg, id, e.Time) {
			return false
		}
	}
	return true
}

// acknowledgedRemoval reports whether site.toml acknowledges the removal
// of the tool id at time when, or of its server.
func acknowledgedRemoval(cfg *site.Config, id string, when time.Time) bool {
	for _, b := range cfg.Breaking {
		if b.Acknowledges(id, site.Removed) {
			return true
		}
	}
	server, _, _ := strings.Cut(id, "#")
	for _, d := range cfg.Deprecations {
		sunset, err := time.Parse(time.RFC3339, d.Sunset)
		if err == nil && (d.Endpoint == id || d.Endpoint == server) && !sunset.After(when) {
			return true
		}
	}
	return false
}
