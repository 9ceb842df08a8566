package generator

import (
	"cmp"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/generator/agentfeed"
	"github.com/wellknown-dev/wellknown/generator/deploy"
	"github.com/wellknown-dev/wellknown/generator/didweb"
	"github.com/wellknown-dev/wellknown/generator/pages"
	"github.com/wellknown-dev/wellknown/generator/schemadiff"
	"github.com/wellknown-dev/wellknown/generator/site"
	"github.com/wellknown-dev/wellknown/generator/timeline"
	"github.com/wellknown-dev/wellknown/generator/tools"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
	"github.com/wellknown-dev/wellknown/internal/release"
	"github.com/wellknown-dev/wellknown/templates"
)

// pathArchive is the directory of the schema archive (see ArchivePath).
const pathArchive = "/.well-known/mcp/schemas/"

// addPages renders the human pages: the servers and tools of the working
// tree with their committed history, a preview of what the next commit
// adds to the feed, the feed for people, and the site's own Markdown, with
// the site's templates in place of the defaults they replace. It runs after
// every document is in the bundle, since the pages link to them.
func (r *Result) addPages(servers []Server) error {
	cfg := r.Config
	contentDir := cfg.Path(cfg.ContentDir)
	content, err := pages.ReadContent(inputfile.FS(cfg.Root, contentDir, inputfile.MaxSize), func(rel string) string {
		return filepath.Join(contentDir, filepath.FromSlash(rel))
	})
	if err != nil {
		return err
	}
	m := newPagesModel(r)
	s, err := m.site(servers, content)
	if err != nil {
		return err
	}
	r.warnOrphanDocs(s, contentDir)
	r.warnStrayMarkdown(contentDir)
	tfs := pages.Templates(inputfile.FS(cfg.Root, cfg.Path(cfg.TemplatesDir), inputfile.MaxSize), templates.FS)
	files, err := pages.Render(s, tfs)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := r.Bundle.Add(f.Path, f.Body, deploy.HostDefaultType(f.Path)); err != nil {
			return fmt.Errorf("page %s: %v", f.Path, err)
		}
	}
	return nil
}

// warnStrayMarkdown warns about Markdown files at the top of the content
// directory that no page is made from (only index.md is).
func (r *Result) warnStrayMarkdown(contentDir string) {
	entries, _ := os.ReadDir(contentDir)
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") && e.Name() != "index.md" {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s is not published: the home page's prose is index.md, and pages go under %s",
				filepath.Join(contentDir, e.Name()), filepath.Join(contentDir, "pages")+string(filepath.Separator)))
		}
	}
}

// warnOrphanDocs warns about server docs that no server's page shows.
func (r *Result) warnOrphanDocs(s *pages.Site, contentDir string) {
	for _, slug := range slices.Sorted(maps.Keys(s.Content.ServerDocs)) {
		if !slices.ContainsFunc(s.Servers, func(srv *pages.Server) bool { return srv.Slug == slug }) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s: no server has the slug %q, so no page shows these docs",
				filepath.Join(contentDir, "servers", slug, "README.md"), slug))
		}
	}
}

// pagesModel turns a build's results into the pages' Site.
type pagesModel struct {
	r         *Result
	removedAt map[string]time.Time     // by endpoint id: when it was last removed
	servers   map[string]*pages.Server // by server name
	tools     map[string]*pages.Tool   // by endpoint id
	history   map[string]*timeline.ToolHistory
	comings   map[string][]timeline.Event // by endpoint id: its announcements and removals, in order
	repos     map[string]string           // by server name: where its tools' commits are linked
}

func newPagesModel(r *Result) *pagesModel {
	m := &pagesModel{r: r, removedAt: map[string]time.Time{}, servers: map[string]*pages.Server{},
		tools: map[string]*pages.Tool{}, history: map[string]*timeline.ToolHistory{},
		comings: map[string][]timeline.Event{}, repos: r.commitRepos}
	for _, e := range r.Timeline.Events {
		if isRemoval(e) {
			m.removedAt[e.EndpointID] = e.Time
		}
		if isRemoval(e) || e.Type == agentfeed.TypeAnnouncement {
			m.comings[e.EndpointID] = append(m.comings[e.EndpointID], e)
		}
	}
	for _, s := range r.Timeline.Servers {
		for _, t := range s.Tools {
			m.history[t.EndpointID()] = t
		}
	}
	return m
}

func (m *pagesModel) site(servers []Server, content pages.Content) (*pages.Site, error) {
	cfg := m.r.Config
	s := &pages.Site{
		Title:       cfg.Title,
		Description: cfg.Description,
		BaseURL:     cfg.URL("/"),
		CatalogPath: sitePath(PathCatalog),
		Content:     content,
		Agents:      m.agents(),
		Entity:      m.entity(),
		Documents:   m.documents(servers),
		Verify:      m.verify(),
	}
	if _, ok := m.r.Bundle.Get(PathFeed); ok {
		s.FeedPath = sitePath(PathFeed)
	}
	configured := map[string]bool{}
	slugs := map[string]bool{}
	for _, srv := range servers {
		ps, err := m.server(srv)
		if err != nil {
			return nil, err
		}
		s.Servers = append(s.Servers, ps)
		configured[srv.Config.Name] = true
		slugs[srv.Config.Slug] = true
	}
	for _, h := range m.r.Timeline.Servers {
		// A removed server whose slug a configured one took has no pages:
		// the changelog still lists what happened to it.
		if configured[h.Name] || slugs[h.Last.Slug] {
			continue
		}
		slugs[h.Last.Slug] = true
		s.Servers = append(s.Servers, m.removedServer(h))
	}
	s.Changes = m.changes()
	return s, nil
}

// server is a configured server: its tools from the working tree, with
// their committed history and what the next commit would add.
func (m *pagesModel) server(srv Server) (*pages.Server, error) {
	c := srv.Config
	h := m.committed(c.Name)
	ps := &pages.Server{
		Slug:        c.Slug,
		Name:        c.Name,
		Title:       c.Title,
		Description: c.Description,
		Version:     c.Version,
		WebsiteURL:  c.WebsiteURL,
		Remotes:     remotes(c.Remotes),
		Documents:   m.serverDocuments(srv),
		Unpublished: h == nil || h.Removed,
	}
	if c.Repository != nil {
		ps.Repository = c.Repository.URL
	}
	m.servers[c.Name] = ps
	working := map[string]bool{}
	for _, t := range srv.Tools {
		working[t.Name] = true
		th := m.history[timeline.ToolEndpointID(c.Name, t.Name)]
		preview, err := toolPreview(t, th)
		if err != nil {
			return nil, err
		}
		pt := m.tool(h, th, t)
		pt.Preview = preview
		if preview != nil {
			pt.SchemaPath = "" // the working tree's tool is not published
		}
		ps.Tools = append(ps.Tools, pt)
	}
	if h != nil {
		for _, th := range h.Tools {
			if working[th.Name] {
				continue
			}
			pt := m.tool(h, th, th.Latest().Tool)
			if th.Removed {
				pt.Removed = m.removal(th.EndpointID(), th.Latest().Version)
			} else {
				pt.Preview = &pages.Preview{Kind: pages.PreviewRemoved, From: th.Latest().Version}
			}
			ps.Tools = append(ps.Tools, pt)
		}
	}
	sort.Slice(ps.Tools, func(i, j int) bool { return ps.Tools[i].Name < ps.Tools[j].Name })
	return ps, nil
}

// removedServer is a server the site no longer configures, as last committed.
func (m *pagesModel) removedServer(h *timeline.ServerHistory) *pages.Server {
	ps := &pages.Server{Slug: h.Last.Slug, Name: h.Name, Version: h.Last.Version, Removed: m.removal(h.Name, h.Last.Version)}
	m.servers[h.Name] = ps
	for _, th := range h.Tools {
		pt := m.tool(h, th, th.Latest().Tool)
		pt.Removed = m.removal(th.EndpointID(), th.Latest().Version)
		ps.Tools = append(ps.Tools, pt)
	}
	return ps
}

// removal says when the endpoint was removed, at its last version.
func (m *pagesModel) removal(endpoint, version string) *pages.Removal {
	return &pages.Removal{Time: m.removedAt[endpoint], Version: version}
}

// isRemoval reports whether an event is the deprecation the timeline
// derives when an endpoint disappears (whose key is "removed <version>").
func isRemoval(e timeline.Event) bool {
	return e.Type == agentfeed.TypeDeprecation && strings.HasPrefix(e.Key, "removed ")
}

// committed returns the committed history of the named server, or nil.
func (m *pagesModel) committed(name string) *timeline.ServerHistory {
	for _, h := range m.r.Timeline.Servers {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// diffedVersions is how many of a tool's newest versions its page shows
// with their schema diffs: a tool with a long history would otherwise have a
// page whose size grows with every version, while older versions keep their
// worded changes and their schemas' links.
const diffedVersions = 10

// tool is a tool (as t shows it) with its published versions, if any.
func (m *pagesModel) tool(h *timeline.ServerHistory, th *timeline.ToolHistory, t tools.Tool) *pages.Tool {
	pt := &pages.Tool{Name: t.Name, Title: t.Title(), Description: t.Description(), Object: t.Object}
	if th == nil {
		return pt
	}
	repo := m.repos[th.Server]
	for i := len(th.Versions) - 1; i >= 0; i-- {
		v := th.Versions[i]
		pv := &pages.Version{Version: v.Version, Time: v.Time, SchemaPath: sitePath(ArchivePath(v.Slug, th.Name, v.Version)),
			Commit: pages.CommitLink(repo, v.Commit)}
		if v.Change != nil {
			pv.Class = string(v.Change.Class)
			pv.Changes = changeTexts(v.Change)
			if len(th.Versions)-i <= diffedVersions {
				pv.Schemas = &pages.SchemaChange{Old: th.Versions[i-1].Tool.Canonical, New: v.Tool.Canonical}
			}
		}
		pt.Versions = append(pt.Versions, pv)
	}
	pt.SchemaPath = pt.Versions[0].SchemaPath
	pt.Gaps = m.gaps(th.EndpointID(), repo)
	m.tools[th.EndpointID()] = pt
	return pt
}

// gaps lists the times a tool was away from its server: each removal, and
// the announcement that brought it back.
func (m *pagesModel) gaps(endpoint, repo string) []pages.Gap {
	var out []pages.Gap
	away := false
	for _, e := range m.comings[endpoint] {
		step := pages.Step{Time: e.Time, Commit: pages.CommitLink(repo, e.Commit)}
		switch {
		case isRemoval(e):
			step.Version = strings.TrimPrefix(e.Key, "removed ")
			out = append(out, pages.Gap{Removed: step})
			away = true
		case away:
			step.Version = e.Payload.(agentfeed.Announcement).Version
			out[len(out)-1].Back = &step
			away = false
		}
	}
	return out
}

// toolPreview says what the next commit would add to the feed for a tool
// of the working tree, compared with its committed history th (nil when it
// has none), as the timeline will derive it once committed.
func toolPreview(t tools.Tool, th *timeline.ToolHistory) (*pages.Preview, error) {
	if th == nil {
		return &pages.Preview{Kind: pages.PreviewNew, Version: timeline.FirstVersion}, nil
	}
	latest := th.Latest()
	kind := pages.PreviewChanged
	if th.Removed {
		kind = pages.PreviewRestored
	}
	if string(latest.Tool.Canonical) == string(t.Canonical) {
		if th.Removed {
			return &pages.Preview{Kind: kind, Version: latest.Version, From: latest.Version}, nil
		}
		return nil, nil
	}
	diff := schemadiff.Compare(latest.Tool.Object, t.Object)
	next, err := schemadiff.NextVersion(latest.Version, diff.Class)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %v", t.Name, err)
	}
	return &pages.Preview{Kind: kind, Version: next, From: latest.Version, Class: string(diff.Class), Changes: changeTexts(&diff),
		Schemas: &pages.SchemaChange{Old: latest.Tool.Canonical, New: t.Canonical}}, nil
}

func changeTexts(d *schemadiff.Result) []string {
	out := make([]string, len(d.Changes))
	for i, c := range d.Changes {
		out[i] = c.Text
	}
	return out
}

// changes are the feed's entries for people, newest first.
func (m *pagesModel) changes() []*pages.Change {
	announced := map[string]bool{}
	var out []*pages.Change
	for _, e := range m.r.Timeline.Events {
		c := &pages.Change{Time: e.Time, Summary: e.Summary, Server: m.servers[e.EndpointID], Tool: m.tools[e.EndpointID]}
		switch p := e.Payload.(type) {
		case agentfeed.Announcement:
			c.Kind, c.Badge = pages.ChangeAnnouncement, "new"
			if announced[e.EndpointID] {
				c.Badge = "updated"
			}
			announced[e.EndpointID] = true
		case agentfeed.SchemaChange:
			c.Kind, c.Badge = pages.ChangeSchema, p.Compat
			c.Summary = fmt.Sprintf("%s %s → %s", timeline.DisplayName(e.EndpointID), p.FromVersion, p.ToVersion)
			c.Changes = m.versionChanges(e.EndpointID, p.ToVersion)
		case agentfeed.Deprecation:
			c.Kind, c.Badge = pages.ChangeDeprecation, "deprecated"
			if isRemoval(e) {
				c.Badge = "removed"
			}
		}
		out = append(out, c)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// versionChanges returns the change texts of one version of a tool.
func (m *pagesModel) versionChanges(endpoint, version string) []string {
	th := m.history[endpoint]
	if th == nil {
		return nil
	}
	for _, v := range th.Versions {
		if v.Version == version && v.Change != nil {
			return changeTexts(v.Change)
		}
	}
	return nil
}

func remotes(rs []site.Remote) []pages.Remote {
	out := make([]pages.Remote, len(rs))
	for i, r := range rs {
		out[i] = pages.Remote{Type: r.Type, URL: r.URL, ProtocolVersions: r.SupportedProtocolVersions, Variables: inputs(r.Variables)}
		for _, h := range r.Headers {
			out[i].Headers = append(out[i].Headers, input(h.Name, h.Input))
		}
	}
	return out
}

func inputs(vars map[string]site.Input) []pages.Input {
	names := slices.Sorted(maps.Keys(vars))
	out := make([]pages.Input, len(names))
	for i, name := range names {
		out[i] = input(name, vars[name])
	}
	return out
}

func input(name string, in site.Input) pages.Input {
	return pages.Input{Name: name, Description: in.Description, Required: in.IsRequired, Secret: in.IsSecret, Default: in.Default, Choices: in.Choices}
}

// serverDocuments are the places a server's card is published.
func (m *pagesModel) serverDocuments(srv Server) []pages.Link {
	links := []pages.Link{{Title: "Server Card", Path: ServerCardPath(srv.Config.Slug)}}
	// The reserved paths were checked when the cards were added.
	reserved, _ := m.r.reservedCardPaths(srv)
	for _, rc := range reserved {
		links = append(links, pages.Link{Title: "Server Card at its endpoint", Path: rc.Path})
	}
	var out []pages.Link
	for _, l := range links {
		if _, ok := m.r.Bundle.Get(l.Path); ok {
			out = append(out, pages.Link{Title: l.Title, Path: sitePath(l.Path)})
		}
	}
	return out
}

func (m *pagesModel) agents() []pages.Agent {
	var out []pages.Agent
	for _, a := range m.r.Config.Agents {
		pa := pages.Agent{Name: a.Name, Description: a.Description, Version: a.Version, CardPath: sitePath(AgentCardPath(a.Slug))}
		if a.Provider != nil {
			pa.Provider = a.Provider.Organization
		}
		for _, s := range a.Skills {
			pa.Skills = append(pa.Skills, s.Name)
		}
		out = append(out, pa)
	}
	return out
}

func (m *pagesModel) entity() *pages.Entity {
	e := m.r.Config.Entity
	if e == nil {
		return nil
	}
	pe := &pages.Entity{CardPath: sitePath(PathEntityCard)}
	// The top-level entries (0.1.0) are the site's own item, before the entities.
	first := 0
	if len(e.MCPs) > 0 {
		pe.Items, first = append(pe.Items, pages.EntityItem{Name: m.r.Config.Host()}), 1
	}
	for _, item := range e.Entities {
		pi := pages.EntityItem{Name: item.Name}
		if l := item.Location; l != nil {
			pi.Location = strings.Join(nonEmpty(l.City, l.Country), ", ")
		}
		pe.Items = append(pe.Items, pi)
	}
	for _, ref := range e.AllMCPs() {
		item := &pe.Items[first+ref.Entity]
		item.MCPs = append(item.MCPs, m.entityMCP(ref))
	}
	return pe
}

func (m *pagesModel) entityMCP(ref site.EntityMCPRef) pages.EntityMCP {
	out := pages.EntityMCP{Name: ref.MCP.Server, Provider: ref.MCP.Provider, Level: 1}
	if out.Name == "" {
		out.Name = ref.MCP.Endpoint
	}
	// The build publishes only attestations that pass every check and have
	// not expired, so the level depends on the signature alone, never on
	// the time of the build.
	if t, ok := m.r.Attestations[ref.Key]; ok {
		out.Expires = t.ExpiresAt.Format(time.DateOnly)
		if t.Verified {
			out.Level = 2
		}
	}
	return out
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// documentTitles name the site-wide documents.
var documentTitles = map[string]string{
	PathCatalog:             "AI Catalog",
	PathFeed:                "Change feed (Atom, signed)",
	PathSnapshotBesideA2A:   "Change feed snapshot",
	PathServerList:          "MCP servers",
	PathServerCardAlias:     "Server Card of the first server",
	PathAICards:             "AI Cards",
	PathEntityCard:          "Entity card (EDP)",
	"/.well-known/did.json": "DID document",
	"/did.json":             "DID document",
}

// documents lists the machine-readable documents, except the schema
// archive, which the tool pages link to version by version, and the feed's
// archives, which the feed links to.
func (m *pagesModel) documents(servers []Server) []pages.Link {
	titles := map[string]string{PathSnapshot: "Change feed snapshot"}
	if len(m.r.Config.Agents) > 0 {
		titles[PathAgentCard] = "A2A Agent Card"
	}
	for _, s := range servers {
		name := displayName(s.Config.Title, s.Config.Name)
		titles[ServerCardPath(s.Config.Slug)] = "Server Card: " + name
		reserved, _ := m.r.reservedCardPaths(s)
		for _, rc := range reserved {
			titles[rc.Path] = "Server Card: " + name + ", at its endpoint"
		}
	}
	for _, a := range m.r.Config.Agents {
		titles[AgentCardPath(a.Slug)] = "Agent Card: " + a.Name
	}
	var out []pages.Link
	for _, f := range m.r.Bundle.Files() {
		if !deploy.IsDocument(f) || strings.HasPrefix(f.Path, pathArchive) || strings.HasPrefix(f.Path, PathFeedArchives) {
			continue
		}
		title := cmp.Or(documentTitles[f.Path], titles[f.Path], f.Path)
		out = append(out, pages.Link{Title: title, Path: sitePath(f.Path)})
	}
	return out
}

// verify is what the verify page shows: the DID, the keys, the command.
func (m *pagesModel) verify() pages.Verify {
	cfg := m.r.Config
	v := pages.Verify{
		DID:     didweb.DID(cfg.Base()),
		DIDPath: sitePath(didweb.DocumentPath(cfg.Base())),
		Command: "wellknown verify " + strings.TrimSuffix(cfg.URL("/"), "/"),
		Install: release.InstallCommand(), InstallGuide: release.InstallGuide,
		Keys: []pages.Key{key(cfg.Signing.KeyID, true, m.r.Key.Public())},
	}
	for _, p := range cfg.Signing.Previous {
		// Previous keys were checked when the DID document was built.
		if pub, err := didweb.ParseMultibaseKey(p.PublicKey); err == nil {
			v.Keys = append(v.Keys, key(p.ID, false, pub))
		}
	}
	return v
}

func key(id string, current bool, pub ed25519.PublicKey) pages.Key {
	sum := sha256.Sum256(pub)
	return pages.Key{ID: id, Current: current, Base64URL: didweb.EncodeBase64URLKey(pub), Multikey: didweb.EncodeMultikey(pub), SHA256: hex.EncodeToString(sum[:])}
}

// sitePath turns a bundle path into a path relative to the site root, as
// the pages take them.
func sitePath(p string) string { return strings.TrimPrefix(p, "/") }
