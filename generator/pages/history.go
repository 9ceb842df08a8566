package pages

import (
	"cmp"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/gitlog"
)

// Commit names the commit a step of a tool's life was made in.
type Commit struct {
	Short string // its abbreviated hash
	URL   string // its page on the server repository's forge; "" when unknown
}

// Step is one dated event of a tool's life: a removal or a return.
type Step struct {
	Time    time.Time
	Version string // the last version (removed), or the version it came back at
	Commit  Commit
}

// Gap is a time a tool was away from its server.
type Gap struct {
	Removed Step
	Back    *Step // nil while it is away
}

// History kinds.
const (
	HistoryVersion = "version"
	HistoryRemoved = "removed"
	HistoryBack    = "back"
)

// HistoryItem is one line of a tool's history: a version published (Version
// set), or the tool removed or back (Step set).
type HistoryItem struct {
	Kind    string
	Version *Version
	Step    *Step
}

// History returns every event of the tool's life, newest first: its
// versions, and each removal and return. A return comes before the version
// it brought, within one commit. Each time is read once: a version's may
// be read back from the build's spool (see versionRun).
func (t *Tool) History() []HistoryItem {
	type dated struct {
		HistoryItem
		time time.Time
	}
	var items []dated
	for i := range t.Versions {
		v := &t.Versions[i]
		items = append(items, dated{HistoryItem{Kind: HistoryVersion, Version: v}, v.Time()})
	}
	for _, g := range t.Gaps {
		items = append(items, dated{HistoryItem{Kind: HistoryRemoved, Step: &g.Removed}, g.Removed.Time})
		if g.Back != nil {
			items = append(items, dated{HistoryItem{Kind: HistoryBack, Step: g.Back}, g.Back.Time})
		}
	}
	rank := map[string]int{HistoryRemoved: 0, HistoryBack: 1, HistoryVersion: 2}
	slices.SortStableFunc(items, func(a, b dated) int {
		if c := b.time.Compare(a.time); c != 0 {
			return c
		}
		return cmp.Compare(rank[b.Kind], rank[a.Kind])
	})
	out := make([]HistoryItem, len(items))
	for i, d := range items {
		out[i] = d.HistoryItem
	}
	return out
}

// CommitLink names a commit of a server's repository, with a link to it when
// the repository is on a forge whose commit pages have a known address:
// GitHub, GitLab, Codeberg and other Gitea or Forgejo hosts, Bitbucket.
func CommitLink(repository, hash string) Commit {
	// Seven digits, as git and the forges show a commit among others; a
	// copy, not a part of the whole hash, which a long history's pages
	// would otherwise keep, one for each version, after the history.
	c := Commit{Short: strings.Clone(gitlog.Abbrev(hash, 7))}
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSuffix(repository, "/"), ".git"))
	if err != nil || u.Scheme != "https" || strings.Count(strings.Trim(u.Path, "/"), "/") < 1 || u.RawQuery != "" || u.Fragment != "" {
		return c
	}
	host := strings.ToLower(u.Hostname())
	var commit string
	switch {
	case host == "github.com", host == "codeberg.org", strings.Contains(host, "gitea"), strings.Contains(host, "forgejo"):
		commit = "/commit/"
	case host == "gitlab.com", strings.HasPrefix(host, "gitlab."):
		commit = "/-/commit/"
	case host == "bitbucket.org":
		commit = "/commits/"
	default:
		return c
	}
	c.URL = "https://" + u.Host + strings.TrimSuffix(u.Path, "/") + commit + hash
	return c
}
