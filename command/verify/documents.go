package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/cards"
	"github.com/wellknown-dev/wellknown/format/paths"
)

// snapshotDoc is what the snapshot is compared by.
type snapshotDoc struct {
	ID         string               `json:"id"`
	FeedStatus string               `json:"feed-status"`
	Endpoints  []agentfeed.Endpoint `json:"endpoints"`
	ByProtocol map[string]string    `json:"by-protocol"`
}

// isSnapshot tells the agent-feed snapshot from an A2A Agent Card, which
// may both be at /.well-known/agent-card.json.
func isSnapshot(data []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	_, hasVersion := m["spec-version"]
	_, hasEndpoints := m["endpoints"]
	return hasVersion && hasEndpoints
}

func agentCardUnlessSnapshot(data []byte, _ string) []cards.Problem {
	if isSnapshot(data) {
		return nil
	}
	return cards.CheckAgentCard(data)
}

// checkSnapshot verifies the snapshot and holds it against the feed.
func (c *checker) checkSnapshot() {
	u := c.at(paths.SnapshotBesideA2A)
	data, ok := c.get(u, kindSnapshot, "")
	if !ok {
		u = c.at(paths.Snapshot)
		data, ok = c.get(u, kindWellKnownAgentCard, "")
		ok = ok && isSnapshot(data)
	}
	if !ok {
		c.warnf(codeNoSnapshot, "", "no agent-feed snapshot at %s or %s", paths.SnapshotBesideA2A, paths.Snapshot)
		return
	}
	doc := c.where(u)
	if len(c.keys) == 0 {
		return
	}
	if err := c.verifySnapshot(data); err != nil {
		c.errorf(codeSnapshotUnverified, doc, "%v", err)
	}
	if c.replayed == nil {
		return
	}
	var snap snapshotDoc
	if err := json.Unmarshal(data, &snap); err != nil {
		c.errorf(codeInvalidDocument, doc, "snapshot: %v", err)
		return
	}
	for _, d := range c.snapshotDifferences(snap) {
		c.errorf(codeSnapshotDisagreement, doc, "%s", d)
	}
}

// verifySnapshot accepts a signature by any of the origin's keys: the
// snapshot does not name its signer.
func (c *checker) verifySnapshot(data []byte) error {
	var err error
	for _, k := range c.keys {
		if err = agentfeed.VerifySnapshot(data, k.verifier); err == nil {
			return nil
		}
	}
	return err
}

// snapshotDifferences lists how a snapshot differs from the replayed feed.
func (c *checker) snapshotDifferences(snap snapshotDoc) []string {
	var diffs []string
	if snap.ID != c.did {
		diffs = append(diffs, fmt.Sprintf("id is %q, want the origin's DID %q", snap.ID, c.did))
	}
	if snap.FeedStatus != string(c.feed.Status) {
		diffs = append(diffs, fmt.Sprintf("feed-status is %q, the feed's is %q", snap.FeedStatus, c.feed.Status))
	}
	inSnapshot := map[string]string{}
	for _, ep := range snap.Endpoints {
		inSnapshot[ep.EndpointID] = encode(ep)
	}
	for _, ep := range c.replayed.Endpoints {
		got, ok := inSnapshot[ep.EndpointID]
		switch want := encode(ep); {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("endpoint %s is missing; the feed replays to %s", ep.EndpointID, want))
		case got != want:
			diffs = append(diffs, fmt.Sprintf("endpoint %s is %s; the feed replays to %s", ep.EndpointID, got, want))
		}
		delete(inSnapshot, ep.EndpointID)
	}
	for _, id := range slices.Sorted(maps.Keys(inSnapshot)) {
		diffs = append(diffs, fmt.Sprintf("endpoint %s is not in the feed", id))
	}
	if got, want := encode(snap.ByProtocol), encode(c.replayed.ByProtocol); got != want {
		diffs = append(diffs, fmt.Sprintf("by-protocol is %s; the feed replays to %s", got, want))
	}
	return diffs
}

// server is what a Server Card says that the feed also says.
type server struct {
	where   string // the first card naming it
	version string
	remotes []string
	slug    string // its archive folder, when the card's location tells
}

type serverCardDoc struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Remotes []struct {
		URL string `json:"url"`
	} `json:"remotes"`
}

// addServerCard records a Server Card read at u; slug is "" when unknown.
func (c *checker) addServerCard(u *url.URL, data []byte, slug string) {
	var card serverCardDoc
	if json.Unmarshal(data, &card) != nil || card.Name == "" {
		return // reported by the card's check
	}
	s, ok := c.servers[card.Name]
	if !ok {
		s = &server{where: c.where(u), version: card.Version}
		for _, r := range card.Remotes {
			s.remotes = append(s.remotes, r.URL)
		}
		c.servers[card.Name] = s
	}
	if s.slug == "" {
		s.slug = slug
	}
}

// cardSlug returns the slug of the server whose card is at p when p is
// where a build publishes one (paths.ServerCardOf).
func cardSlug(p string) (string, bool) {
	segments := strings.Split(p, "/")
	if len(segments) != 4 || segments[2] == "" {
		return "", false
	}
	return segments[2], paths.ServerCardOf(segments[2]) == p
}

// slugOf finds a server's archive folder from where its card is published,
// or from its catalog identifier urn:air:<host>:mcp:<slug>.
func (c *checker) slugOf(u *url.URL, identifier string) string {
	if slug, ok := cardSlug(strings.TrimPrefix(u.Path, strings.TrimSuffix(c.base.Path, "/"))); ok {
		return slug
	}
	if _, slug, ok := strings.Cut(identifier, ":mcp:"); ok && strings.HasPrefix(identifier, "urn:air:") {
		return slug
	}
	return ""
}

// resolve reads a document a listing points to: on this origin it must be
// there; elsewhere it is not read.
func (c *checker) resolve(listing *url.URL, ref string, k kind, need string) (*url.URL, []byte, bool) {
	u, err := listing.Parse(ref)
	if err != nil {
		return nil, nil, false // reported by the listing's check
	}
	if !c.onOrigin(u) {
		c.warnf(codeElsewhere, c.where(listing), "%s is on another origin; not checked", u)
		return u, nil, false
	}
	data, ok := c.get(u, k, need)
	return u, data, ok
}

// checkCatalog checks the AI Catalog and every document it lists.
func (c *checker) checkCatalog() {
	u := c.at(paths.Catalog)
	data, ok := c.get(u, kindCatalog, "")
	if !ok {
		if !c.failedAt(u) {
			c.warnf(codeNoCatalog, c.where(u), "no AI Catalog: clients cannot discover the site's servers and agents")
		}
		return
	}
	var cat struct {
		Entries []struct {
			Identifier string `json:"identifier"`
			Type       string `json:"type"`
			URL        string `json:"url"`
		} `json:"entries"`
	}
	if json.Unmarshal(data, &cat) != nil {
		return // reported by the catalog's check
	}
	var refs []string
	for _, e := range cat.Entries {
		refs = append(refs, e.URL)
	}
	c.prefetchRefs(u, refs)
	for i, e := range cat.Entries {
		need := fmt.Sprintf("the AI Catalog lists it (entries[%d])", i)
		card, body, ok := c.resolve(u, e.URL, kindOfCard(e.Type), need)
		if ok && e.Type == cards.TypeServerCard {
			c.addServerCard(card, body, c.slugOf(card, e.Identifier))
		}
	}
}

// prefetchRefs prefetches the documents a listing at u points to.
func (c *checker) prefetchRefs(listing *url.URL, refs []string) {
	var urls []*url.URL
	for _, ref := range refs {
		if u, err := listing.Parse(ref); err == nil {
			urls = append(urls, u)
		}
	}
	c.prefetch(urls)
}

// failedAt reports whether a finding was made about u, or the deadline left
// it unread.
func (c *checker) failedAt(u *url.URL) bool {
	doc := c.where(u)
	return slices.Contains(c.late, doc) || slices.ContainsFunc(c.rep.Findings, func(f Finding) bool { return f.Document == doc })
}

// checkWellKnown checks the other discovery documents a site may publish,
// and the cards they point to.
func (c *checker) checkWellKnown() {
	if data, ok := c.get(c.at(paths.ServerList), kindServerList, ""); ok {
		var list struct {
			Servers []json.RawMessage `json:"servers"`
		}
		if json.Unmarshal(data, &list) == nil {
			for _, card := range list.Servers {
				c.addServerCard(c.at(paths.ServerList), card, "")
			}
		}
	}
	if data, ok := c.get(c.at(paths.ServerCardAlias), kindServerCard, ""); ok {
		c.addServerCard(c.at(paths.ServerCardAlias), data, "")
	}
	if data, ok := c.get(c.at(paths.EntityCard), kindEntityCard, ""); ok {
		c.checkAttestations(data)
	}
	c.get(c.at(paths.Snapshot), kindWellKnownAgentCard, "")
	c.checkAICards()
}

// checkAICards checks the AI Card discovery document and the cards it
// points to.
func (c *checker) checkAICards() {
	u := c.at(paths.AICards)
	data, ok := c.get(u, kindAICards, "")
	if !ok {
		return
	}
	var doc struct {
		Protocols []struct {
			Metadata struct {
				Type string `json:"type"`
				URL  string `json:"url"`
			} `json:"metadata"`
		} `json:"protocols"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return // reported by the document's check
	}
	var refs []string
	for _, p := range doc.Protocols {
		refs = append(refs, p.Metadata.URL)
	}
	c.prefetchRefs(u, refs)
	for i, p := range doc.Protocols {
		need := fmt.Sprintf("the AI Card discovery document points to it (protocols[%d])", i)
		switch p.Metadata.Type {
		case "mcp-server-card":
			if card, body, ok := c.resolve(u, p.Metadata.URL, kindServerCard, need); ok {
				c.addServerCard(card, body, c.slugOf(card, ""))
			}
		case "agent-card":
			c.resolve(u, p.Metadata.URL, kindAgentCard, need)
		default:
			c.resolve(u, p.Metadata.URL, kindOther, need)
		}
	}
}

// checkCardsAgainstFeed holds every Server Card against the replayed feed:
// the feed announced the server, at the card's version, at one of its
// remotes.
func (c *checker) checkCardsAgainstFeed() {
	if c.replayed == nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(c.servers)) {
		s := c.servers[name]
		ep, ok := c.replayed.Endpoint(name)
		switch {
		case !ok:
			c.errorf(codeCardFeed, s.where, "the feed never announced server %s", name)
		case ep.Version != s.version:
			c.errorf(codeCardFeed, s.where, "server %s is at version %s, the feed's at %s", name, s.version, ep.Version)
		case len(s.remotes) > 0 && !slices.Contains(s.remotes, ep.Endpoint):
			c.errorf(codeCardFeed, s.where, "server %s: the feed's endpoint %s is none of the card's remotes", name, ep.Endpoint)
		}
	}
}

// archiveRef is what a signed entry says about an archived tool version.
type archiveRef struct {
	EndpointID   string `json:"endpoint-id"`
	Version      string `json:"version"`    // an announcement's
	ToVersion    string `json:"to-version"` // a schema change's
	SchemaSHA256 string `json:"x-schema-sha256"`
}

// safeSegment is what a slug, tool name or version may be to become part
// of an archive path: nothing a hostile feed could use to point elsewhere.
var safeSegment = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)

// checkArchive checks every archived tool version a verified entry binds
// with x-schema-sha256.
func (c *checker) checkArchive() {
	type binding struct {
		entryID string
		ref     archiveRef
	}
	var bound []binding
	var urls []*url.URL
	for _, e := range c.verified {
		var ref archiveRef
		if json.Unmarshal(e.Content, &ref) != nil || ref.SchemaSHA256 == "" {
			continue
		}
		// The version is the signed payload's, by its own keys: af:type
		// is not signed, and a relabelled entry is a type-mismatch of its
		// own, not a reason to look for its archive elsewhere.
		if ref.ToVersion != "" {
			ref.Version = ref.ToVersion
		}
		bound = append(bound, binding{e.ID, ref})
		if u, _, _ := c.archived(ref); u != nil {
			urls = append(urls, u)
		}
	}
	c.prefetch(urls)
	for _, b := range bound {
		c.checkArchived(b.entryID, b.ref)
	}
}

// archived locates the archived schema an entry binds, or says why it
// cannot, and how bad that is.
func (c *checker) archived(ref archiveRef) (*url.URL, Severity, string) {
	serverName, tool, ok := strings.Cut(ref.EndpointID, "#")
	if !ok {
		return nil, SeverityWarning, fmt.Sprintf("x-schema-sha256 on %s, which is not a tool (<server>#<tool>); not checked", ref.EndpointID)
	}
	slug := c.slugFor(serverName)
	if ref.Version == "" {
		return nil, SeverityError, fmt.Sprintf("cannot locate the archived schema of %s: the payload names no version (version or to-version)", ref.EndpointID)
	}
	for _, seg := range []struct{ what, name string }{{"server folder", slug}, {"tool name", tool}, {"version", ref.Version}} {
		if !safeSegment.MatchString(seg.name) {
			return nil, SeverityError, fmt.Sprintf("cannot locate the archived schema of %s %s: the %s %q is not a safe path segment", ref.EndpointID, ref.Version, seg.what, seg.name)
		}
	}
	return c.at(paths.ToolVersion(slug, tool, ref.Version)), "", ""
}

func (c *checker) checkArchived(entryID string, ref archiveRef) {
	doc := c.where(c.feedURL)
	u, sev, why := c.archived(ref)
	if u == nil {
		c.add(Finding{Severity: sev, Code: codeInvalidPayload, Document: doc, Entry: entryID, Message: why})
		return
	}
	data, ok := c.get(u, kindSchema, fmt.Sprintf("entry %s binds it with x-schema-sha256", entryID))
	if !ok {
		return
	}
	canonical, err := agentfeed.CanonicalizeJSON(data)
	if err != nil {
		c.errorf(codeInvalidDocument, c.where(u), "archived tool schema: %v", err)
		return
	}
	got := sha256.Sum256(canonical)
	if !strings.EqualFold(hex.EncodeToString(got[:]), ref.SchemaSHA256) {
		c.add(Finding{Severity: SeverityError, Code: codeSchemaHash, Document: c.where(u), Entry: entryID,
			Message: fmt.Sprintf("SHA-256 of its RFC 8785 form is %x; the signed entry says %s", got, ref.SchemaSHA256)})
	}
}

// slugFor is a server's archive folder: as its card's location tells, else
// the part of its name after "/" (the documented default).
func (c *checker) slugFor(name string) string {
	if s, ok := c.servers[name]; ok && s.slug != "" {
		return s.slug
	}
	_, slug, _ := strings.Cut(name, "/")
	return slug
}

// encode is a value's JSON, for comparisons and messages.
func encode(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}
