// Package pages renders a site's human pages: what a developer opens to
// learn what a server offers and what changed. Add fills a Site from what
// a build made (its config, history, documents and key), which it is
// handed, never asks the build for, renders it and adds the pages to the
// bundle.
//
// # Pages
//
//	/index.html                               home: the site's prose, then its servers, agents and entity
//	/servers/<slug>/index.html                a server: card fields, how to connect, tools, its docs
//	/servers/<slug>/tools/<tool>/index.html   a tool: schema, unpublished changes, version history
//	/changelog/index.html                     the change feed, for people
//	/verify/index.html                        the DID, the key fingerprints, the verify command
//	/<name>/index.html                        a page of the site's own (content/pages/<name>.md)
//	/404.html                                 the page hosts send for a missing path
//	/assets/…                                 the style sheet, the icon, the feed's XSLT style sheet, and any file a site adds
//
// None of these can be a machine-readable document's path: documents live
// under /.well-known/, /mcp/, /a2a/ and at a remote's path plus
// "/server-card", and the names of those trees are reserved for pages.
//
// # Content
//
// Markdown comes from the site's content directory:
// index.md is the home page's prose, servers/<slug>/README.md a server's
// documentation (its headings moved below the page's own), and every
// pages/<name>.md a page of its own at /<name>/, titled by its first
// level-1 heading. Pages may be in directories: pages/guides/install.md is
// /guides/install/, and pages/guides/index.md is /guides/, which lists the
// pages of its directory. The navigation lists the top-level pages, in
// file-name order; hidden files are skipped. Markdown is CommonMark with
// GitHub's extensions (tables, strikethrough, autolinks, task lists) and
// heading ids; raw HTML is left out and javascript: links are dropped. A
// link to a root path ("/servers/x/") is rewritten relative to the page, so
// that it works under a base URL with a path.
//
// # Templates
//
// Pages are html/template templates (Templates): layout.html defines
// "layout", which every page executes, and "nav"; partials.html holds
// shared definitions; each kind of page has its file (index.html,
// server.html, tool.html, changelog.html, verify.html, page.html,
// 404.html), which defines "main" and may define "title". Every file under
// assets/ is published under /assets/. A site's own templates directory
// replaces any of these files, and may add assets.
//
// Each template gets a *Page. Every path in the data is relative to the
// site root, without a leading slash, and a template links to it as
// {{$.Root}}{{.Path}}, so that links work wherever the site is published.
// Everything from config and tool schemas is untrusted text and reaches the
// page only through html/template's contextual escaping; only Markdown
// rendered here (with raw HTML off) is inserted as HTML.
//
// The template function "shared" renders a template once for all pages at
// one depth (see renderer.executeShared): the default layout renders the
// head's links, the header with the navigation, and the footer with it.
// Pages are rendered in parallel. In a build to disk, a large page goes to
// the bundle's spool as it renders (see pageBuffer).
package pages

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wellknown-dev/wellknown/format/linediff"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/parallel"
)

// Site is everything the pages show.
type Site struct {
	Title       string
	Description string
	BaseURL     string // the absolute URL of the site root, ending in "/"
	CatalogPath string // the AI Catalog
	FeedPath    string // the change feed; "" when there is none
	Content     Content
	Servers     []*Server // configured servers, then removed ones
	Agents      []Agent
	Entity      *Entity  // nil when the site has none
	Documents   []Link   // the site's machine-readable documents
	Changes     []Change // the change feed's entries, newest first
	Verify      Verify
}

// CurrentServers returns the servers the site configures.
func (s *Site) CurrentServers() []*Server {
	return slices.DeleteFunc(slices.Clone(s.Servers), (*Server).removed)
}

// RemovedServers returns the servers the site no longer configures.
func (s *Site) RemovedServers() []*Server {
	return slices.DeleteFunc(slices.Clone(s.Servers), func(s *Server) bool { return !s.removed() })
}

// Server is an MCP server.
type Server struct {
	Slug        string
	Name        string
	Title       string // for people; defaults to Name
	Description string
	Version     string
	WebsiteURL  string
	Repository  string // the source repository's URL
	Remotes     []Remote
	Documents   []Link // its Server Card (and where else it is published)
	Tools       []*Tool
	Removed     *Removal // the server is no longer configured
	Unpublished bool     // not in the committed history yet
}

// Remote is a way to connect to a server.
type Remote struct {
	Type             string // "streamable-http", "sse"
	URL              string
	ProtocolVersions []string
	Headers          []Input
	Variables        []Input // variables of the URL
}

// Input is a header or URL variable a client supplies.
type Input struct {
	Name        string
	Description string
	Required    bool
	Secret      bool
	Default     string
	Choices     []string
}

// Tool is one tool of a server: its current state, its published versions
// and what the working tree would add to them.
type Tool struct {
	Name        string
	Title       string // its title, or its annotations' title
	Description string
	// Object is the tool object as tools/list returns it: the working
	// tree's, or for a removed tool its last published version.
	Object     map[string]any
	SchemaPath string    // the archived copy of Object; "" when unpublished
	Versions   []Version // published versions, newest first
	Removed    *Removal  // the tool was removed from its server
	Gaps       []Gap     // every time it was away from its server, oldest first
	Preview    *Preview  // uncommitted changes; nil when there are none

	server *Server
	inputs func() []Param // Params of the input schema, computed once
}

// Version is one published version of a tool. Its version, time, class,
// texts, commit, release and schemas are methods, which a template calls
// as it reads a field: a long history has a version for each of a
// hundred thousand commits, and a Version holds only where its packed
// bytes lie (see versionMaker.make) among those of the run of versions it
// was made in. A tool holds its Versions as values, in one slice, rather
// than each in an allocation of its own behind a pointer.
type Version struct {
	at  uint64      // its packed bytes' offset in its run's in the upper 32 bits, their size in the lower
	run *versionRun // nil in a Version made without a versionMaker
}

// versionRun is what versions of one endpoint made one after another,
// whose schemas are in one folder, share.
type versionRun struct {
	folder string // where their schemas are (see SchemaPath)
	// Their endpoint, which the changelog entry of each one's change is
	// about: held here once for a run rather than in every entry.
	about *changeAbout
	// Their packed bytes, one after another. In a build to disk they are
	// in its spool instead, where stored names them (see
	// bundle.Spool.Handle), read back when a page asks for a version and
	// kept a while in read (see readBacks): a long history's would
	// otherwise be most of what the pages hold.
	packed string
	spool  *bundle.Spool
	stored uint64
	read   atomic.Pointer[string]
	kept   *readBacks
	// The schemas of the few versions whose page shows their diff, and
	// the times the packed seconds would not give back as they are: with
	// a zone other than UTC, or a fraction of a second. Both are keyed by
	// where a version's bytes lie in the run (Version.at), which any copy
	// of the Version has too, as its address would not.
	schemas map[uint64]*SchemaChange
	times   map[uint64]time.Time
}

// runBytes is the size from which a run takes no more versions: a
// spooled run is read back whole, a read for about twenty versions.
const runBytes = 2 << 10

// packedAt returns the packed bytes of the run's version at at. A read
// back from the spool that fails gives nothing, and fails the build (see
// bundle.Spool.ReadFailed).
func (r *versionRun) packedAt(at uint64) string {
	packed := r.packed
	if r.spool != nil {
		if read := r.read.Load(); read != nil {
			packed = *read
		} else {
			b, err := r.spool.Stored(r.stored).Read()
			if err != nil {
				return ""
			}
			packed = string(b)
			r.read.Store(&packed)
			r.kept.keep(r)
		}
	}
	off := at >> 32
	return packed[off : off+at&(1<<32-1)]
}

// readBacks are the spooled runs last read back, whose bytes they keep:
// a tool's page reads its versions in the order they were made, newest
// first, and so does the changelog, each tool's in turn with the others',
// so that each run is read about once for each, while the runs kept are
// bounded.
type readBacks struct {
	mu   sync.Mutex
	runs [512]*versionRun
	next int // the slot of the run to let go of next
}

// keep keeps the bytes of r, read back, and lets go of those of the run
// read back longest ago.
func (k *readBacks) keep(r *versionRun) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if old := k.runs[k.next]; old != nil && old != r {
		old.read.Store(nil)
	}
	k.runs[k.next] = r
	k.next = (k.next + 1) % len(k.runs)
}

// versionMaker makes Versions, each in the run of the versions made
// before it that share its folder and endpoint, until the run is
// finished.
type versionMaker struct {
	spool *bundle.Spool // where the runs' packed bytes go; nil to hold them
	kept  *readBacks    // the spooled runs read back, which all its runs share
	run   *versionRun   // the run being made
	buf   []byte        // its packed bytes so far
	// The last run's folder, which the next shares when it is the same:
	// a tool's versions mostly have one, in many runs.
	folder string
	err    error // the first put in the spool that failed
}

// SchemaPath is where the version's immutable schema is, relative to the
// site's root: made when asked for, since a path of its own for each of
// a hundred thousand versions would be most of what it holds.
func (v *Version) SchemaPath() string {
	if v.run == nil {
		return v.Version() + ".json"
	}
	return v.run.folder + v.Version() + ".json"
}

// classes are the classes of change a version's packed bytes name by
// their index; any other is spelled out after the byte classOther.
var classes = []string{"", string(schemadiff.Cosmetic), string(schemadiff.Compatible), string(schemadiff.Breaking)}

const classOther = 0xff

// make makes version of the endpoint about, replacing from ("" for the
// first), made at a time with a class of change, commit, release and
// texts, whose schema is in folder. Its packed bytes are the class's
// index in classes (or classOther and the class), the time in Unix
// seconds as a varint, then the version, from, the commit's short hash
// and URL, the release and each text, each after its length as a
// uvarint. It can be read once its run is finished.
func (mk *versionMaker) make(version, from string, at time.Time, folder string, about *changeAbout, class string, commit Commit, release string, texts []string) Version {
	// A run names one endpoint, and two endpoints' versions can share a
	// folder (tools of one name of two removed servers that had one
	// slug) and be made one after another (see model.linkedChanges).
	if mk.run == nil || mk.run.folder != folder || mk.run.about != about || len(mk.buf) >= runBytes {
		mk.finish()
		if folder != mk.folder {
			mk.folder = folder
		}
		mk.run = &versionRun{folder: mk.folder, about: about}
	}
	secs := at.Unix()
	// Compared as values: the time must come back with its zone and
	// monotonic reading too, as a template may print it whole.
	keepTime := time.Unix(secs, 0).UTC() != at
	if keepTime {
		secs = 0
	}
	start := len(mk.buf)
	b := mk.buf
	if i := slices.Index(classes, class); i >= 0 {
		b = append(b, byte(i))
	} else {
		b = appendPacked(append(b, classOther), class)
	}
	b = binary.AppendVarint(b, secs)
	for _, s := range [...]string{version, from, commit.Short, commit.URL, release} {
		b = appendPacked(b, s)
	}
	for _, t := range texts {
		b = appendPacked(b, t)
	}
	mk.buf = b
	v := Version{at: uint64(start)<<32 | uint64(len(b)-start), run: mk.run}
	if keepTime {
		if v.run.times == nil {
			v.run.times = map[uint64]time.Time{}
		}
		v.run.times[v.at] = at
	}
	return v
}

// finish ends the run being made, whose versions can be read from then
// on: its bytes go to the spool, when there is one and a handle can name
// them, else into a string. It returns the first error of a put in the
// spool.
func (mk *versionMaker) finish() error {
	r := mk.run
	if r == nil {
		return mk.err
	}
	mk.run = nil
	if mk.spool != nil && mk.err == nil {
		var stored *bundle.Spooled
		if stored, mk.err = mk.spool.Put(mk.buf); mk.err == nil {
			if handle, ok := mk.spool.Handle(stored); ok {
				if mk.kept == nil {
					mk.kept = &readBacks{}
				}
				r.spool, r.stored, r.kept = mk.spool, handle, mk.kept
			}
		}
	}
	if r.spool == nil {
		r.packed = string(mk.buf)
	}
	mk.buf = mk.buf[:0]
	return mk.err
}

// setSchemas sets the version's schema and the one before it, which its
// page shows as a diff.
func (v *Version) setSchemas(c *SchemaChange) {
	if v.run.schemas == nil {
		v.run.schemas = map[uint64]*SchemaChange{}
	}
	v.run.schemas[v.at] = c
}

// Schemas are the version's schema and the version before's, when its
// page shows their diff (see DiffedVersions); nil for the first version.
func (v *Version) Schemas() *SchemaChange {
	if v.run == nil {
		return nil
	}
	return v.run.schemas[v.at]
}

func appendPacked(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// nextUvarint splits the first uvarint off a packed rest.
func nextUvarint(rest string) (n uint64, after string) {
	for shift := 0; ; shift += 7 {
		c := rest[0]
		rest = rest[1:]
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n, rest
		}
	}
}

// nextPacked splits the first string off a packed rest.
func nextPacked(rest string) (s, after string) {
	n, rest := nextUvarint(rest)
	return rest[:n], rest[n:]
}

// unpacked is what a version's packed bytes hold.
type unpacked struct {
	class         string
	secs          int64
	version, from string
	commit        Commit
	release       string
	texts         string // still packed
}

// packed returns the version's packed bytes: none for a Version made
// without a versionMaker, or not read back (see versionRun.packedAt).
func (v *Version) packed() string {
	if v.run == nil {
		return ""
	}
	return v.run.packedAt(v.at)
}

func (v *Version) unpack() (u unpacked) {
	rest := v.packed()
	if rest == "" {
		return u
	}
	if i := rest[0]; i == classOther {
		u.class, rest = nextPacked(rest[1:])
	} else {
		u.class, rest = classes[i], rest[1:]
	}
	var zigzag uint64
	zigzag, rest = nextUvarint(rest)
	u.secs = int64(zigzag >> 1) // as binary.AppendVarint wrote it
	if zigzag&1 != 0 {
		u.secs = ^u.secs
	}
	u.version, rest = nextPacked(rest)
	u.from, rest = nextPacked(rest)
	u.commit.Short, rest = nextPacked(rest)
	u.commit.URL, rest = nextPacked(rest)
	u.release, u.texts = nextPacked(rest)
	return u
}

// Version is the version's number, such as "1.2.0".
func (v *Version) Version() string { return v.unpack().version }

// Time is the time of the commit that made the version.
func (v *Version) Time() time.Time {
	if v.run == nil {
		return time.Time{}
	}
	if t, ok := v.run.times[v.at]; ok {
		return t
	}
	if v.packed() == "" {
		return time.Time{}
	}
	return time.Unix(v.unpack().secs, 0).UTC()
}

// Class is the class of the version's change: "breaking", "compatible",
// "cosmetic"; "" for the first version.
func (v *Version) Class() string { return v.unpack().class }

// Changes says what changed, one sentence each; nil for the first version.
func (v *Version) Changes() []string {
	rest := v.unpack().texts
	var out []string
	for rest != "" {
		var t string
		t, rest = nextPacked(rest)
		out = append(out, t)
	}
	return out
}

// Commit is the commit that made the version.
func (v *Version) Commit() Commit { return v.unpack().commit }

// Release is the first release of the server that shipped the version;
// "" when none has.
func (v *Version) Release() string { return v.unpack().release }

// MarshalJSON encodes what a template can read of the version, as a
// page's key in the cache (see Cache.frameOf): the methods' values too.
func (v *Version) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Version    string
		Time       time.Time
		Class      string
		Changes    []string
		SchemaPath string
		Schemas    *SchemaChange
		Commit     Commit
		Release    string
	}{v.Version(), v.Time(), v.Class(), v.Changes(), v.SchemaPath(), v.Schemas(), v.Commit(), v.Release()})
}

// Removal says when something was removed.
type Removal struct {
	Time    time.Time
	Version string // its last version
}

// Preview kinds.
const (
	PreviewNew      = "new"      // a tool that was never committed
	PreviewChanged  = "changed"  // a new version
	PreviewRestored = "restored" // a removed tool that the working tree brings back
	PreviewRemoved  = "removed"  // a committed tool that the working tree drops
)

// Preview is what the next commit would add to the change feed for a tool.
type Preview struct {
	Kind    string // Preview*
	Version string // the version the feed would announce
	From    string // the latest published version ("" for a new tool)
	Class   string // the classification of a changed tool
	Changes []string
	Schemas *SchemaChange // From's schema and the working tree's; nil for a new tool
}

// SchemaChange is a tool's schema before and after a change, as canonical
// JSON. A page shows it as a line diff, made as the page renders: a long
// history's diffs are never all in memory at once, nor, where the build
// keeps the versions' bytes out of memory (tools.Tool.Stored), their
// schemas.
type SchemaChange struct {
	old, new tools.Tool // their canonical bytes, held or stored, alone
}

// newSchemaChange is the change from version old of a tool to new.
func newSchemaChange(old, new tools.Tool) *SchemaChange {
	// Not the decoded objects: the newest version's would be held for
	// the rendering, where the timeline let go of it.
	return &SchemaChange{old: tools.Tool{Canonical: old.Canonical, Stored: old.Stored},
		new: tools.Tool{Canonical: new.Canonical, Stored: new.Stored}}
}

// Old is the schema before, read back when the build keeps it out of
// memory: a read that fails gives nothing, and fails the build (see
// bundle.Spool.ReadFailed).
func (c *SchemaChange) Old() []byte { return canonical(c.old) }

// New is the schema after, as Old is read.
func (c *SchemaChange) New() []byte { return canonical(c.new) }

func canonical(t tools.Tool) []byte {
	b, _ := t.ReadCanonical()
	return b
}

// MarshalJSON encodes the two schemas, as a page's key in the cache (see
// frameOf) is made of what a template can reach.
func (c *SchemaChange) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct{ Old, New []byte }{c.Old(), c.New()})
}

// Schema diffs show this many unchanged lines around each change, and at
// most diffMaxLines lines in all, so that a page stays small however large a
// change is: the archived schemas hold the rest.
const (
	diffContext  = 3
	diffMaxLines = 200
)

// Diff compares the two schemas as people read them: indented.
func (c *SchemaChange) Diff() *linediff.Diff {
	d := linediff.Compare(indentCanonical(c.Old()), indentCanonical(c.New()), diffContext)
	d.Limit(diffMaxLines)
	return &d
}

// indentCanonical indents canonical JSON, which keeps its members sorted.
func indentCanonical(canonical []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, canonical, "", "  "); err != nil {
		return string(canonical) // canonical JSON is valid JSON
	}
	return b.String()
}

// textEscaper escapes text inside an element, where quotes need no escaping
// (html/template would write each as &#34;, which makes a diff of JSON
// much larger).
var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// diffLines marks up the lines of a hunk, one a line: a changed line as
// <span class="d-KIND">MARKER TEXT</span>, an unchanged one as plain text,
// which keeps a long history's page small. It is one template value, not
// three a line: html/template spends microseconds on each.
func diffLines(lines []linediff.Line) template.HTML {
	var b strings.Builder
	for _, l := range lines {
		text := l.Marker() + " " + textEscaper.Replace(l.Text) // safe: the text is escaped
		if l.Kind == linediff.Same {
			b.WriteString(text + "\n")
			continue
		}
		b.WriteString(`<span class="d-` + string(l.Kind) + `">` + text + "</span>\n")
	}
	return template.HTML(b.String())
}

// Agent is an A2A agent.
type Agent struct {
	Name, Description, Version string
	Provider                   string
	Skills                     []string
	CardPath                   string
}

// Entity is the EDP entity card.
type Entity struct {
	Items    []EntityItem
	CardPath string
}

// EntityItem is one business of the entity card.
type EntityItem struct {
	Name     string
	Location string
	MCPs     []EntityMCP // the MCP servers acting for it
}

// EntityMCP is an MCP server acting for a business, with the EDP level a
// registry sees for it.
type EntityMCP struct {
	Name     string // the site's server, or else the endpoint
	Provider string
	Level    int    // 1: the business's claim; 2: attested by the provider
	Expires  string // the attestation's expiry date (2006-01-02); empty without one
}

// Link is a titled path or URL.
type Link struct {
	Title string
	Path  string
}

// Change kinds.
const (
	ChangeAnnouncement = "announcement"
	ChangeSchema       = "schema-change"
	ChangeDeprecation  = "deprecation"
)

// Change is one entry of the change feed, for people. Its kind, badge,
// time, summary, texts, server and tool are methods, which a template
// calls as it reads a field: a schema change's entry, most of a long
// history's changelog, names its version rather than holding copies of
// what the version holds, and its endpoint is its version's run's. Any
// other entry's is its otherChange's. The changelog holds its entries as
// values, 16 bytes each, in one slice.
type Change struct {
	version *Version     // a schema change's: the version it made, in its tool's slice (see model.tool and model.tellOf)
	other   *otherChange // any other entry's
}

// changeAbout is the endpoint a changelog's entries are about, one for
// all of them.
type changeAbout struct {
	endpoint string  // its id, which names the tool in a schema change's summary
	server   *Server // its server's page, if any
	tool     *Tool   // its tool's page, if any
}

// otherChange is what an entry that names no version shows.
type otherChange struct {
	about                *changeAbout
	kind, badge, summary string
	time                 time.Time
}

// otherEntry is an entry about a that names no version.
func otherEntry(a *changeAbout, kind, badge string, at time.Time, summary string) Change {
	return Change{other: &otherChange{about: a, kind: kind, badge: badge, time: at, summary: summary}}
}

// about is the endpoint the entry is about.
func (c *Change) about() *changeAbout {
	if c.version != nil {
		return c.version.run.about
	}
	return c.other.about
}

// Server is the server the entry is about, when it has a page.
func (c *Change) Server() *Server { return c.about().server }

// Tool is the tool the entry is about, when it has a page.
func (c *Change) Tool() *Tool { return c.about().tool }

// Kind is one of Change*, or "" for an entry of no kind the pages know.
func (c *Change) Kind() string {
	if c.version != nil {
		return ChangeSchema
	}
	return c.other.kind
}

// Badge is "new", "updated", "breaking", "compatible", "cosmetic",
// "deprecated" or "removed".
func (c *Change) Badge() string {
	if c.version != nil {
		return c.version.Class()
	}
	return c.other.badge
}

// Time is when the change was committed.
func (c *Change) Time() time.Time {
	if c.version != nil {
		return c.version.Time()
	}
	return c.other.time
}

// Summary is the entry's line: for a schema change, the tool and its
// versions before and after.
func (c *Change) Summary() string {
	if c.version != nil {
		u := c.version.unpack()
		return timeline.DisplayName(c.about().endpoint) + " " + u.from + " → " + u.version
	}
	return c.other.summary
}

// Changes are a schema change's texts.
func (c *Change) Changes() []string {
	if c.version != nil {
		return c.version.Changes()
	}
	return nil
}

// Path is the page about the change's endpoint, or "".
func (c *Change) Path() string {
	switch a := c.about(); {
	case a.tool != nil:
		return a.tool.Path()
	case a.server != nil:
		return a.server.Path()
	}
	return ""
}

// Verify is what a reader needs to check the site's signatures.
type Verify struct {
	DID          string
	DIDPath      string
	Command      string // the command that verifies the site
	Install      string // the command that installs wellknown
	InstallGuide string // the URL of wellknown's install instructions
	Keys         []Key
}

// Key is one of the site's public keys, in every form readers compare.
type Key struct {
	ID        string // the DID URL's fragment
	Current   bool   // the key signing now (else a previous one)
	Base64URL string // "u…", the agent-feed reference form
	Multikey  string // "z6Mk…"
	SHA256    string // hex SHA-256 of the raw 32-byte key
}

// ChangelogPath is the changelog page's path.
const ChangelogPath = "changelog/"

// ServerPath is the path of the page of the server with the given slug.
func ServerPath(slug string) string { return "servers/" + slug + "/" }

// ToolPath is the path of the page of a tool of the server with the given
// slug.
func ToolPath(slug, tool string) string { return ServerPath(slug) + "tools/" + tool + "/" }

// Path is the server's page.
func (s *Server) Path() string { return ServerPath(s.Slug) }

// DisplayTitle is the title, or the name.
func (s *Server) DisplayTitle() string {
	if s.Title != "" {
		return s.Title
	}
	return s.Name
}

func (s *Server) removed() bool { return s.Removed != nil }

// Current returns the tools the server has now (including unpublished ones).
func (s *Server) Current() []*Tool {
	return slices.DeleteFunc(slices.Clone(s.Tools), (*Tool).removed)
}

// RemovedTools returns the tools the server no longer has.
func (s *Server) RemovedTools() []*Tool {
	return slices.DeleteFunc(slices.Clone(s.Tools), func(t *Tool) bool { return !t.removed() })
}

func (t *Tool) removed() bool { return t.Removed != nil }

// Path is the tool's page.
func (t *Tool) Path() string { return ToolPath(t.server.Slug, t.Name) }

// Server returns the server the tool belongs to.
func (t *Tool) Server() *Server { return t.server }

// Latest returns the newest published version, or nil.
func (t *Tool) Latest() *Version {
	if len(t.Versions) == 0 {
		return nil
	}
	return &t.Versions[0]
}

// hints are the MCP tool annotations a reader should know, by name.
var hints = []struct{ key, label string }{
	{"readOnlyHint", "read-only"},
	{"destructiveHint", "destructive"},
	{"idempotentHint", "idempotent"},
	{"openWorldHint", "open world"},
}

// Hints lists the behaviour hints the tool's annotations set to true.
func (t *Tool) Hints() []string {
	a := annotations(t.Object)
	var out []string
	for _, h := range hints {
		if a[h.key] == true {
			out = append(out, h.label)
		}
	}
	return out
}

func annotations(tool map[string]any) map[string]any {
	a, _ := tool["annotations"].(map[string]any)
	return a
}

// Inputs lists the tool's parameters.
func (t *Tool) Inputs() []Param {
	if t.inputs == nil {
		return Params(t.Object["inputSchema"])
	}
	return t.inputs()
}

// Outputs lists the fields of the tool's structured result, if it declares one.
func (t *Tool) Outputs() []Param { return Params(t.Object["outputSchema"]) }

// HasOutput reports whether the tool declares an output schema.
func (t *Tool) HasOutput() bool { return t.Object["outputSchema"] != nil }

// JSON is the tool object, indented.
func (t *Tool) JSON() string { return indentJSON(t.Object) }

// Page kinds, which are also the names of their templates without ".html".
const (
	KindHome      = "index"
	KindServer    = "server"
	KindTool      = "tool"
	KindChangelog = "changelog"
	KindVerify    = "verify"
	KindPage      = "page"
	KindNotFound  = "404"
)

// Page is the data of one template execution.
type Page struct {
	Site        *Site
	Kind        string // Kind*
	Title       string // the page's own title; "" on the home page
	Description string
	Path        string // the page's path: "", "servers/forecast/", …
	// Root leads from the page to the site root: "./", "../", "../../"…;
	// on the 404 page, which hosts send for any path, the site's URL.
	Root      string
	Canonical string
	Nav       []Link        // what the navigation lists: changelog, verify, the top-level Markdown pages
	Content   template.HTML // rendered Markdown: the home prose, a server's docs, a page
	Server    *Server
	Tool      *Tool
	Children  []*MarkdownPage // on a Markdown page: the pages in its directory
	Style     template.CSS    // the style sheet, inlined on the 404 page
}

// File is one rendered file.
type File struct {
	Path string // "/servers/forecast/index.html"
	Body []byte
	// spooled is where the page's bytes lie instead, when it was rendered
	// into the build's spool (see pageBuffer).
	spooled *bundle.Spooled
}

// renderWith renders every page and asset of the site with the templates
// in tfs (see Templates) and hands each file to add: the pages in the order
// of the package comment's list, then the assets. It links each tool to its
// server, and reuses the pages the cache holds that were made from the same
// (see frames). It returns the renderer, which Cache.Rerender renders with
// again. With a spool, in a rendering no other follows, a large page is
// rendered into it (see pageBuffer).
func renderWith(s *Site, tfs fs.FS, c *Cache, f *frames, spool *bundle.Spool, add func(File) error) (*renderer, error) {
	for _, srv := range s.Servers {
		for _, t := range srv.Tools {
			t.server = srv
			// The server's page and the tool's both list them.
			t.inputs = sync.OnceValue(func() []Param { return Params(t.Object["inputSchema"]) })
		}
	}
	r, err := newRenderer(s, tfs, c)
	if err != nil {
		return nil, err
	}
	r.cache, r.frames = c, f
	if c.once {
		// Only then: a cache keeps the pages' bytes for the next rendering.
		r.spool = spool
	}
	jobs, err := r.plan()
	if err != nil {
		return nil, err
	}
	if err := r.runAll(jobs, add); err != nil {
		return nil, err
	}
	assets, err := r.assets()
	if err != nil {
		return nil, err
	}
	for _, a := range assets {
		if err := add(a); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// renderer holds one rendering's parsed templates.
type renderer struct {
	site      *Site
	tfs       fs.FS
	templates *templateSet
	markdown  *markdown
	nav       []Link
	cache     *Cache
	frames    *frames // what the pages are made from, for the cache
	spool     *bundle.Spool

	mu     sync.Mutex
	shared map[sharedKey]template.HTML
}

// sharedKey is what a shared template's output depends on.
type sharedKey struct {
	name, kind, root, path string
	inline                 bool // the page inlines its style
}

// newRenderer starts a rendering with the templates in tfs, parsed, or
// as the cache parsed them from the same bytes.
func newRenderer(s *Site, tfs fs.FS, c *Cache) (*renderer, error) {
	r := &renderer{site: s, tfs: tfs, markdown: newMarkdown(), shared: map[sharedKey]template.HTML{}}
	var err error
	if r.templates, err = c.parsed(tfs); err != nil {
		return nil, err
	}
	r.templates.renderer = r
	r.nav = []Link{{Title: "Changelog", Path: ChangelogPath}, {Title: "Verify", Path: "verify/"}}
	for _, m := range s.Content.Pages {
		if m.TopLevel() {
			r.nav = append(r.nav, Link{Title: m.Title, Path: m.Path()})
		}
	}
	return r, nil
}

// kinds are the kinds of page, each with its own template.
var kinds = []string{KindHome, KindServer, KindTool, KindChangelog, KindVerify, KindPage, KindNotFound}

// templateSet is the templates of every kind of page, parsed. Their
// function "shared" runs in the renderer that executes them, which a
// rendering sets as it starts: a set is used by one rendering at a time.
type templateSet struct {
	byKind   map[string]*template.Template
	renderer *renderer
}

// templateFiles are the files the templates of a kind of page are parsed
// from.
func templateFiles(kind string) []string {
	return []string{"layout.html", "partials.html", kind + ".html"}
}

func parseTemplates(tfs fs.FS) (*templateSet, error) {
	set := &templateSet{byKind: map[string]*template.Template{}}
	shared := func(name string, p *Page) (template.HTML, error) { return set.renderer.executeShared(name, p) }
	for _, kind := range kinds {
		t, err := template.New(kind).Funcs(funcs).Funcs(template.FuncMap{"shared": shared}).ParseFS(tfs, templateFiles(kind)...)
		if err != nil {
			return nil, fmt.Errorf("templates: %v", err)
		}
		set.byKind[kind] = t
	}
	return set, nil
}

// job is one page to render, with its Markdown (if any).
type job struct {
	page *Page
	file string
	src  []byte // Markdown to render as the page's Content
	// converted is src converted; nil to convert it, keeping ids and with
	// its highest heading at level top.
	converted *converted
	ids       []string
	top       int
}

// plan lists every page.
func (r *renderer) plan() ([]job, error) {
	s := r.site
	home := r.job(&Page{Kind: KindHome, Description: s.Description}, s.Content.Home)
	// The page's heading is the site's title: the prose's headings go
	// below it, so that a "# Title" there is not a second h1.
	home.top = 2
	jobs := []job{home}
	for _, srv := range s.Servers {
		j := r.job(&Page{Kind: KindServer, Title: srv.DisplayTitle(), Description: srv.Description, Path: srv.Path(), Server: srv}, s.Content.ServerDocs[srv.Slug])
		// The docs go under the page's "Documentation" heading, an h2.
		j.top = 3
		for _, t := range srv.Tools {
			j.ids = append(j.ids, "tool-"+t.Name)
		}
		jobs = append(jobs, j)
		for _, t := range srv.Tools {
			jobs = append(jobs, r.job(&Page{Kind: KindTool, Title: t.Name, Description: t.Description, Path: t.Path(), Server: srv, Tool: t}, nil))
		}
	}
	jobs = append(jobs,
		r.job(&Page{Kind: KindChangelog, Title: "Changelog", Path: ChangelogPath}, nil),
		r.job(&Page{Kind: KindVerify, Title: "Verify this site", Path: "verify/"}, nil),
	)
	children := childrenOf(s.Content.Pages)
	for _, m := range s.Content.Pages {
		jobs = append(jobs, r.markdownJob(m, children[m.Name]))
	}
	notFound, err := r.notFound()
	return append(jobs, notFound), err
}

// childrenOf returns the pages listed on each page: those of its directory.
func childrenOf(pages []*MarkdownPage) map[string][]*MarkdownPage {
	children := map[string][]*MarkdownPage{}
	for _, m := range pages {
		if parent := m.parent(); parent != "" {
			children[parent] = append(children[parent], m)
		}
	}
	return children
}

// markdownJob is the job of rendering the Markdown page m, which lists
// children.
func (r *renderer) markdownJob(m *MarkdownPage, children []*MarkdownPage) job {
	j := r.job(&Page{Kind: KindPage, Title: m.Title, Path: m.Path(), Children: children}, m.source)
	j.converted = m.converted
	return j
}

// executeShared is the template function "shared": it renders the named
// template for a page, once for all pages at the page's depth (and once
// for each page the navigation lists, which it may mark), from a Page with
// only Site, Kind, Nav, Root, Style and, on a listed page, Path. Used for
// the frame around every page, it saves most of the rendering time:
// html/template spends microseconds on every value it writes.
func (r *renderer) executeShared(name string, p *Page) (template.HTML, error) {
	key := sharedKey{name: name, kind: p.Kind, root: p.Root, inline: p.Style != ""}
	if slices.ContainsFunc(r.nav, func(l Link) bool { return l.Path == p.Path }) {
		key.path = p.Path
	}
	r.mu.Lock()
	html, ok := r.shared[key]
	r.mu.Unlock()
	if ok {
		return html, nil
	}
	data := &Page{Site: r.site, Kind: key.kind, Nav: r.nav, Root: key.root, Path: key.path, Style: p.Style}
	var b strings.Builder
	if err := r.templates.byKind[p.Kind].ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	html = template.HTML(b.String()) // safe: the output of html/template
	r.mu.Lock()
	r.shared[key] = html
	r.mu.Unlock()
	return html, nil
}

// job is the job of rendering p, with src as its Markdown, at its path.
func (r *renderer) job(p *Page, src []byte) job {
	p.Site, p.Nav, p.Root, p.Canonical = r.site, r.nav, rootOf(p.Path), r.site.BaseURL+p.Path
	return job{page: p, file: "/" + p.Path + "index.html", src: src, ids: slices.Clone(reservedIDs[p.Kind])}
}

// notFound is the 404 page. Hosts send it for any missing path, at any
// depth, so it links through the site's URL and carries its style.
func (r *renderer) notFound() (job, error) {
	css, err := fs.ReadFile(r.tfs, "assets/style.css")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return job{}, fmt.Errorf("templates: %v", err)
	}
	p := &Page{Kind: KindNotFound, Title: "Page not found", Site: r.site, Nav: r.nav, Root: r.site.BaseURL,
		Canonical: r.site.BaseURL + "404.html", Style: template.CSS(css)}
	return job{page: p, file: "/404.html"}, nil
}

// runAll renders the jobs and hands their files to add in the jobs' order,
// each once it and those before it are rendered: a long history's pages,
// added to a bundle that spools them, are then never all in memory. It
// returns the first job's error, or add's.
func (r *renderer) runAll(jobs []job, add func(File) error) error {
	files := make([]File, len(jobs))
	errs := make([]error, len(jobs))
	done := make([]chan struct{}, len(jobs))
	for i := range done {
		done[i] = make(chan struct{})
	}
	rendered := make(chan struct{})
	go func() {
		parallel.For(len(jobs), func(i int) {
			files[i], errs[i] = r.run(jobs[i])
			close(done[i])
		})
		close(rendered)
	}()
	defer func() { <-rendered }() // no rendering goes on after an error
	for i := range jobs {
		<-done[i]
		if errs[i] != nil {
			return errs[i]
		}
		if err := add(files[i]); err != nil {
			return err
		}
		files[i] = File{}
	}
	return nil
}

func (r *renderer) run(j job) (File, error) {
	var spooled *bundle.Spooled
	body, err := r.cache.page(r.frames, j, func() (body []byte, err error) {
		body, spooled, err = r.execute(j)
		return body, err
	})
	return File{Path: j.file, Body: body, spooled: spooled}, err
}

// execute renders a job's page: its bytes, or where they lie in the
// spool.
func (r *renderer) execute(j job) ([]byte, *bundle.Spooled, error) {
	p := j.page
	switch {
	case j.converted != nil:
		p.Content = j.converted.html
	case j.src != nil:
		cv, err := r.cache.convert(r.markdown, j.src, p.Root, j.ids, j.top)
		if err != nil {
			return nil, nil, fmt.Errorf("rendering the Markdown of %s: %v", j.file, err)
		}
		p.Content = cv.html
	}
	b := pageBuffer{spool: r.spool}
	if err := r.templates.byKind[p.Kind].ExecuteTemplate(&b, "layout", p); err != nil {
		return nil, nil, fmt.Errorf("rendering %s: %v", j.file, err)
	}
	body, spooled, err := b.page()
	if err != nil {
		return nil, nil, fmt.Errorf("keeping %s until it is written: %v", j.file, err)
	}
	return body, spooled, nil
}

// pageBuffer gathers a page as it is rendered, in chunks that double in
// size up to maxPageChunk, and makes it one slice of its size at the end.
// A buffer that doubles would copy a long history's changelog (tens of MB)
// at every step and hold up to three times its size at the last one, and
// the page would need a copy of its size anyway, not to keep the spare
// capacity. With a spool, a page that reaches bundle.SpoolFrom, which a
// spooled bundle would keep there, goes there instead, its chunks written
// as they fill: a long history's changelog is then never in memory whole.
type pageBuffer struct {
	chunks  [][]byte
	size    int
	spool   *bundle.Spool
	spooled *bundle.SpoolWriter // the page's first bytes, once in the spool; those after are in chunks
}

const (
	minPageChunk = 4 << 10 // most pages fit in one or two
	maxPageChunk = 1 << 20
)

func (b *pageBuffer) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(b.chunks) == 0 || len(b.chunks[len(b.chunks)-1]) == cap(b.chunks[len(b.chunks)-1]) {
			if err := b.grow(); err != nil {
				return n - len(p), err
			}
		}
		last := &b.chunks[len(b.chunks)-1]
		k := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
		b.size += k
	}
	return n, nil
}

// grow adds a chunk, twice the size of the last up to maxPageChunk. A
// page bound for the spool first writes its chunks there, and then has
// one chunk: the last one's memory again once it is of the largest size.
func (b *pageBuffer) grow() error {
	size := minPageChunk
	if len(b.chunks) > 0 {
		size = min(2*cap(b.chunks[len(b.chunks)-1]), maxPageChunk)
	}
	if b.spool == nil || b.size < bundle.SpoolFrom {
		b.chunks = append(b.chunks, make([]byte, 0, size))
		return nil
	}
	if err := b.toSpool(); err != nil {
		return err
	}
	chunk := b.chunks[len(b.chunks)-1][:0]
	if cap(chunk) < size {
		chunk = make([]byte, 0, size)
	}
	clear(b.chunks) // the chunks written go
	b.chunks = append(b.chunks[:0], chunk)
	return nil
}

// toSpool writes the chunks to the spool, after the page's bytes there.
func (b *pageBuffer) toSpool() error {
	if b.spooled == nil {
		b.spooled = b.spool.NewWriter()
	}
	for _, c := range b.chunks {
		if _, err := b.spooled.Write(c); err != nil {
			return err
		}
	}
	return nil
}

// page returns the page: its bytes, or where they lie in the spool.
func (b *pageBuffer) page() ([]byte, *bundle.Spooled, error) {
	if b.spool != nil && b.size >= bundle.SpoolFrom {
		if err := b.toSpool(); err != nil {
			return nil, nil, err
		}
		return nil, b.spooled.Spooled(), nil
	}
	out := make([]byte, 0, b.size)
	for _, c := range b.chunks {
		out = append(out, c...)
	}
	return out, nil, nil
}

// assets are the files under assets/, but for build output written there
// (a directory holding paths.OutputMarker): a build never reads its own
// output.
func (r *renderer) assets() ([]File, error) {
	var files []File
	err := fs.WalkDir(r.tfs, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if isOutput(r.tfs, p) {
				return fs.SkipDir
			}
			return nil
		}
		body, err := fs.ReadFile(r.tfs, p)
		if err != nil {
			return err
		}
		files = append(files, File{Path: "/" + p, Body: body})
		return nil
	})
	return files, err
}

// isOutput reports whether a directory of the templates holds build output
// (paths.OutputMarker).
func isOutput(tfs fs.FS, dir string) bool {
	_, err := fs.Stat(tfs, path.Join(dir, paths.OutputMarker))
	return err == nil
}

// rootOf returns the relative path from a page's directory to the root.
func rootOf(pagePath string) string {
	depth := strings.Count(pagePath, "/")
	if depth == 0 {
		return "./"
	}
	return strings.Repeat("../", depth)
}

// funcs are the template functions.
var funcs = template.FuncMap{
	"breakable": breakable,
	"date":      func(t time.Time) string { return t.UTC().Format("2006-01-02") },
	"datetime":  func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"difflines": diffLines,
	"join":      strings.Join,
	"ticks":     ticks,
}

// breakable escapes a path or URL and lets it wrap after each "/", where
// a reader expects it, rather than mid-word: a phone's line is shorter than
// /.well-known/mcp/schemas/<server>/<tool>/<version>.json.
func breakable(s string) template.HTML {
	html := strings.ReplaceAll(template.HTMLEscapeString(s), "/", "/<wbr>")
	return template.HTML(strings.ReplaceAll(html, "/<wbr>/<wbr>", "//<wbr>")) // a URL's "//" stays whole
}

// ticks escapes s and shows its `quoted` parts as code, as change texts
// quote names.
func ticks(s string) template.HTML {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 { // an unpaired backtick: show it as it is
		return template.HTML(template.HTMLEscapeString(s))
	}
	var b strings.Builder
	for i, part := range parts {
		if i%2 == 1 {
			b.WriteString("<code>" + template.HTMLEscapeString(part) + "</code>")
		} else {
			b.WriteString(template.HTMLEscapeString(part))
		}
	}
	return template.HTML(b.String())
}
