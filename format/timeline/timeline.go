// Package timeline derives the change feed's events from the history of a
// site's inputs. It knows nothing about git: it replays a sequence of
// states, one per commit, oldest first, and decides what each step means.
//
// The rules:
//
//   - A server is an endpoint (protocol "mcp") whose id is its card name. It is
//     announced when it appears, and again when its version or endpoint URL
//     changes. A server that disappears is deprecated, with the commit time as
//     announcement and sunset. Releases tagged before the server took its
//     versions from tags are announced when it starts to, at their own
//     commits' times; a release's announcement lists the tool versions
//     tagged with it (x-tools).
//   - A tool is an endpoint (protocol "mcp-tool") whose id is
//     "<server name>#<tool name>" and whose endpoint is its server's. It is
//     announced, at version 1.0.0, when it first appears, and again when its
//     server's endpoint moves. Each commit that changes its canonical JSON
//     (RFC 8785; a reformatted file changes nothing) is a schema-change whose
//     version bump follows the structural diff: breaking → major, compatible →
//     minor, cosmetic → patch. A tool that disappears is deprecated; one that
//     reappears is announced again, at its last version when its schema is the
//     same, else at the next version, after the schema-change that leads there
//     (so that each schema-change leaves from the version a reader holds).
//     A tool removed because its file was renamed to one declaring another
//     tool names that tool as its replacement.
//   - A [[deprecations]] entry of site.toml is announced at the commit that
//     first contains it, with its own dates.
//
// Within one commit, events are ordered announcements, then schema changes,
// then the announcements that follow a schema-change (a tool that returns or
// moves with a new schema), then deprecations; servers before tools, tools by endpoint id. Timestamps
// are commit times. Each event carries a key that, with its type and
// endpoint id, names it uniquely and stably: derived from versions and
// dates, never from commit hashes, so a rebase that keeps the content keeps
// the ids.
package timeline

import (
	"encoding/hex"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/tools"
)

// Protocols of the endpoints.
const (
	ProtocolServer = "mcp"
	ProtocolTool   = "mcp-tool"
)

// FirstVersion is a tool's version when it first appears.
const FirstVersion = "1.0.0"

// Commit is the state of the inputs after one commit.
type Commit struct {
	Hash         string
	Time         time.Time
	Servers      []Server      // the servers configured at this commit
	Deprecations []Deprecation // the deprecations configured at this commit
}

// Server is one server's state at a commit.
type Server struct {
	Name     string
	Slug     string
	Version  string
	Endpoint string                // its remote URL (or its card's URL when it has none)
	Tools    map[string]tools.Tool // by tool name
	// Unchanged vouches that Tools holds the same tools as at the previous
	// commit, so they need not be looked at: that keeps a long history cheap
	// to replay when each commit touches a few files.
	Unchanged bool
	// Touched, when not nil, vouches that only the tools it names (in Tools
	// or gone from it) may differ from the previous commit, so that a commit
	// that changes one tool of a large server looks at that one only.
	Touched []string
	// Release is the version a release tag on this commit gives the
	// server's repository ("" when none): the tools as they are after the
	// commit are what that release ships.
	Release string
	// Releases are releases tagged at earlier commits, oldest first, to be
	// announced now with their own dates: the server took its versions
	// from a pinned version then, and takes them from tags now.
	Releases []Release
	// Renamed maps a tool gone at this commit to the tool now declared by
	// the file git sees its file renamed to.
	Renamed map[string]string
}

// Release is a release tag's version and the commit it is on.
type Release struct {
	Version string
	Commit  string
	Time    time.Time
}

// Deprecation is a [[deprecations]] entry of site.toml.
type Deprecation struct {
	Endpoint, AnnouncedAt, Sunset, Replacement, Reason string
}

// Event is one future feed entry.
type Event struct {
	Type       string // agentfeed.Type*
	EndpointID string
	Key        string // with Type and EndpointID, names the event uniquely
	Commit     string
	Time       time.Time
	// payload is an announcement's or a deprecation's (see Payload).
	payload any
	// A deprecation's Title and Summary, as made. The others' are made
	// when asked for, from the payload and a schema change's version: a
	// long history has many events, each read once or twice, and their
	// texts would be most of what the timeline holds.
	title, summary string
	// A schema change's new version: the at-th of tool's versions. The
	// event names it rather than points at it, so that the versions a
	// tool has superseded can be kept compact (see ToolHistory).
	tool *ToolHistory
	at   int32
}

// NewEvent returns an event with the payload given.
func NewEvent(typ, endpointID, key, commit string, at time.Time, payload any) Event {
	return Event{Type: typ, EndpointID: endpointID, Key: key, Commit: commit, Time: at, payload: payload}
}

// Payload is the payload of the event's entry: an agentfeed.Announcement,
// SchemaChange or Deprecation. A schema change's is made when asked for,
// from its version, for the reason its texts are: held, it was a sixth of
// what a long history's timeline held.
func (e Event) Payload() any {
	if v := e.Version(); v != nil && e.payload == nil {
		return e.schemaChange(v, v.Change())
	}
	return e.payload
}

// schemaChange is the payload of a schema change to v, whose change is d.
func (e Event) schemaChange(v *Version, d *schemadiff.Result) agentfeed.SchemaChange {
	return agentfeed.SchemaChange{EndpointID: e.EndpointID, FromVersion: v.From, ToVersion: v.Version,
		EffectiveAt: agentfeed.FormatTime(e.Time), Migration: d.Migration, Compat: string(d.Class), SchemaSHA256: v.Tool.SHA256}
}

// Texts returns the event's Title, Summary and Payload at once: a schema
// change's change is then unpacked, or read back (see
// Builder.StoreChanges), once rather than for each.
func (e Event) Texts() (title, summary string, payload any) {
	v := e.Version()
	if v == nil || e.payload != nil {
		return e.Title(), e.Summary(), e.Payload()
	}
	_, tool := splitToolEndpoint(e.EndpointID)
	d := v.Change()
	return changeTitle(tool, v, d), changeSummary(tool, v, d), e.schemaChange(v, d)
}

// Version is the version a schema change leads to, as its replay made
// it; nil for any other event, and for one NewEvent made. Its From and
// Version are the payload's, and a reader that has the version's change
// already need not unpack it again through Payload. A version the tool
// has since superseded is made anew at each call (see ToolHistory.At):
// VersionAt names it stably.
func (e Event) Version() *Version {
	if e.tool == nil {
		return nil
	}
	return e.tool.At(int(e.at))
}

// VersionAt is the tool history and the index in it (see
// ToolHistory.At) of the version a schema change leads to: nil and -1
// for any other event. Unlike Version's pointer, it names the version
// the same way each time, so it can key a map.
func (e Event) VersionAt() (*ToolHistory, int) {
	if e.tool == nil {
		return nil, -1
	}
	return e.tool, int(e.at)
}

// Title is one human line for feed readers: what happened, to which
// version.
func (e Event) Title() string {
	if v := e.Version(); v != nil {
		_, tool := splitToolEndpoint(e.EndpointID)
		return changeTitle(tool, v, v.Change())
	}
	if p, ok := e.payload.(agentfeed.Announcement); ok {
		if p.Protocol == ProtocolTool {
			_, tool := splitToolEndpoint(p.EndpointID)
			return tool + " " + p.Version + " published"
		}
		return p.EndpointID + " " + p.Version + " announced"
	}
	return e.title
}

// Summary is what happened, in a sentence.
func (e Event) Summary() string {
	if v := e.Version(); v != nil {
		_, tool := splitToolEndpoint(e.EndpointID)
		return changeSummary(tool, v, v.Change())
	}
	if p, ok := e.payload.(agentfeed.Announcement); ok {
		if p.Protocol == ProtocolTool {
			server, tool := splitToolEndpoint(p.EndpointID)
			return fmt.Sprintf("%s %s on %s", tool, p.Version, server)
		}
		return fmt.Sprintf("%s %s at %s", p.EndpointID, p.Version, p.Endpoint)
	}
	return e.summary
}

// Timeline is the result of a replay.
type Timeline struct {
	Servers []*ServerHistory // every server ever seen, in order of first appearance
	events  eventList
}

// EventCount is how many events the timeline has.
func (tl *Timeline) EventCount() int { return tl.events.n }

// Event returns the i-th event, oldest first. A schema change's is made
// anew at each call, from its version (see eventList).
func (tl *Timeline) Event(i int) Event { return tl.events.event(i) }

// Events returns the events, oldest first, each made as Event makes it.
func (tl *Timeline) Events() iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for i := range tl.events.n {
			if !yield(tl.events.event(i)) {
				return
			}
		}
	}
}

// LetGoOfEvents drops the events, for a caller that reads them no more.
func (tl *Timeline) LetGoOfEvents() { tl.events = eventList{} }

// eventList holds events compact. A replay's schema change is named by
// its version alone (the at-th of its tool's), from which its endpoint,
// key, commit and time are made again; any other event is held whole, in
// others, at the index at says. Most of a long history's events are
// schema changes, and held whole, with a key of their own each, they
// were a fifth of what its timeline held. A schema change names its tool
// by a number, in 8 bytes with its version's index where a pointer made
// it 16, and the events are held in chunks, where a slice grown by
// doubling left a quarter of its room unused, and held both copies while
// it grew.
type eventList struct {
	chunks [][]eventAt
	n      int            // the events added
	tools  []*ToolHistory // the tools schema changes name, each once
	others []Event
}

type eventAt struct {
	tool uint32 // for a schema change, 1 + its tool's index in tools; 0 for an event in others
	at   int32  // its version's index in its tool's history, or its index in others
}

const (
	eventChunkBits = 12
	eventChunk     = 1 << eventChunkBits
)

// add appends e: by its version when that version makes e again, field
// for field, else whole. toolAt holds the index in tools of each tool
// (see Builder.eventTools).
func (l *eventList) add(e Event, toolAt map[*ToolHistory]uint32) {
	if e.tool != nil && e.Type == agentfeed.TypeSchemaChange && e.payload == nil && e.title == "" && e.summary == "" {
		v := e.tool.At(int(e.at))
		if e.EndpointID == e.tool.EndpointID() && e.Key == changeKey(v.From, v.Version) && e.Commit == v.Commit && e.Time == v.Time {
			l.append(eventAt{l.toolIndex(e.tool, toolAt) + 1, e.at})
			return
		}
	}
	l.append(eventAt{at: int32(len(l.others))})
	l.others = append(l.others, e)
}

func (l *eventList) append(a eventAt) {
	if l.n&(eventChunk-1) == 0 {
		l.chunks = append(l.chunks, make([]eventAt, eventChunk))
	}
	l.chunks[l.n>>eventChunkBits][l.n&(eventChunk-1)] = a
	l.n++
}

// toolIndex returns the index of th in tools, which toolAt holds,
// adding it if new.
func (l *eventList) toolIndex(th *ToolHistory, toolAt map[*ToolHistory]uint32) uint32 {
	if i, ok := toolAt[th]; ok {
		return i
	}
	i := uint32(len(l.tools))
	l.tools = append(l.tools, th)
	toolAt[th] = i
	return i
}

// event makes the i-th event again. A chunk's room past the last event
// may hold a later timeline's (see Builder.Timeline): reading it is an
// index out of range, as in a slice.
func (l *eventList) event(i int) Event {
	if uint(i) >= uint(l.n) {
		panic(fmt.Sprintf("timeline: event %d of %d", i, l.n))
	}
	a := l.chunks[i>>eventChunkBits][i&(eventChunk-1)]
	if a.tool == 0 {
		return l.others[a.at]
	}
	th := l.tools[a.tool-1]
	from, version, commit, at := th.step(int(a.at))
	return Event{Type: agentfeed.TypeSchemaChange, EndpointID: th.EndpointID(), Key: changeKey(from, version),
		Commit: commit, Time: at, tool: th, at: a.at}
}

// changeKey is a schema change's key: the versions it leads from and to.
func changeKey(from, to string) string { return from + " -> " + to }

// Versions counts the versions of every tool of every server.
func (tl *Timeline) Versions() (n int) {
	for _, s := range tl.Servers {
		for _, t := range s.Tools {
			n += t.Len()
		}
	}
	return n
}

// ServerHistory is what happened to one server.
type ServerHistory struct {
	Name    string
	Last    Server // its state when last seen
	Removed bool   // absent at the last commit
	Tools   []*ToolHistory
}

// Tool returns the history of the named tool.
func (s *ServerHistory) Tool(name string) *ToolHistory {
	for _, t := range s.Tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// ToolHistory is the version history of one tool. Only its latest
// version is held as a Version; the versions it superseded are kept as
// pastVersions, in memory or in a store (see Builder.KeepPastIn), and
// made into Versions when asked for (At, Versions). A long history has
// a hundred thousand versions, and as Versions, each with its own
// allocations, they were half of what a build held while it signed the
// feed.
type ToolHistory struct {
	Server  string // server name
	Name    string
	Removed bool     // absent at the last commit
	past    pastList // the versions latest superseded, oldest first
	// names holds the slugs, files and releases of past, each once where
	// it first differs from those before: most versions share them.
	names []string
	// held are the canonical bytes of the past versions that hold them,
	// by index: a build that stores them holds those of a few only (see
	// Timeline.ReadStored).
	held map[int32][]byte
	// changes holds, at its index, the change of each past version that
	// has no handle for it (see Handles), nil for the others, and ends
	// at the last such: empty in a build that has a handle for each,
	// each version's in one that holds the changes in memory.
	changes []any
	// handles names the stored bytes and changes of past versions (see
	// Builder.HandleStored); nil when nothing names them so.
	handles Handles
	// odd are the past versions a pastVersion cannot hold as they are.
	odd    map[int32]*Version
	latest *Version // nil when it has no version, or let go of them
	id     string   // its endpoint id, made once; "" for a history made elsewhere
}

// oddVersion, as a pastVersion's slug, says the version is in
// ToolHistory.odd.
const oddVersion = ^uint32(0)

// pastVersion is a superseded Version, compact: its strings are named in
// ToolHistory.names, its time is whole seconds in UTC and its commit's
// hash and its SHA-256 are binary. Its Tool.Name is
// the history's, its Tool.Object is nil (see Version), its Tool.Canonical
// is in ToolHistory.held, its Tool.Stored and its change are named by
// their handles (see Handles), or its change is in ToolHistory.changes,
// and its From is the version before it. A Version
// that cannot be put so without changing it (a time with a zone or a
// fraction, a hash that is not lowercase hex, a From that is not the
// version before, a Tool.Stored without a handle) is kept as it is, in
// ToolHistory.odd, with its version here: what a feed entry says of a
// version is signed, and must be what the replay made.
type pastVersion struct {
	version             string
	unix                int64
	commit              [20]byte
	sha                 [32]byte
	stored, change      uint64 // handles; 0 for none
	slug, file, release uint32 // in ToolHistory.names
}

// compact is v, superseded, as a pastVersion.
func (t *ToolHistory) compact(v *Version) pastVersion {
	i := int32(t.past.len())
	from := t.past.last
	var p pastVersion
	stored, handled := t.handle(v.Tool.Stored)
	if !binaryHex(p.sha[:], v.Tool.SHA256) || !binaryHex(p.commit[:], v.Commit) || v.From != from || !handled ||
		v.Time.Location() != time.UTC || v.Time.Nanosecond() != 0 || v.Tool.Object != nil || v.Tool.Name != t.Name {
		if t.odd == nil {
			t.odd = map[int32]*Version{}
		}
		t.odd[i] = v
		return pastVersion{version: v.Version, slug: oddVersion}
	}
	p.version, p.unix, p.stored = v.Version, v.Time.Unix(), stored
	p.slug, p.file, p.release = t.name(v.Slug), t.name(v.Tool.File), t.name(v.Release)
	if v.Tool.Canonical != nil {
		t.hold(i, v.Tool.Canonical)
	}
	if s, ok := v.change.(tools.Stored); ok {
		if handle, ok := t.handle(s); ok {
			p.change = handle
			return p
		}
	}
	if v.change != nil {
		t.changes = append(t.changes, make([]any, int(i)+1-len(t.changes))...)
		t.changes[i] = v.change
	}
	return p
}

// handle is the handle of s (see Handles), 0 for a nil s, and whether
// there is one.
func (t *ToolHistory) handle(s tools.Stored) (uint64, bool) {
	if s == nil {
		return 0, true
	}
	if t.handles == nil {
		return 0, false
	}
	return t.handles.Handle(s)
}

// stored is the Stored a handle names, nil for 0 (and for any, in a
// history without handles, whose past versions a store gave back
// mangled).
func (t *ToolHistory) stored(handle uint64) tools.Stored {
	if handle == 0 || t.handles == nil {
		return nil
	}
	return t.handles.Stored(handle)
}

// change is the change of the i-th past version p, not kept whole.
func (t *ToolHistory) change(i int, p *pastVersion) any {
	if i < len(t.changes) && t.changes[i] != nil {
		return t.changes[i]
	}
	return t.stored(p.change)
}

// binaryHex decodes s, lowercase hex of len(b) bytes, into b, and
// reports whether it was: encoding b again then gives s. A longer s (a
// SHA-256 repository's commit hash) is not, and is not decoded: hex.Decode
// would write past b.
func binaryHex(b []byte, s string) bool {
	if len(s) != hex.EncodedLen(len(b)) {
		return false
	}
	n, err := hex.Decode(b, []byte(s))
	return err == nil && n == len(b) && hex.EncodeToString(b) == s
}

// name is the index of s in t.names, added when none of the last few is
// s: a version's slug, file and release are mostly those of the version
// before, and a name that comes back after a while is held twice.
func (t *ToolHistory) name(s string) uint32 {
	for j := len(t.names) - 1; j >= max(len(t.names)-8, 0); j-- {
		if t.names[j] == s {
			return uint32(j)
		}
	}
	t.names = append(t.names, s)
	return uint32(len(t.names) - 1)
}

// nameAt is the j-th of t.names: "" for none, as for a lost version
// (see lostVersion) or one read back mangled.
func (t *ToolHistory) nameAt(j uint32) string {
	if int(j) >= len(t.names) {
		return ""
	}
	return t.names[j]
}

// hold keeps the canonical bytes of the i-th past version.
func (t *ToolHistory) hold(i int32, canonical []byte) {
	if t.held == nil {
		t.held = map[int32][]byte{}
	}
	t.held[i] = canonical
}

// Len is how many versions the tool has had.
func (t *ToolHistory) Len() int {
	if t.latest == nil {
		return 0
	}
	return t.past.len() + 1
}

// At returns the tool's i-th version, oldest first. The latest is the
// Builder's own; an earlier one is made anew at each call (one kept
// whole is returned itself), so a caller must neither change it nor
// compare pointers: its index names it. There is no i-th
// version once LetGo has run: a schema change's event is then read no
// more, since it would ask for one.
func (t *ToolHistory) At(i int) *Version {
	if i < 0 || i >= t.Len() {
		panic(fmt.Sprintf("timeline: version %d of tool %s, which holds %d (let go of?)", i, t.Name, t.Len()))
	}
	if i == t.past.len() {
		return t.latest
	}
	if v := t.odd[int32(i)]; v != nil {
		return v
	}
	p, from := t.past.get(i)
	change := t.change(i, &p)
	if change == nil && i > 0 {
		// Only a version lost (see lostVersion), or read back mangled, has
		// none: it reads as a change that could not be read back.
		change = lostChange{}
	}
	return &Version{Version: p.version, Slug: t.nameAt(p.slug), Commit: hex.EncodeToString(p.commit[:]), Time: time.Unix(p.unix, 0).UTC(),
		Tool:   tools.Tool{Name: t.Name, File: t.nameAt(p.file), Canonical: t.held[int32(i)], Stored: t.stored(p.stored), SHA256: hex.EncodeToString(p.sha[:])},
		change: change, Release: t.nameAt(p.release), From: from}
}

// Versions returns the tool's versions, oldest first, each made as At
// makes it: a caller that reads them one at a time holds less with At.
func (t *ToolHistory) Versions() []*Version {
	out := make([]*Version, t.Len())
	for i := range out {
		out[i] = t.At(i)
	}
	return out
}

// Latest returns the tool's newest version.
func (t *ToolHistory) Latest() *Version {
	if t.latest == nil {
		panic("timeline: Latest of a tool without versions")
	}
	return t.latest
}

// LetGo drops the tool's versions, for a caller that has read all it
// needs of them: nothing else holds a superseded version. Neither they
// nor the events of schema changes to them can be read after it (see At).
func (t *ToolHistory) LetGo() {
	t.past = pastList{}
	t.names, t.held, t.changes, t.odd, t.latest = nil, nil, nil, nil, nil
}

// add makes v the tool's latest version, keeping the one it supersedes
// compact.
func (t *ToolHistory) add(v *Version) {
	if t.latest != nil {
		t.past.add(t.compact(t.latest))
	}
	t.latest = v
}

// step is what the i-th version's schema change says of it, made
// without the version (see At): a long history's events are each read
// this way at least once.
func (t *ToolHistory) step(i int) (from, version, commit string, at time.Time) {
	if i >= t.past.len() || t.odd[int32(i)] != nil {
		v := t.At(i)
		return v.From, v.Version, v.Commit, v.Time
	}
	p, from := t.past.get(i)
	return from, p.version, hex.EncodeToString(p.commit[:]), time.Unix(p.unix, 0).UTC()
}

// EndpointID returns the tool's endpoint id: a string of its own, shared
// by its events, for a history the Builder made.
func (t *ToolHistory) EndpointID() string {
	if t.id != "" {
		return t.id
	}
	return ToolEndpointID(t.Server, t.Name)
}

// Version is one published version of a tool. Only a tool's latest
// version keeps Tool.Object (the decoded schema, needed to diff the next
// change); earlier versions keep their archived bytes, in Tool.Canonical
// or where Tool.Stored says (see ReadStored), and Change, how they differ
// from the version before. A long history would otherwise hold every
// decoded schema in memory.
type Version struct {
	Version string
	Slug    string // the server's slug when it was published (its archive's folder)
	Commit  string
	Time    time.Time
	Tool    tools.Tool // its SHA256 names the version
	From    string     // the version it replaced ("" for the first)
	change  any        // how it differs from From: nil for the first, else schemadiff.Packed or tools.Stored (see Change)
	Release string     // the version of the first release that shipped it; "" before one
}

// Change returns how the version differs from From, nil for the first
// version. It is kept packed, or where the Builder's store put it (see
// Builder.StoreChanges): a long history's timeline holds one for every
// version, and unpacked they were half of what it held. A stored change
// that cannot be read back is returned empty: the store reports the
// failure.
func (v *Version) Change() *schemadiff.Result {
	switch c := v.change.(type) {
	case schemadiff.Packed:
		return c.Unpack()
	case tools.Stored:
		packed, err := c.Read()
		if err != nil {
			return &schemadiff.Result{}
		}
		return schemadiff.Packed(packed).Unpack()
	}
	return nil
}

// ReadStored reads back into memory the canonical bytes (Tool.Canonical)
// of each tool's newest keep versions, and of each server's tools at its
// last state, where the replay stored them outside memory (Tool.Stored):
// those a build reads after the replay, which follow today's tools. The
// older versions' bytes are read once more only when written.
func (tl *Timeline) ReadStored(keep int) error {
	for _, s := range tl.Servers {
		for _, t := range s.Tools {
			if t.latest == nil || keep <= 0 {
				continue
			}
			if err := readStored(&t.latest.Tool); err != nil {
				return err
			}
			for i := max(t.past.len()-(keep-1), 0); i < t.past.len(); i++ {
				if err := t.readStored(i); err != nil {
					return err
				}
			}
		}
		for name, t := range s.Last.Tools {
			if t.Canonical == nil && t.Stored != nil {
				if err := readStored(&t); err != nil {
					return err
				}
				s.Last.Tools[name] = t
			}
		}
	}
	return nil
}

// readStored sets t.Canonical from where it is stored, if it is not held.
func readStored(t *tools.Tool) error {
	if t.Canonical != nil || t.Stored == nil {
		return nil
	}
	canonical, err := t.Stored.Read()
	if err != nil {
		return fmt.Errorf("reading back tool %s: %v", t.Name, err)
	}
	t.Canonical = canonical
	return nil
}

// readStored sets the canonical bytes of the i-th past version from
// where they are stored, as readStored does a Tool's.
func (t *ToolHistory) readStored(i int) error {
	if v := t.odd[int32(i)]; v != nil {
		return readStored(&v.Tool)
	}
	p, _ := t.past.get(i)
	if t.held[int32(i)] != nil || p.stored == 0 {
		return nil
	}
	canonical, err := t.stored(p.stored).Read()
	if err != nil {
		return fmt.Errorf("reading back tool %s: %v", t.Name, err)
	}
	t.hold(int32(i), canonical)
	return nil
}

// ToolEndpointID is the endpoint id of a tool: "<server name>#<tool name>".
func ToolEndpointID(server, tool string) string { return server + "#" + tool }

// splitToolEndpoint is the server and the tool of a ToolEndpointID: split
// at its last "#", which a tool's name cannot hold and a server's may.
// The texts made from them are signed: they must be those of the names.
func splitToolEndpoint(id string) (server, tool string) {
	i := strings.LastIndexByte(id, '#')
	return id[:i], id[i+1:]
}

// Compare compares two versions of a tool, as schemadiff.Compare compares
// their objects.
type Compare func(before, after tools.Tool) schemadiff.Result

// CompareObjects is schemadiff.Compare of the two versions' objects.
func CompareObjects(before, after tools.Tool) schemadiff.Result {
	return schemadiff.Compare(before.Object, after.Object)
}

// NewBuilder starts a Timeline to which commits are given one at a time,
// so a caller can reuse its maps from one commit to the next. compare
// compares a tool's versions: CompareObjects, or what returns its result
// from a comparison made beforehand.
func NewBuilder(compare Compare) *Builder {
	return &Builder{compare: compare, servers: map[string]*serverState{}, seenDeprecations: map[Deprecation]bool{}, keys: map[string]int{},
		eventTools: map[*ToolHistory]uint32{}}
}

// SetCompare makes compare what compares a tool's versions from the next
// commit on.
func (r *Builder) SetCompare(compare Compare) { r.compare = compare }

// StoreChanges has store keep each new version's change outside the
// timeline: in a long history they are the largest part of it after the
// versions themselves. Version.Change reads a stored change back each
// time it is asked for, and gives an empty one when the read fails, so
// the store must report a failure where the caller looks before using
// what the timeline made. A change store does not keep (nil) stays in
// memory.
func (r *Builder) StoreChanges(store func(schemadiff.Packed) tools.Stored) { r.storeChange = store }

// Handles names a tools.Stored by a handle, a number from which it makes
// the Stored again. A long history's timeline holds the stored bytes and
// the stored change of each version it superseded: held as a Stored,
// each cost an interface and an allocation, where a handle costs 8
// bytes.
type Handles interface {
	// Handle returns the handle of s, never 0, and whether s has one: a
	// Stored that has none is kept as it is.
	Handle(s tools.Stored) (handle uint64, ok bool)
	// Stored returns a Stored that reads what the one the handle names
	// reads.
	Stored(handle uint64) tools.Stored
}

// HandleStored has handles name the stored bytes and changes of the
// versions of each tool first seen from now on, once superseded (see
// Handles).
func (r *Builder) HandleStored(handles Handles) { r.handles = handles }

// KeepPastIn has the histories of the tools first seen from now on keep
// their superseded versions in store, a chunk at a time, rather than in
// memory (see pastList).
func (r *Builder) KeepPastIn(store Store) { r.store = store }

// changeOf is what a new version keeps of its change (see Version.change).
func (r *Builder) changeOf(diff schemadiff.Result) any {
	packed := diff.Pack()
	if r.storeChange != nil {
		if at := r.storeChange(packed); at != nil {
			return at
		}
	}
	return packed
}

// Commit replays the next commit. It reads c during the call only.
func (r *Builder) Commit(c Commit) error {
	if err := r.commit(c); err != nil {
		return fmt.Errorf("commit %s: %w", gitlog.Short(c.Hash), err)
	}
	return nil
}

// Timeline returns the result of the commits replayed so far. The Builder
// may go on: the histories it returns then change with the commits after.
func (r *Builder) Timeline() *Timeline {
	return &Timeline{events: r.events, Servers: r.histories()}
}

// Builder builds a Timeline commit by commit: the state carried from one
// commit to the next.
type Builder struct {
	compare          Compare
	storeChange      func(schemadiff.Packed) tools.Stored // see StoreChanges; nil keeps changes in memory
	handles          Handles                              // see HandleStored
	store            Store                                // see KeepPastIn; nil holds past versions in memory
	commits          int                                  // replayed so far
	order            []*serverState                       // in order of first appearance
	servers          map[string]*serverState
	seenDeprecations map[Deprecation]bool
	keys             map[string]int // uses of each event name, to keep names unique
	events           eventList
	// eventTools holds the index of each tool in events.tools: the
	// builder's, not the timeline's, whose maps keyed by address no two
	// timelines would share.
	eventTools map[*ToolHistory]uint32
}

type serverState struct {
	history *ServerHistory
	present bool
	seenAt  int // the last commit (Builder.commits) that configured it
	current Server
	tools   map[string]*toolState
	shipped map[string]string // by release version: the x-tools of the release
	// announced holds the "version endpoint" of each announcement made,
	// so a release announced late is not announced twice.
	announced map[string]bool
}

type toolState struct {
	history *ToolHistory
	present bool
	current *Version
}

// batch collects one commit's events by kind, so they can be ordered.
// reannounce holds the announcements of tools that return or move with a
// new schema: they follow that schema-change, so that a reader applying the
// feed in order sees each schema-change leave from the version it holds.
type batch struct {
	announce, change, reannounce, deprecate []Event
}

func (r *Builder) commit(c Commit) error {
	var b batch
	r.commits++
	for _, srv := range c.Servers {
		if err := r.server(c, srv, &b); err != nil {
			return err
		}
	}
	for _, s := range r.order {
		if s.present && s.seenAt != r.commits {
			r.removeServer(c, s, &b)
		}
	}
	for _, d := range c.Deprecations {
		if !r.seenDeprecations[d] {
			r.seenDeprecations[d] = true
			b.deprecate = append(b.deprecate, r.configuredDeprecation(c, d))
		}
	}
	for _, group := range [][]Event{b.announce, b.change, b.reannounce, b.deprecate} {
		sort.SliceStable(group, func(i, j int) bool { return endpointOrder(group[i]) < endpointOrder(group[j]) })
		for _, e := range group {
			r.events.add(e, r.eventTools)
		}
	}
	return nil
}

// endpointOrder sorts servers before tools, then by endpoint id.
func endpointOrder(e Event) string {
	if strings.Contains(e.EndpointID, "#") {
		return "1" + e.EndpointID
	}
	return "0" + e.EndpointID
}

func (r *Builder) server(c Commit, srv Server, b *batch) error {
	s, known := r.servers[srv.Name]
	if !known {
		s = &serverState{history: &ServerHistory{Name: srv.Name}, tools: map[string]*toolState{}, shipped: map[string]string{}, announced: map[string]bool{}}
		r.servers[srv.Name] = s
		r.order = append(r.order, s)
	}
	if s.seenAt == r.commits {
		return fmt.Errorf("server %s is configured twice", srv.Name)
	}
	s.seenAt = r.commits
	if s.present && srv.Unchanged && srv.Version == s.current.Version && srv.Endpoint == s.current.Endpoint && srv.Releases == nil {
		s.current, s.history.Last = srv, srv
		r.ship(s, srv.Release)
		return nil
	}
	moved := s.present && srv.Endpoint != s.current.Endpoint
	// A server without a version (none the feed can record yet) is not
	// announced until it has one; its tools are. Its announcement is made
	// once the tools are replayed, so that it can list what a release
	// tagged on this commit ships. A version that is the last release
	// announced late is announced at that release's commit only.
	announce := srv.Version != "" && (!s.present || moved || srv.Version != s.current.Version) &&
		(moved || len(srv.Releases) == 0 || srv.Version != srv.Releases[len(srv.Releases)-1].Version)
	versioned := s.present && srv.Version == s.current.Version
	s.present, s.current = true, srv
	s.history.Last = srv
	if err := r.serverTools(c, s, srv, versioned && !moved, moved, b); err != nil {
		return err
	}
	// Releases are announced once this commit has shipped its own, so
	// that one tagged on the commit itself lists its tools too.
	r.ship(s, srv.Release)
	r.announceReleases(s, b)
	if announce {
		b.announce = append(b.announce, r.announceServer(c, s, srv.Version))
	}
	return nil
}

// serverTools replays a server's tools; only the touched ones when
// touchedOnly and the server says which those are.
func (r *Builder) serverTools(c Commit, s *serverState, srv Server, touchedOnly, moved bool, b *batch) error {
	if touchedOnly && srv.Touched != nil {
		return r.tools(c, s, srv.Touched, b)
	}
	// Map order is fine here: each tool is independent, and commit sorts
	// the events of the commit.
	for _, tool := range srv.Tools {
		if err := r.tool(c, s, tool, moved, b); err != nil {
			return err
		}
	}
	for name, t := range s.tools {
		if _, still := srv.Tools[name]; !still && t.present {
			b.deprecate = append(b.deprecate, r.removeTool(c, s, t))
		}
	}
	return nil
}

// announceReleases announces, each at its own commit, the earlier releases
// the server did not announce.
func (r *Builder) announceReleases(s *serverState, b *batch) {
	for _, rel := range s.current.Releases {
		if !s.announced[rel.Version+" "+s.current.Endpoint] {
			b.announce = append(b.announce, r.announceServer(Commit{Hash: rel.Commit, Time: rel.Time}, s, rel.Version))
		}
	}
}

// ship records what a release tagged on the current commit ships: the
// tools present, at their versions, each of which it is the first release
// of unless an earlier one shipped it.
func (r *Builder) ship(s *serverState, release string) {
	if release == "" {
		return
	}
	var shipped []string
	for _, name := range slices.Sorted(maps.Keys(s.tools)) {
		t := s.tools[name]
		if !t.present {
			continue
		}
		shipped = append(shipped, name+"@"+t.current.Version)
		if t.current.Release == "" {
			t.current.Release = release
		}
	}
	s.shipped[release] = strings.Join(shipped, " ")
}

// tools replays the named tools of a server that neither moved nor changed
// its version: the others are as they were.
func (r *Builder) tools(c Commit, s *serverState, names []string, b *batch) error {
	for _, name := range names {
		if tool, ok := s.current.Tools[name]; ok {
			if err := r.tool(c, s, tool, false, b); err != nil {
				return err
			}
		} else if t := s.tools[name]; t != nil && t.present {
			b.deprecate = append(b.deprecate, r.removeTool(c, s, t))
		}
	}
	return nil
}

func (r *Builder) tool(c Commit, s *serverState, tool tools.Tool, moved bool, b *batch) error {
	t, known := s.tools[tool.Name]
	if !known {
		t = &toolState{history: &ToolHistory{Server: s.current.Name, Name: tool.Name, id: ToolEndpointID(s.current.Name, tool.Name),
			handles: r.handles, past: pastList{store: r.store, size: pastChunkSize}}}
		s.tools[tool.Name] = t
	}
	switch {
	case t.current == nil: // first appearance
		t.current = t.add(c, s.current.Slug, tool, FirstVersion, "", nil)
		b.announce = append(b.announce, r.announceTool(c, s.current, t))
	case t.current.Tool.SHA256 == tool.SHA256:
		if !t.present || moved {
			b.announce = append(b.announce, r.announceTool(c, s.current, t))
		}
	default:
		diff := r.compare(t.current.Tool, tool)
		next, err := schemadiff.NextVersion(t.current.Version, diff.Class)
		if err != nil {
			return fmt.Errorf("tool %s: %v", tool.Name, err)
		}
		from := t.current.Version
		t.current.Tool.Object = nil // before add keeps it compact
		t.current = t.add(c, s.current.Slug, tool, next, from, r.changeOf(diff))
		b.change = append(b.change, r.schemaChange(c, s.current, t))
		if !t.present || moved {
			b.reannounce = append(b.reannounce, r.announceTool(c, s.current, t))
		}
	}
	t.present = true
	return nil
}

// add records a new version of the tool, with its change (see
// Version.change), and returns it.
func (t *toolState) add(c Commit, slug string, tool tools.Tool, version, from string, change any) *Version {
	v := &Version{Version: version, Slug: slug, Commit: c.Hash, Time: c.Time, Tool: tool, From: from, change: change}
	t.history.add(v)
	return v
}

func (r *Builder) removeServer(c Commit, s *serverState, b *batch) {
	s.present = false
	for _, t := range s.tools {
		if t.present {
			b.deprecate = append(b.deprecate, r.removeTool(c, s, t))
		}
	}
	b.deprecate = append(b.deprecate, r.deprecation(c, s.current.Name, "removed "+s.current.Version,
		s.current.Name+" removed", fmt.Sprintf("server %s removed", s.current.Name), nil, "removed from the site"))
}

func (r *Builder) removeTool(c Commit, s *serverState, t *toolState) Event {
	t.present = false
	var replacement *string
	summary := fmt.Sprintf("%s %s removed from %s", t.history.Name, t.current.Version, s.current.Name)
	if next, ok := s.current.Renamed[t.history.Name]; ok {
		id := ToolEndpointID(s.current.Name, next)
		replacement = &id
		summary += "; renamed to " + next
	}
	return r.deprecation(c, t.history.EndpointID(), "removed "+t.current.Version,
		t.history.Name+" removed", summary, replacement, "removed from the server")
}

// announceServer announces the server at a version: a release's
// announcement lists the tools it shipped.
func (r *Builder) announceServer(c Commit, s *serverState, version string) Event {
	srv := s.current
	s.announced[version+" "+srv.Endpoint] = true
	return r.event(c, agentfeed.TypeAnnouncement, srv.Name, version+" "+srv.Endpoint,
		agentfeed.Announcement{EndpointID: srv.Name, Endpoint: srv.Endpoint, Protocol: ProtocolServer, Version: version,
			AssertedAt: agentfeed.FormatTime(c.Time), Tools: s.shipped[version]})
}

func (r *Builder) announceTool(c Commit, srv Server, t *toolState) Event {
	id := t.history.EndpointID()
	return r.event(c, agentfeed.TypeAnnouncement, id, t.current.Version+" "+srv.Endpoint,
		agentfeed.Announcement{EndpointID: id, Endpoint: srv.Endpoint, Protocol: ProtocolTool, Version: t.current.Version,
			AssertedAt: agentfeed.FormatTime(c.Time), SchemaSHA256: t.current.Tool.SHA256})
}

func (r *Builder) schemaChange(c Commit, srv Server, t *toolState) Event {
	v := t.current
	e := r.event(c, agentfeed.TypeSchemaChange, t.history.EndpointID(), changeKey(v.From, v.Version), nil)
	e.tool, e.at = t.history, int32(t.history.Len()-1) // v: its payload, made when asked for
	return e
}

func (r *Builder) configuredDeprecation(c Commit, d Deprecation) Event {
	var replacement *string
	if d.Replacement != "" {
		replacement = &d.Replacement
	}
	summary := fmt.Sprintf("%s deprecated; sunset %s", d.Endpoint, d.Sunset)
	if d.Reason != "" {
		summary += ": " + d.Reason
	}
	title := fmt.Sprintf("%s deprecated, sunset %s", DisplayName(d.Endpoint), day(d.Sunset))
	return r.deprecationAt(c, d.Endpoint, "configured "+d.AnnouncedAt+" "+d.Sunset, title, summary, replacement, d.Reason, d.AnnouncedAt, d.Sunset)
}

func (r *Builder) deprecation(c Commit, endpoint, key, title, summary string, replacement *string, reason string) Event {
	return r.deprecationAt(c, endpoint, key, title, summary, replacement, reason, agentfeed.FormatTime(c.Time), agentfeed.FormatTime(c.Time))
}

func (r *Builder) deprecationAt(c Commit, endpoint, key, title, summary string, replacement *string, reason, announced, sunset string) Event {
	var why *string
	if reason != "" {
		why = &reason
	}
	e := r.event(c, agentfeed.TypeDeprecation, endpoint, key,
		agentfeed.Deprecation{EndpointID: endpoint, AnnouncedAt: announced, Sunset: sunset, Replacement: replacement, Reason: why})
	e.title, e.summary = title, summary
	return e
}

// event builds an Event whose (type, endpoint, key) is unique: a name used
// before (a tool re-announced at the same version) gets an occurrence suffix.
// A schema change's name needs no count: its key, "from -> to", names two
// versions of one tool, whose versions only ever increase. Most events of
// a long history are schema changes, and the names counted were a tenth
// of what its timeline held.
func (r *Builder) event(c Commit, typ, endpoint, key string, payload any) Event {
	if typ != agentfeed.TypeSchemaChange {
		key = r.uniqueKey(typ+"\x00"+endpoint+"\x00", key)
	}
	return NewEvent(typ, endpoint, key, c.Hash, c.Time, payload)
}

// uniqueKey returns key, or, when an event of the same type and endpoint
// (prefix) was given it before, key with its occurrence's suffix ("#2",
// "#3"), and counts the one returned as used. A version is free text, so a
// suffixed key can be one a version spells ("removed 1.0 #2"): it is
// counted too, and a key met as used again is suffixed in turn, so no two
// events share a name, which is what their ids derive from. A history
// without such a version gets the keys it always did.
func (r *Builder) uniqueKey(prefix, key string) string {
	for {
		n := r.keys[prefix+key]
		r.keys[prefix+key]++
		if n == 0 {
			return key
		}
		key = fmt.Sprintf("%s #%d", key, n+1)
	}
}

func (r *Builder) histories() []*ServerHistory {
	var out []*ServerHistory
	for _, s := range r.order {
		s.history.Removed = !s.present
		s.history.Tools = nil
		for _, tn := range slices.Sorted(maps.Keys(s.tools)) {
			t := s.tools[tn]
			t.history.Removed = !t.present || !s.present
			s.history.Tools = append(s.history.Tools, t.history)
		}
		out = append(out, s.history)
	}
	return out
}

// changeSummary is a schema change to v, whose change is d, in a
// sentence.
func changeSummary(tool string, v *Version, d *schemadiff.Result) string {
	return fmt.Sprintf("%s %s → %s (%s): %s", tool, v.From, v.Version, d.Class, describe(d))
}

// describe joins the first few change texts of a diff, the most serious
// first.
func describe(d *schemadiff.Result) string {
	const shown = 3
	var texts []string
	for i, c := range d.MostSeriousFirst() {
		if i == shown {
			texts = append(texts, fmt.Sprintf("and %d more", len(d.Changes)-shown))
			break
		}
		texts = append(texts, c.Text)
	}
	return strings.Join(texts, "; ")
}

// changeTitle is a schema change to v, whose change is d, in one line,
// led by its most serious change: "get_me 2.0.0: parameter `reason`
// removed (breaking)".
func changeTitle(tool string, v *Version, d *schemadiff.Result) string {
	i := slices.IndexFunc(d.Changes, func(c schemadiff.Change) bool { return c.Class == d.Class })
	if i < 0 {
		return fmt.Sprintf("%s %s (%s)", tool, v.Version, d.Class)
	}
	text := d.Changes[i].Text
	if more := len(d.Changes) - 1; more > 0 {
		text += fmt.Sprintf(", and %d more", more)
	}
	return fmt.Sprintf("%s %s: %s (%s)", tool, v.Version, text, d.Class)
}

// DisplayName is what people call an endpoint: a tool's name, or a
// server's.
func DisplayName(endpoint string) string {
	if _, tool, ok := strings.Cut(endpoint, "#"); ok {
		return tool
	}
	return endpoint
}

// day is the date of an RFC 3339 time, or the text itself when it is not one.
func day(rfc3339 string) string {
	t, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		return rfc3339
	}
	return t.Format(time.DateOnly)
}
