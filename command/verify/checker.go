package verify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/attestation"
	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/internal/parallel"
)

// Finding codes (see the package documentation).
const (
	codeDIDMismatch          = "did-mismatch"
	codeDIDMalformed         = "did-malformed"
	codeKeyUnresolvable      = "key-unresolvable"
	codeKeyUnusable          = "key-unusable"
	codeFeedMalformed        = "feed-malformed"
	codeArchiveChain         = "archive-chain"
	codeFeedID               = "feed-id"
	codeSpecVersion          = "spec-version"
	codeUnknownStatus        = "unknown-feed-status"
	codeTerminated           = "feed-terminated"
	codeMigrated             = "feed-migrated"
	codeFollowLimit          = "follow-limit"
	codeTrustNotRestored     = "trust-not-restored"
	codeUnverified           = "unverified-entry"
	codeUnknownType          = "unknown-entry-type"
	codeInvalidPayload       = "invalid-payload"
	codeReplayMismatch       = "replay-mismatch"
	codeDuplicatePayload     = "duplicate-payload"
	codeFromVersion          = "from-version-mismatch"
	codeTypeMismatch         = "type-mismatch"
	codeDeprecationOfUnknown = "deprecation-of-unknown"
	codeRollback             = "rollback"
	codeNoSnapshot           = "no-snapshot"
	codeSnapshotUnverified   = "snapshot-unverified"
	codeSnapshotDisagreement = "snapshot-disagreement"
	codeNoCatalog            = "no-catalog"
	codeInvalidDocument      = "invalid-document"
	codeElsewhere            = "elsewhere"
	codeCardFeed             = "card-feed-disagreement"
	codeSchemaHash           = "schema-hash-mismatch"
	codeNotFound             = "not-found"
	codeHTTPStatus           = "http-status"
	codeContentType          = "http-content-type"
	codeCORS                 = "http-cors"
	codeETag                 = "http-etag"
	codeCache                = "http-cache"
	codeTooLarge             = "too-large"
	codeTooManyRedirects     = "too-many-redirects"
	codeInsecureURL          = "insecure-url"
	codeUnreachable          = "unreachable"
	codeEDPAttestation       = "edp-attestation"
	codeEDPExpired           = "edp-expired"
	codeEDPExpiring          = "edp-expiring"
	codeEDPKey               = "edp-key"
	codeDeadline             = "deadline"
)

// fetched is the outcome of reading one URL, kept so each is read and
// reported once.
type fetched struct {
	body []byte
	ok   bool
}

// checker verifies one origin.
type checker struct {
	ctx     context.Context
	src     source
	base    *url.URL // ends in "/"
	feedURL *url.URL
	did     string
	opt     Options
	state   *stateFile // nil without Options.StatePath
	rep     *Origin

	docs map[string]fetched // by URL
	// prefetched holds what prefetch read and get has not yet asked for,
	// by URL.
	prefetched map[string]reading
	// late are the documents not read because the run's deadline passed.
	late []string
	keys []key // usable keys, in document order
	// feed is the subscription document, holding the entries of every
	// archive before its own (readArchives); nil when unread.
	feed *agentfeed.Feed
	// entryDocs names the archive each archived entry was read from, by id.
	entryDocs map[string]string
	verified  []agentfeed.Entry
	replayed  *agentfeed.State   // nil when the feed is unread
	servers   map[string]*server // Server Cards by server name
	// migratedTo is the next origin's feed when Follow goes on.
	migratedTo *url.URL
	// attestationKeys caches the EDP providers' key sets for the run; now
	// judges the attestations' expiry.
	attestationKeys *attestation.Keys
	now             time.Time
}

func newChecker(ctx context.Context, src source, base *url.URL, opt Options, keys *attestation.Keys) *checker {
	did := didweb.DID(base)
	return &checker{
		attestationKeys: keys,
		now:             opt.Now(),
		ctx:             ctx,
		src:             src,
		base:            base,
		feedURL:         base.JoinPath(paths.Feed),
		did:             did,
		opt:             opt,
		rep:             &Origin{URL: base.String(), DID: did, Findings: []Finding{}},
		docs:            map[string]fetched{},
		prefetched:      map[string]reading{},
		servers:         map[string]*server{},
		entryDocs:       map[string]string{},
	}
}

// run makes every check, in the order of the package documentation.
func (c *checker) run() *Origin {
	c.resolveKeys()
	c.readFeed()
	trusted := c.judgeFeed() && len(c.keys) > 0
	c.verifyEntries()
	c.replay(trusted)
	c.rep.Trusted = trusted
	c.checkSnapshot()
	c.checkCatalog()
	c.checkWellKnown()
	c.checkCardsAgainstFeed()
	c.checkArchive()
	c.reportLate()
	return c.rep
}

func (c *checker) add(f Finding) { c.rep.Findings = append(c.rep.Findings, f) }

func (c *checker) errorf(code, doc, format string, args ...any) {
	c.add(Finding{Severity: SeverityError, Code: code, Document: doc, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) warnf(code, doc, format string, args ...any) {
	c.add(Finding{Severity: SeverityWarning, Code: code, Document: doc, Message: fmt.Sprintf(format, args...)})
}

// at returns the URL of a site path ("/.well-known/…").
func (c *checker) at(p string) *url.URL { return c.base.JoinPath(p) }

// onOrigin reports whether u is part of the site being verified.
func (c *checker) onOrigin(u *url.URL) bool {
	return u.Scheme == c.base.Scheme && strings.EqualFold(u.Host, c.base.Host) && strings.HasPrefix(u.Path, c.base.Path)
}

// where names a document in findings: its path on this origin, or its URL.
func (c *checker) where(u *url.URL) string {
	if c.onOrigin(u) {
		return u.EscapedPath()
	}
	return u.String()
}

// get reads a document of this origin once, checks its HTTP contract on a
// live origin and its format, and returns its body. need says who requires
// the document, for the message when it is missing; a missing document that
// nobody requires (need "") is no finding.
func (c *checker) get(u *url.URL, k kind, need string) ([]byte, bool) {
	if f, done := c.docs[u.String()]; done {
		return f.body, f.ok
	}
	body, ok := c.fetch(u, k, need)
	c.docs[u.String()] = fetched{body, ok}
	if ok {
		c.rep.Documents++
		c.checkFormat(u, k, body)
	}
	return body, ok
}

func (c *checker) fetch(u *url.URL, k kind, need string) ([]byte, bool) {
	doc := c.where(u)
	r, ok := c.prefetched[u.String()]
	if ok {
		delete(c.prefetched, u.String())
	} else {
		r = c.read(u)
	}
	resp, err := r.resp, r.err
	if err != nil {
		c.fetchFailed(doc, err)
		return nil, false
	}
	switch {
	case resp.status == http.StatusNotFound || resp.status == http.StatusGone:
		if need != "" {
			c.errorf(codeNotFound, doc, "%s, but it is missing (%d)", need, resp.status)
		}
		return nil, false
	case resp.status != http.StatusOK:
		c.errorf(codeHTTPStatus, doc, "answered %d %s, want 200", resp.status, http.StatusText(resp.status))
		return nil, false
	}
	if resp.header != nil {
		c.checkHTTP(u, k, r)
	}
	return resp.body, true
}

func (c *checker) fetchFailed(doc string, err error) {
	if err == errDeadline {
		c.late = append(c.late, doc)
		return
	}
	code, msg := codeUnreachable, err.Error()
	if fe, ok := err.(*fetchError); ok {
		code = fe.code
	}
	c.errorf(code, doc, "cannot read it: %s", msg)
}

func (c *checker) checkFormat(u *url.URL, k kind, body []byte) {
	if k.check == nil {
		return
	}
	for _, p := range k.check(body, c.base.Hostname()) {
		c.errorf(codeInvalidDocument, c.where(u), "%s: %s", k.name, p.Error())
	}
}

// reading is a document as read: the response, and on a live origin the
// answer to a request revalidating it with its ETag.
type reading struct {
	resp        *response
	err         error
	revalidated *response
	revalidErr  error
}

// read reads a document, and revalidates it when it came with an ETag. A
// request that failed because the run's deadline passed fails with
// errDeadline.
func (c *checker) read(u *url.URL) reading {
	var r reading
	r.resp, r.err = c.request(u, "")
	if r.err != nil || r.resp.status != http.StatusOK || r.resp.header == nil {
		return r
	}
	if etag := r.resp.header.Get("ETag"); etag != "" {
		r.revalidated, r.revalidErr = c.request(u, etag)
	}
	return r
}

// request sends one request.
func (c *checker) request(u *url.URL, ifNoneMatch string) (*response, error) {
	resp, err := c.src.get(c.ctx, u, ifNoneMatch)
	if err != nil && errors.Is(context.Cause(c.ctx), errDeadline) {
		err = errDeadline
	}
	return resp, err
}

// prefetch reads the documents of this origin that get will ask for next,
// MaxConcurrent at a time, so that slow ones are waited for together
// rather than one after another.
func (c *checker) prefetch(urls []*url.URL) {
	var todo []*url.URL
	for _, u := range urls {
		key := u.String()
		if _, done := c.docs[key]; done || !c.onOrigin(u) {
			continue
		}
		if _, queued := c.prefetched[key]; !queued {
			c.prefetched[key] = reading{}
			todo = append(todo, u)
		}
	}
	read := make([]reading, len(todo))
	parallel.ForAtMost(MaxConcurrent, len(todo), func(i int) { read[i] = c.read(todo[i]) })
	for i, u := range todo {
		c.prefetched[u.String()] = read[i]
	}
}

// reportLate names, in one finding, the documents the deadline left unread.
func (c *checker) reportLate() {
	if len(c.late) == 0 {
		return
	}
	c.add(Finding{Severity: SeverityError, Code: codeDeadline,
		Message: fmt.Sprintf("not read when the run's deadline (%s) passed: %s", c.opt.Deadline, strings.Join(c.late, ", ")),
		Hint:    "allow the run more time with --deadline"})
}
