package pages

import (
	"cmp"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/attestation"
	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
	"github.com/wellknown-dev/wellknown/internal/version"
	"github.com/wellknown-dev/wellknown/templates"
)

// BuildInput is what a build has made when its pages are rendered.
type BuildInput struct {
	Config      *site.Config
	Servers     []BuildServer      // the configured servers, in site.toml order
	Timeline    *timeline.Timeline // the committed history of the inputs
	CommitRepos map[string]string  // by server name: where its tools' commits are linked
	// Files are the bundle's files so far that the pages show (see Shown),
	// sorted by path: the pages link to the documents among them.
	Files []*bundle.File
	Key   ed25519.PublicKey // the signing key's
	// KeyFile is the signing key's file, which no page, template or asset
	// may be, by any name.
	KeyFile      inputfile.Secret
	Attestations map[string]attestation.Token
	// Cache keeps this rendering's pages for the next and reuses the last
	// one's (see Cache): NewCacheOnce for a rendering no other follows.
	Cache *Cache
	// UseUpTimeline says the caller reads the timeline no more, and that
	// no rendering follows (NewCacheOnce): the model then lets go of each
	// tool's versions and each event once it has made its own of them.
	// Otherwise a long history's timeline and the model made from it, of
	// about the same size, would both be whole at once.
	UseUpTimeline bool
}

// BuildServer is a configured server with its working tree's tools.
type BuildServer struct {
	Config *site.Server
	Tools  []tools.Tool // sorted by name
	// ReservedCards are the paths its card is also published at, on the
	// site's own origin where its remotes are.
	ReservedCards []string
}

// renderBuild renders the human pages: the servers and tools of the working
// tree with their committed history, a preview of what the next commit
// adds to the feed, the feed for people, and the site's own Markdown, with
// the site's templates in place of the defaults they replace. It runs after
// every document is made, since the pages link to them. It hands each file
// to add as it is rendered (see renderWith), which may leave a large page
// in spool. The warnings name content that no page shows.
func renderBuild(in BuildInput, spool *bundle.Spool, add func(File) error) (warnings []*diag.Error, err error) {
	cfg := in.Config
	in.Cache.begin(in.Timeline)
	contentDir := cfg.Path(cfg.ContentDir)
	content, err := readContent(in.Cache.files.FS(cfg.Root, contentDir, inputfile.MaxSize, in.KeyFile), displayIn(contentDir), in.Cache)
	if err != nil {
		return nil, err
	}
	var versions *bundle.Spool
	if in.Cache.once {
		// Only then: a cache keeps the Site for the next rendering,
		// which outlives the spool.
		versions = spool
	}
	s, err := newModel(in, versions).site(content)
	if err != nil {
		return nil, err
	}
	if in.Cache.once {
		// The pages render from s alone. Without a rendering after this
		// one to compare with, nothing holds the timeline while they do:
		// it is the largest part of a long history's build.
		in.Timeline = nil
	}
	warnings = append(orphanDocs(s, contentDir), strayMarkdown(contentDir)...)
	tfs := Templates(in.Cache.files.FS(cfg.Root, cfg.Path(cfg.TemplatesDir), inputfile.MaxSize, in.KeyFile), templates.FS)
	f, err := newFrames(in, content, tfs, in.Cache.history)
	if err != nil {
		return nil, err
	}
	r, err := renderWith(s, tfs, in.Cache, f, spool, add)
	if err != nil {
		return nil, err
	}
	in.Cache.end()
	in.Cache.keep(r, in, contentDir)
	return warnings, nil
}

// displayIn turns a path under dir, as an fs.FS names it, into the name
// used in errors.
func displayIn(dir string) func(rel string) string {
	return func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
}

// strayMarkdown warns about Markdown files at the top of the content
// directory that no page is made from (only index.md is).
func strayMarkdown(contentDir string) []*diag.Error {
	var out []*diag.Error
	entries, _ := os.ReadDir(contentDir)
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") && e.Name() != "index.md" {
			out = append(out, diag.Errorf(filepath.Join(contentDir, e.Name()), 0, "not published: the home page's prose is index.md").
				WithHint("pages go under %s", filepath.Join(contentDir, "pages")+string(filepath.Separator)))
		}
	}
	return out
}

// orphanDocs warns about server docs that no server's page shows.
func orphanDocs(s *Site, contentDir string) []*diag.Error {
	var out []*diag.Error
	for _, slug := range slices.Sorted(maps.Keys(s.Content.ServerDocs)) {
		if !slices.ContainsFunc(s.Servers, func(srv *Server) bool { return srv.Slug == slug }) {
			out = append(out, diag.Errorf(filepath.Join(contentDir, "servers", slug, "README.md"), 0,
				"no server has the slug %q, so no page shows these docs", slug))
		}
	}
	return out
}

// model turns a build's results into the pages' Site.
type model struct {
	in        BuildInput
	files     []*bundle.File       // the bundle's files the pages show (BuildInput.Files)
	published map[string]bool      // their paths
	removedAt map[string]time.Time // by endpoint id: when it was last removed
	servers   map[string]*Server   // by server name
	tools     map[string]*Tool     // by endpoint id
	history   map[string]*timeline.ToolHistory
	comings   map[string][]timeline.Event // by endpoint id: its announcements and removals, in order
	repos     map[string]string           // by server name: where its tools' commits are linked
	useUp     bool                        // see BuildInput.UseUpTimeline
	// The changelog's entries, oldest first, planned before the tool
	// pages (see changelog); untold has the schema changes no tool page
	// has made yet (entries of no version in changes). Each endpoint is
	// in abouts, one for all its entries, which an entry's otherChange
	// or its version's run names, and links its pages once they are
	// made (see linkedChanges).
	changes  []Change
	abouts   map[string]*changeAbout // by endpoint id
	untold   map[*timeline.ToolHistory]untold
	texts    []string     // a version's texts while it is made (see version)
	versions versionMaker // which makes every Version, a tool's in a run
}

// newModel makes the model of in, which puts the versions' packed bytes
// in spool, when not nil (see versionRun).
func newModel(in BuildInput, spool *bundle.Spool) *model {
	m := &model{in: in, published: map[string]bool{}, removedAt: map[string]time.Time{}, servers: map[string]*Server{},
		tools: map[string]*Tool{}, history: map[string]*timeline.ToolHistory{},
		comings: map[string][]timeline.Event{}, repos: in.CommitRepos, useUp: in.UseUpTimeline && in.Cache.once,
		versions: versionMaker{spool: spool}}
	m.files = in.Files
	for _, f := range in.Files {
		m.published[f.Path] = true
	}
	for e := range in.Timeline.Events() {
		if isRemoval(e) {
			m.removedAt[e.EndpointID] = e.Time
		}
		if isRemoval(e) || e.Type == agentfeed.TypeAnnouncement {
			m.comings[e.EndpointID] = append(m.comings[e.EndpointID], e)
		}
	}
	for _, s := range in.Timeline.Servers {
		for _, t := range s.Tools {
			m.history[t.EndpointID()] = t
		}
	}
	return m
}

func (m *model) site(content Content) (*Site, error) {
	cfg := m.in.Config
	s := &Site{
		Title:       cfg.Title,
		Description: cfg.Description,
		BaseURL:     cfg.URL("/"),
		CatalogPath: sitePath(paths.Catalog),
		Content:     content,
		Agents:      m.agents(),
		Entity:      m.entity(),
		Documents:   m.documents(),
		Verify:      m.verify(),
	}
	if m.published[paths.Feed] {
		s.FeedPath = sitePath(paths.Feed)
	}
	m.changelog()
	configured := map[string]bool{}
	slugs := map[string]bool{}
	for _, srv := range m.in.Servers {
		ps, err := m.server(srv)
		if err != nil {
			return nil, err
		}
		s.Servers = append(s.Servers, ps)
		configured[srv.Config.Name] = true
		slugs[srv.Config.Slug] = true
	}
	for _, h := range m.in.Timeline.Servers {
		// A removed server whose slug a configured one took has no pages:
		// the changelog still lists what happened to it.
		if configured[h.Name] || slugs[h.Last.Slug] {
			if m.useUp {
				// The changelog's entries are made now, from the
				// versions about to be let go (see linkedChanges).
				for _, th := range h.Tools {
					if err := m.tell(th); err != nil {
						return nil, err
					}
					th.LetGo()
				}
			}
			continue
		}
		slugs[h.Last.Slug] = true
		removed, err := m.removedServer(h)
		if err != nil {
			return nil, err
		}
		s.Servers = append(s.Servers, removed)
	}
	var err error
	s.Changes, err = m.linkedChanges()
	return s, err
}

// server is a configured server: its tools from the working tree, with
// their committed history and what the next commit would add.
func (m *model) server(srv BuildServer) (*Server, error) {
	c := srv.Config
	h := m.committed(c.Name)
	ps := &Server{
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
		pt, err := m.tool(h, th, t)
		if err != nil {
			return nil, err
		}
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
			latest := th.Latest()
			pt, err := m.tool(h, th, latest.Tool)
			if err != nil {
				return nil, err
			}
			if th.Removed {
				pt.Removed = m.removal(th.EndpointID(), latest.Version)
			} else {
				pt.Preview = &Preview{Kind: PreviewRemoved, From: latest.Version}
			}
			ps.Tools = append(ps.Tools, pt)
		}
	}
	sort.Slice(ps.Tools, func(i, j int) bool { return ps.Tools[i].Name < ps.Tools[j].Name })
	return ps, nil
}

// removedServer is a server the site no longer configures, as last committed.
func (m *model) removedServer(h *timeline.ServerHistory) (*Server, error) {
	ps := &Server{Slug: h.Last.Slug, Name: h.Name, Version: h.Last.Version, Removed: m.removal(h.Name, h.Last.Version)}
	m.servers[h.Name] = ps
	for _, th := range h.Tools {
		latest := th.Latest()
		pt, err := m.tool(h, th, latest.Tool)
		if err != nil {
			return nil, err
		}
		pt.Removed = m.removal(th.EndpointID(), latest.Version)
		ps.Tools = append(ps.Tools, pt)
	}
	return ps, nil
}

// removal says when the endpoint was removed, at its last version.
func (m *model) removal(endpoint, version string) *Removal {
	return &Removal{Time: m.removedAt[endpoint], Version: version}
}

// isRemoval reports whether an event is the deprecation the timeline
// derives when an endpoint disappears (whose key is "removed <version>").
func isRemoval(e timeline.Event) bool {
	return e.Type == agentfeed.TypeDeprecation && strings.HasPrefix(e.Key, "removed ")
}

// committed returns the committed history of the named server, or nil.
func (m *model) committed(name string) *timeline.ServerHistory {
	for _, h := range m.in.Timeline.Servers {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// DiffedVersions is how many of a tool's newest versions its page shows
// with their schema diffs: a tool with a long history would otherwise have a
// page whose size grows with every version, while older versions keep their
// worded changes and their schemas' links.
const DiffedVersions = 10

// tool is a tool (as t shows it) with its published versions, if any.
func (m *model) tool(h *timeline.ServerHistory, th *timeline.ToolHistory, t tools.Tool) (*Tool, error) {
	pt := &Tool{Name: t.Name, Title: t.Title(), Description: t.Description(), Object: t.Object}
	if th == nil {
		return pt, nil
	}
	// about is the endpoint of th's changelog entries (see changelog),
	// which its versions' runs name.
	repo, about := m.repos[th.Server], m.abouts[th.EndpointID()]
	// Versions are read one at a time: a tool's earlier versions are
	// made when asked for (see timeline.ToolHistory).
	n := th.Len()
	before := th.At(n - 1)
	// Made with their final length, so that the address of a version,
	// which the changelog's entry of its change holds, stays its own.
	pt.Versions = make([]Version, n)
	u := m.untold[th]
	for i := n - 1; i >= 0; i-- {
		v := before
		if i > 0 {
			before = th.At(i - 1)
		}
		d := v.Change()
		pv := &pt.Versions[n-1-i]
		*pv = m.version(th, about, v, d, repo)
		if d != nil && n-i <= DiffedVersions {
			pv.setSchemas(newSchemaChange(before.Tool, v.Tool))
		}
		if u != nil && u[i] != 0 {
			// The changelog's entry names the version: a long history
			// lists each change on both.
			m.changes[u[i]-1].version = pv
		}
	}
	delete(m.untold, th)
	if err := m.versions.finish(); err != nil {
		return nil, err
	}
	pt.SchemaPath = pt.Versions[0].SchemaPath()
	pt.Gaps = m.gaps(th.EndpointID(), repo)
	m.tools[th.EndpointID()] = pt
	if m.useUp {
		// pt has every version, and the changelog every event (see
		// changelog): nothing else holds the versions.
		th.LetGo()
	}
	return pt, nil
}

// version is the pages' version of th's version v, which made change d
// (nil for the first), in a commit of repo; about is th's endpoint.
func (m *model) version(th *timeline.ToolHistory, about *changeAbout, v *timeline.Version, d *schemadiff.Result, repo string) Version {
	var class string
	m.texts = m.texts[:0]
	if d != nil {
		class = string(d.Class)
		for _, c := range d.Changes {
			m.texts = append(m.texts, c.Text)
		}
	}
	return m.versions.make(v.Version, v.From, v.Time, sitePath(paths.ToolVersions(v.Slug, th.Name)), about, class, CommitLink(repo, v.Commit), v.Release, m.texts)
}

// gaps lists the times a tool was away from its server: each removal, and
// the announcement that brought it back.
func (m *model) gaps(endpoint, repo string) []Gap {
	var out []Gap
	away := false
	for _, e := range m.comings[endpoint] {
		step := Step{Time: e.Time, Commit: CommitLink(repo, e.Commit)}
		switch {
		case isRemoval(e):
			step.Version = strings.TrimPrefix(e.Key, "removed ")
			out = append(out, Gap{Removed: step})
			away = true
		case away:
			step.Version = e.Payload().(agentfeed.Announcement).Version
			out[len(out)-1].Back = &step
			away = false
		}
	}
	return out
}

// toolPreview says what the next commit would add to the feed for a tool
// of the working tree, compared with its committed history th (nil when it
// has none), as the timeline will derive it once committed.
func toolPreview(t tools.Tool, th *timeline.ToolHistory) (*Preview, error) {
	if th == nil {
		return &Preview{Kind: PreviewNew, Version: timeline.FirstVersion}, nil
	}
	latest := th.Latest()
	kind := PreviewChanged
	if th.Removed {
		kind = PreviewRestored
	}
	if string(latest.Tool.Canonical) == string(t.Canonical) {
		if th.Removed {
			return &Preview{Kind: kind, Version: latest.Version, From: latest.Version}, nil
		}
		return nil, nil
	}
	diff := schemadiff.Compare(latest.Tool.Object, t.Object)
	next, err := schemadiff.NextVersion(latest.Version, diff.Class)
	if err != nil {
		return nil, fmt.Errorf("tool %s: %v", t.Name, err)
	}
	return &Preview{Kind: kind, Version: next, From: latest.Version, Class: string(diff.Class), Changes: changeTexts(&diff),
		Schemas: newSchemaChange(latest.Tool, t)}, nil
}

// changeTexts are the texts of a diff's changes, in one string of their
// own: an unpacked change's texts are parts of its packed string (see
// schemadiff.Packed), which would keep all of it, pointers, classes and
// migration too, for as long as the pages hold the texts.
func changeTexts(d *schemadiff.Result) []string {
	n := 0
	for _, c := range d.Changes {
		n += len(c.Text)
	}
	var b strings.Builder
	b.Grow(n)
	for _, c := range d.Changes {
		b.WriteString(c.Text)
	}
	all := b.String()
	out := make([]string, len(d.Changes))
	for i, c := range d.Changes {
		out[i], all = all[:len(c.Text)], all[len(c.Text):]
	}
	return out
}

// changelog makes the feed's entries for people, before any tool page.
// A schema change's entry is only planned: tool makes it with its
// version's badge and texts on the tool's page. Using the timeline up, it
// lets go of the events once read: while the tool pages are made, each
// tool's versions are then held by its history alone (and its schema
// changes by untold, until made), which tool drops, and the timeline
// shrinks as the model grows, the schema changes' entries, most of the
// changelog, with it.
func (m *model) changelog() {
	announced := map[string]bool{}
	m.abouts, m.untold = map[string]*changeAbout{}, map[*timeline.ToolHistory]untold{}
	m.changes = make([]Change, 0, m.in.Timeline.EventCount())
	for e := range m.in.Timeline.Events() {
		a := m.abouts[e.EndpointID]
		if a == nil {
			a = &changeAbout{endpoint: e.EndpointID}
			m.abouts[e.EndpointID] = a
		}
		var c Change
		switch e.Type {
		case agentfeed.TypeAnnouncement:
			badge := "new"
			if announced[e.EndpointID] {
				badge = "updated"
			}
			announced[e.EndpointID] = true
			c = otherEntry(a, ChangeAnnouncement, badge, e.Time, e.Summary())
		case agentfeed.TypeSchemaChange:
			// A timeline's schema change names its version, which the
			// entry names once made (see tool and tellOf).
			th, i := e.VersionAt()
			u := m.untold[th]
			if u == nil {
				u = make(untold, th.Len())
				m.untold[th] = u
			}
			u[i] = int32(len(m.changes) + 1)
		case agentfeed.TypeDeprecation:
			badge := "deprecated"
			if isRemoval(e) {
				badge = "removed"
			}
			c = otherEntry(a, ChangeDeprecation, badge, e.Time, e.Summary())
		default:
			c = otherEntry(a, "", "", e.Time, "")
		}
		m.changes = append(m.changes, c)
	}
	if m.useUp {
		m.in.Timeline.LetGoOfEvents()
	}
}

// linkedChanges finishes the changelog once the tool pages are made, and
// returns it newest first: each entry links its endpoint's pages, and a
// schema change no page shows (a removed server's whose slug a configured
// one took) has its badge and texts from its version.
func (m *model) linkedChanges() ([]Change, error) {
	for th := range m.untold {
		m.tellOf(th)
	}
	if err := m.versions.finish(); err != nil {
		return nil, err
	}
	for _, a := range m.abouts {
		a.server, a.tool = m.servers[a.endpoint], m.tools[a.endpoint]
	}
	out := m.changes
	slices.Reverse(out)
	m.changes, m.abouts, m.untold = nil, nil, nil
	return out, nil
}

// untold is the schema changes to a tool's versions whose changelog
// entries no page has made: by the version's index in its history (see
// timeline.Event.VersionAt), 1 + the entry's place in model.changes, or
// 0 for none. A history's earlier versions are made anew each time they
// are asked for, so a *timeline.Version cannot name one, and an index
// each is a fraction of a map's entry.
type untold []int32

// tell makes the changelog's entries of the schema changes to th's
// versions that no page told.
func (m *model) tell(th *timeline.ToolHistory) error {
	m.tellOf(th)
	return m.versions.finish()
}

// tellOf makes the changelog's entries of the schema changes to th's
// versions that no page told, which can be read once the versions are
// finished. Their times are their events': both are the commit's. The
// versions are held as a tool's page holds them, in a slice of th's
// length, in which the few that are no schema change (the first, and
// any return) stay empty.
func (m *model) tellOf(th *timeline.ToolHistory) {
	u := m.untold[th]
	if u == nil {
		return
	}
	told := make([]Version, len(u))
	about := m.abouts[th.EndpointID()]
	for i, at := range u {
		if at != 0 {
			v := th.At(i)
			told[i] = m.version(th, about, v, v.Change(), m.repos[th.Server])
			m.changes[at-1].version = &told[i]
		}
	}
	delete(m.untold, th)
}

func remotes(rs []site.Remote) []Remote {
	out := make([]Remote, len(rs))
	for i, r := range rs {
		out[i] = Remote{Type: r.Type, URL: r.URL, ProtocolVersions: r.SupportedProtocolVersions, Variables: inputs(r.Variables)}
		for _, h := range r.Headers {
			out[i].Headers = append(out[i].Headers, input(h.Name, h.Input))
		}
	}
	return out
}

func inputs(vars map[string]site.Input) []Input {
	names := slices.Sorted(maps.Keys(vars))
	out := make([]Input, len(names))
	for i, name := range names {
		out[i] = input(name, vars[name])
	}
	return out
}

func input(name string, in site.Input) Input {
	return Input{Name: name, Description: in.Description, Required: in.IsRequired, Secret: in.IsSecret, Default: in.Default, Choices: in.Choices}
}

// serverDocuments are the places a server's card is published.
func (m *model) serverDocuments(srv BuildServer) []Link {
	links := []Link{{Title: "Server Card", Path: paths.ServerCardOf(srv.Config.Slug)}}
	for _, p := range srv.ReservedCards {
		links = append(links, Link{Title: "Server Card at its endpoint", Path: p})
	}
	var out []Link
	for _, l := range links {
		if m.published[l.Path] {
			out = append(out, Link{Title: l.Title, Path: sitePath(l.Path)})
		}
	}
	return out
}

func (m *model) agents() []Agent {
	var out []Agent
	for _, a := range m.in.Config.Agents {
		pa := Agent{Name: a.Name, Description: a.Description, Version: a.Version, CardPath: sitePath(paths.AgentCardOf(a.Slug))}
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

func (m *model) entity() *Entity {
	e := m.in.Config.Entity
	if e == nil {
		return nil
	}
	pe := &Entity{CardPath: sitePath(paths.EntityCard)}
	// The top-level entries (0.1.0) are the site's own item, before the entities.
	first := 0
	if len(e.MCPs) > 0 {
		pe.Items, first = append(pe.Items, EntityItem{Name: m.in.Config.Host()}), 1
	}
	for _, item := range e.Entities {
		pi := EntityItem{Name: item.Name}
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

func (m *model) entityMCP(ref site.EntityMCPRef) EntityMCP {
	out := EntityMCP{Name: ref.MCP.Server, Provider: ref.MCP.Provider, Level: 1}
	if out.Name == "" {
		out.Name = ref.MCP.Endpoint
	}
	// The build publishes only attestations that pass every check and have
	// not expired, so the level depends on the signature alone, never on
	// the time of the build.
	if t, ok := m.in.Attestations[ref.Key]; ok {
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
	paths.Catalog:           "AI Catalog",
	paths.Feed:              "Change feed (Atom, signed)",
	paths.SnapshotBesideA2A: "Change feed snapshot",
	paths.ServerList:        "MCP servers",
	paths.ServerCardAlias:   "Server Card of the first server",
	paths.AICards:           "AI Cards",
	paths.EntityCard:        "Entity card (EDP)",
	"/.well-known/did.json": "DID document",
	"/did.json":             "DID document",
}

// documents lists the machine-readable documents.
func (m *model) documents() []Link {
	titles := map[string]string{paths.Snapshot: "Change feed snapshot"}
	if len(m.in.Config.Agents) > 0 {
		titles[paths.AgentCard] = "A2A Agent Card"
	}
	for _, s := range m.in.Servers {
		name := cmp.Or(s.Config.Title, s.Config.Name)
		titles[paths.ServerCardOf(s.Config.Slug)] = "Server Card: " + name
		for _, p := range s.ReservedCards {
			titles[p] = "Server Card: " + name + ", at its endpoint"
		}
	}
	for _, a := range m.in.Config.Agents {
		titles[paths.AgentCardOf(a.Slug)] = "Agent Card: " + a.Name
	}
	var out []Link
	for _, f := range m.files {
		if !f.IsDocument() {
			continue
		}
		title := cmp.Or(documentTitles[f.Path], titles[f.Path], f.Path)
		out = append(out, Link{Title: title, Path: sitePath(f.Path)})
	}
	return out
}

// Shown returns the files the pages show: not the schema archive, which
// the tool pages link to version by version from the history, nor the
// feed's archives, which the feed links to. A commit adds to those, and
// the pages that show no history need not change with it; a long history
// has a hundred thousand, which the pages need not hold.
func Shown(files iter.Seq[*bundle.File]) []*bundle.File {
	var out []*bundle.File
	for f := range files {
		if !strings.HasPrefix(f.Path, paths.SchemaArchive) && !strings.HasPrefix(f.Path, paths.FeedArchives) {
			out = append(out, f)
		}
	}
	return out
}

// verify is what the verify page shows: the DID, the keys, the command.
func (m *model) verify() Verify {
	cfg := m.in.Config
	v := Verify{
		DID:     didweb.DID(cfg.Base()),
		DIDPath: sitePath(didweb.DocumentPath(cfg.Base())),
		Command: "wellknown verify " + strings.TrimSuffix(cfg.URL("/"), "/"),
		Install: version.InstallCommand(), InstallGuide: version.InstallGuide,
		Keys: []Key{key(cfg.Signing.KeyID, true, m.in.Key)},
	}
	for _, p := range cfg.Signing.Previous {
		// Previous keys were checked when the DID document was built.
		if pub, err := didweb.ParseMultibaseKey(p.PublicKey); err == nil {
			v.Keys = append(v.Keys, key(p.ID, false, pub))
		}
	}
	return v
}

func key(id string, current bool, pub ed25519.PublicKey) Key {
	sum := sha256.Sum256(pub)
	return Key{ID: id, Current: current, Base64URL: didweb.EncodeBase64URLKey(pub), Multikey: didweb.EncodeMultikey(pub), SHA256: hex.EncodeToString(sum[:])}
}

// sitePath turns a bundle path into a path relative to the site root, as
// the pages take them.
func sitePath(p string) string { return strings.TrimPrefix(p, "/") }
