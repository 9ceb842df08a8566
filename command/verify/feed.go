package verify

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
)

// readFeed reads and decodes the feed.
func (c *checker) readFeed() {
	data, ok := c.get(c.feedURL, kindFeed, "the agent feed is the origin's signed change log")
	if !ok {
		return
	}
	feed, err := agentfeed.Decode(data)
	if err != nil {
		c.errorf(codeFeedMalformed, c.where(c.feedURL), "%v", err)
		return
	}
	c.feed = feed
	c.rep.FeedStatus = string(feed.Status)
	if feed.ID != c.did && strings.HasPrefix(feed.ID, "did:") {
		c.warnf(codeFeedID, c.where(c.feedURL), "the feed's id is %s, not the origin's DID %s", feed.ID, c.did)
	}
	c.readArchives()
	c.rep.Entries = len(feed.Entries)
}

// readArchives follows the feed's prev-archive links (RFC 5005 §4) and
// puts the archived entries before the feed's own, oldest archive first, so
// that c.feed.Entries is the whole history in the order of application. A
// link off the origin, back to a document already read or past
// Options.MaxArchives, or to a missing or unreadable document, is an error,
// and the chain is not followed further.
func (c *checker) readArchives() {
	var archives [][]agentfeed.Entry // newest first
	at, link := c.feedURL, c.feed.PrevArchive
	seen := map[string]bool{at.String(): true}
	for link != "" {
		doc := c.where(at)
		u, problem := c.nextArchive(at, link, seen, len(archives))
		if problem != "" {
			c.errorf(codeArchiveChain, doc, "%s", problem)
			break
		}
		seen[u.String()] = true
		archive := c.readArchive(u, doc)
		if archive == nil {
			break
		}
		for _, e := range archive.Entries {
			c.entryDocs[e.ID] = c.where(u)
		}
		archives = append(archives, archive.Entries)
		at, link = u, archive.PrevArchive
	}
	var history []agentfeed.Entry
	for _, entries := range slices.Backward(archives) {
		history = append(history, entries...)
	}
	c.feed.Entries = append(history, c.feed.Entries...)
}

// nextArchive resolves a prev-archive link of the document at at, or says
// why it is not followed; read archives were read before it.
func (c *checker) nextArchive(at *url.URL, link string, seen map[string]bool, read int) (*url.URL, string) {
	u, err := at.Parse(link)
	switch {
	case err != nil:
		return nil, fmt.Sprintf("prev-archive %q is not a URL", link)
	case !c.onOrigin(u):
		return nil, fmt.Sprintf("prev-archive %s is not on this origin; the archives before it are not read", u)
	case seen[u.String()]:
		return nil, fmt.Sprintf("prev-archive %s leads back to a document already read: the archives link in a circle", c.where(u))
	case read == c.opt.MaxArchives:
		return nil, fmt.Sprintf("the feed has more than %d archive documents; the older ones are not read", c.opt.MaxArchives)
	}
	return u, ""
}

// readArchive reads one archive document that from links to; nil when it
// cannot be read.
func (c *checker) readArchive(u *url.URL, from string) *agentfeed.Feed {
	data, ok := c.get(u, kindFeedArchive, "the archive of older entries that "+from+" links to as prev-archive")
	if !ok {
		return nil
	}
	// Only the decoded entries are kept: a long chain is held once.
	c.docs[u.String()] = fetched{ok: true}
	archive, err := agentfeed.Decode(data)
	if err != nil {
		c.errorf(codeFeedMalformed, c.where(u), "%v", err)
		return nil
	}
	if !archive.Archive {
		c.warnf(codeArchiveChain, c.where(u), "is linked to as an archive but has no fh:archive marker")
	}
	return archive
}

// entryDoc names the document an entry was read from.
func (c *checker) entryDoc(e agentfeed.Entry) string {
	if doc, ok := c.entryDocs[e.ID]; ok {
		return doc
	}
	return c.where(c.feedURL)
}

// judgeFeed applies the contract's rules on spec version, status and
// revoked trust, and says whether the feed can be trusted.
func (c *checker) judgeFeed() bool {
	if c.feed == nil {
		return false
	}
	origin := c.state.origin(c.rep.URL)
	if c.opt.ResetTrust {
		origin.Revoked = ""
	}
	doc := c.where(c.feedURL)
	trusted := true
	switch v := c.feed.SpecVersion; v {
	case agentfeed.SpecVersion:
	case "":
		c.warnf(codeSpecVersion, doc, "no af:spec-version; read as 0")
	default:
		c.errorf(codeSpecVersion, doc, "af:spec-version %q is not 0, so this reader treats the feed as terminated", v)
		trusted = false
	}
	switch s := c.feed.Status; s {
	case agentfeed.StatusActive:
	case agentfeed.StatusTerminated:
		c.errorf(codeTerminated, doc, "the publisher terminated the feed: nothing it says is trusted")
		origin.Revoked, trusted = codeTerminated, false
	case agentfeed.StatusMigrated:
		c.migrated(doc)
		origin.Revoked, trusted = codeMigrated, false
	default:
		c.errorf(codeUnknownStatus, doc, "af:feed-status %q is not active, terminated or migrated, so this reader treats the feed as terminated", s)
		trusted = false
	}
	if trusted && origin.Revoked != "" {
		c.add(Finding{Severity: SeverityError, Code: codeTrustNotRestored, Document: doc,
			Message: fmt.Sprintf("the feed is active, but an earlier run saw it %s; that does not restore trust", strings.TrimPrefix(origin.Revoked, "feed-")),
			Hint:    "if you are sure the publisher meant it, trust it again with --reset-trust (or delete the origin from the state file)"})
		trusted = false
	}
	return trusted
}

// migrated reports a migrated feed, and with Follow queues its new origin.
func (c *checker) migrated(doc string) {
	to := c.feed.MigratedTo
	next, err := url.Parse(to)
	if err == nil {
		err = checkScheme(next)
	}
	switch {
	case to == "":
		c.errorf(codeMigrated, doc, "the feed is migrated but names no af:migrated-to")
	case err != nil:
		c.errorf(codeInsecureURL, doc, "the feed migrated to %s, which is not followed: %v", to, err)
	case c.opt.Follow:
		c.warnf(codeMigrated, doc, "the feed migrated to %s; following it", to)
		c.migratedTo = next
	default:
		c.add(Finding{Severity: SeverityError, Code: codeMigrated, Document: doc,
			Message: fmt.Sprintf("the feed migrated to %s: this origin is no longer trusted", to),
			Hint:    "verify the new feed with --follow"})
	}
}

// verifyEntries checks every entry's signature and keeps those that verify.
func (c *checker) verifyEntries() {
	if c.feed == nil || len(c.keys) == 0 {
		return
	}
	for _, e := range c.feed.Entries {
		v, err := c.keyFor(e.Signer)
		if err == nil {
			err = e.Verify(v)
		}
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "entry "+e.ID+": ")
			c.add(Finding{Severity: SeverityError, Code: codeUnverified, Document: c.entryDoc(e), Entry: e.ID, Message: msg})
			continue
		}
		c.verified = append(c.verified, e)
	}
	c.rep.Verified = len(c.verified)
}

// replay replays the verified entries one at a time, holding each against
// the payloads applied on earlier runs and the rules of a strict reader
// (see strictReader), and records what it applied while trusted.
func (c *checker) replay(trusted bool) {
	if c.feed == nil {
		return
	}
	doc := c.where(c.feedURL)
	origin := c.state.origin(c.rep.URL)
	strict := newStrictReader(origin)
	st := agentfeed.NewState()
	var kept []agentfeed.Entry
	for _, e := range c.verified {
		if code, msg := strict.refuse(st, e); code != "" {
			c.add(Finding{Severity: SeverityError, Code: code, Document: c.entryDoc(e), Entry: e.ID, Message: msg})
			continue
		}
		skipped := len(st.Skipped)
		if err := st.Apply(len(kept), e); err != nil {
			c.add(Finding{Severity: SeverityError, Code: codeInvalidPayload, Document: c.entryDoc(e), Entry: e.ID, Message: err.Error()})
			continue
		}
		strict.kept(e, len(st.Skipped) > skipped)
		kept = append(kept, e)
	}
	c.replayed = st
	passed := c.reportSkipped(doc, kept, st.Skipped)
	if trusted && c.state != nil {
		for i, e := range kept {
			if !passed[i] {
				origin.Applied[e.ID] = string(e.Content)
			}
		}
		origin.Versions = strict.versions
	}
	c.reportRollback(doc, origin, strict.versions, st, trusted && c.state != nil)
}

// reportSkipped reports the entries Replay passed over and returns the
// indexes of those not applied.
func (c *checker) reportSkipped(doc string, kept []agentfeed.Entry, skipped []agentfeed.Skipped) map[int]bool {
	passed := map[int]bool{}
	for _, s := range skipped {
		f := Finding{Severity: SeverityWarning, Code: string(s.Reason), Document: doc, Entry: s.EntryID}
		switch s.Reason {
		case agentfeed.SkipUnknownType:
			f.Message = fmt.Sprintf("type %q is not one v0 defines; skipped", kept[s.Index].Type)
			passed[s.Index] = true
		case agentfeed.SkipReplayMismatch:
			f.Severity, f.Message = SeverityError, "repeats the id of an earlier entry with another payload; not applied"
			passed[s.Index] = true
		case agentfeed.SkipDeprecationOfUnknown:
			f.Message = "deprecates an endpoint the feed never announced; ignored"
		}
		c.add(f)
	}
	return passed
}

// reportRollback fails a feed that went back to an older bundle: an entry
// applied on an earlier run is no longer in it, or an endpoint replays to
// another version than the applied entries left it at. An old bundle is
// genuinely signed, so only what a reader remembers can catch it. With
// Options.AllowRollback they are warnings, and when record is set the state
// forgets them, so that a deliberate reset is accepted once.
func (c *checker) reportRollback(doc string, origin *originState, versions map[string]string, st *agentfeed.State, record bool) {
	sev, hint := SeverityError, "if the publisher reset its feed on purpose, accept it once with --allow-rollback"
	if c.opt.AllowRollback {
		sev, hint = SeverityWarning, ""
	}
	present := map[string]bool{}
	for _, e := range c.feed.Entries {
		present[e.ID] = true
	}
	for _, id := range slices.Sorted(maps.Keys(origin.Applied)) {
		if present[id] {
			continue
		}
		c.add(Finding{Severity: sev, Code: codeRollback, Document: doc, Entry: id, Hint: hint,
			Message: "applied on an earlier run, and no longer in the feed"})
		if record && c.opt.AllowRollback {
			delete(origin.Applied, id)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(versions)) {
		ep, ok := st.Endpoint(id)
		if !ok || ep.Version == versions[id] {
			continue // an endpoint that is gone is reported by its entries
		}
		c.add(Finding{Severity: sev, Code: codeRollback, Document: doc, Hint: hint,
			Message: fmt.Sprintf("%s is at version %s in the feed, but an earlier run left it at %s", id, ep.Version, versions[id])})
		if record && c.opt.AllowRollback {
			origin.Versions[id] = ep.Version
		}
	}
}
