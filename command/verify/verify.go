package verify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/attestation"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// MaxFollow is how many migrations Options.Follow follows.
const MaxFollow = 3

// Options say what to verify and how.
type Options struct {
	// Target is a built site's directory, or an origin URL: https, or
	// http for this machine.
	Target string
	// Base is the URL a directory is published at; empty means the feed's
	// self link. Only for a directory.
	Base string
	// DID is the DID the target must have; empty means did:web of its URL.
	// It exists for testing a mirror of another origin.
	DID string
	// StatePath is where applied entries and revoked trust are remembered
	// between runs; empty means nowhere.
	StatePath string
	// ResetTrust trusts again the origins the state file distrusts: the
	// operator's explicit decision that a feed terminated once may be
	// believed again.
	ResetTrust bool
	// AllowRollback accepts, once, a feed that went back to an older
	// bundle (entries applied before are gone, or an endpoint's version
	// went back): the operator's decision that the publisher reset it on
	// purpose. The state file then forgets what the feed no longer says.
	AllowRollback bool
	// Follow verifies the origin a migrated feed moved to, at most MaxFollow
	// times.
	Follow bool
	// MaxBytes caps every document; 0 means DefaultMaxBytes.
	MaxBytes int64
	// MaxArchives is how many archive documents of the feed are read; 0
	// means DefaultMaxArchives.
	MaxArchives int
	// Timeout bounds every request; 0 means DefaultTimeout.
	Timeout time.Duration
	// ProviderKeys are the EDP providers' keys, by provider id: a JWKS URL
	// (https, or http for this machine) or a PEM file. An attestation is
	// level 2 only when checked with its provider's key.
	ProviderKeys map[string]string
	// Now is the time attestations' expiry is judged at; nil means time.Now.
	Now func() time.Time
	// Deadline bounds the whole run; 0 means DefaultDeadline.
	Deadline time.Duration
}

// Severity says whether a finding fails the run.
type Severity string

// The severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one problem, reported on its own line.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`               // see the package documentation
	Document string   `json:"document,omitempty"` // a path on the origin, or a URL elsewhere
	Entry    string   `json:"entry,omitempty"`    // the feed entry concerned
	Message  string   `json:"message"`
	Hint     string   `json:"hint,omitempty"` // a known fix
}

// String is the finding's line: "error: /path: entry id: message (code)".
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", f.Severity)
	if f.Document != "" {
		b.WriteString(f.Document + ": ")
	}
	if f.Entry != "" {
		b.WriteString("entry " + f.Entry + ": ")
	}
	fmt.Fprintf(&b, "%s (%s)", f.Message, f.Code)
	return b.String()
}

// Origin is what one origin's verification found.
type Origin struct {
	URL string `json:"url"`
	// Dir is the directory read in place of the origin, if any.
	Dir        string `json:"dir,omitempty"`
	DID        string `json:"did"`
	FeedStatus string `json:"feed_status,omitempty"` // as the feed says; empty when unread
	// Trusted: the key resolved, the feed is active and readable, and no
	// earlier run revoked trust.
	Trusted   bool      `json:"trusted"`
	Entries   int       `json:"entries"`
	Verified  int       `json:"verified"`
	Documents int       `json:"documents"` // documents read
	Errors    int       `json:"errors"`
	Warnings  int       `json:"warnings"`
	Findings  []Finding `json:"findings"`
	// EDP lists the entity card's MCP entries with their levels; empty
	// without a card.
	EDP []EDPEntry `json:"edp,omitempty"`
}

// Report is the outcome of a run: the target, then each origin Follow
// reached.
type Report struct {
	OK       bool      `json:"ok"` // no errors anywhere
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Origins  []*Origin `json:"origins"`
}

// target is a parsed Options.Target (and Base).
type target struct {
	dir  string   // set for a directory
	base *url.URL // the origin, ending in "/"; nil for a directory without Base
}

// Validate reports a usage problem in the options: a target that is neither
// a directory nor an acceptable origin URL, or a flag that does not fit it.
func (o Options) Validate() error {
	_, err := o.parse()
	return err
}

func (o Options) parse() (target, error) {
	if o.DID != "" && !strings.HasPrefix(o.DID, "did:") {
		return target{}, diag.Errorf("", 0, "--did %q is not a DID", o.DID).WithHint("write it like did:web:example.com")
	}
	if o.MaxBytes < 0 || o.Timeout < 0 || o.Deadline < 0 {
		return target{}, diag.Errorf("", 0, "the size cap, the timeout and the deadline must not be negative")
	}
	if err := parseProviderKeys(o.ProviderKeys); err != nil {
		return target{}, diag.Errorf("", 0, "%v", err)
	}
	if strings.Contains(o.Target, "://") {
		if o.Base != "" {
			return target{}, diag.Errorf("", 0, "--base is for a directory; %s is an origin", o.Target)
		}
		u, err := originURL(o.Target)
		return target{base: u}, err
	}
	info, err := os.Stat(o.Target)
	if err != nil || !info.IsDir() {
		return target{}, diag.Errorf("", 0, "%q is neither a directory nor an origin URL", o.Target).
			WithHint("give the directory a build wrote (e.g. public) or an origin such as https://example.com")
	}
	t := target{dir: o.Target}
	if o.Base != "" {
		t.base, err = originURL(o.Base)
	}
	return t, err
}

// originURL parses an origin URL, with "/" appended to its path.
func originURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, diag.Errorf("", 0, "%q is not a URL: %v", s, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, diag.Errorf("", 0, "%s: only https origins can be verified", s)
	}
	if err := checkScheme(u); err != nil {
		return nil, diag.Errorf("", 0, "%v", err).WithHint("use the https origin; plain http is accepted only for a local preview")
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, diag.Errorf("", 0, "%s: an origin URL has no user, query or fragment", s)
	}
	u.Host = strings.ToLower(u.Host)
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawPath = ""
	return u, nil
}

// Verify checks the target and every origin it leads to. The error is for
// what stops the run before any check (a usage problem, an unreadable
// directory or state file); every problem of the site is a Finding.
func Verify(ctx context.Context, opt Options) (*Report, error) {
	t, err := opt.parse()
	if err != nil {
		return nil, err
	}
	if opt.MaxBytes == 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.MaxArchives == 0 {
		opt.MaxArchives = DefaultMaxArchives
	}
	if opt.Timeout == 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Deadline == 0 {
		opt.Deadline = DefaultDeadline
	}
	ctx, cancel := context.WithTimeoutCause(ctx, opt.Deadline, errDeadline)
	defer cancel()
	st, err := loadState(opt.StatePath)
	if err != nil {
		return nil, err
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	web := newHTTPSource(opt.MaxBytes, opt.Timeout)
	defer web.client.CloseIdleConnections()
	keys := attestation.NewKeys()
	defer keys.Close()
	var c *checker
	if t.dir != "" {
		dir, err := openDir(t, opt.MaxBytes)
		if err != nil {
			return nil, err
		}
		defer dir.root.Close()
		c = newChecker(ctx, dir, dir.base, opt, keys)
		c.rep.Dir = t.dir
	} else {
		c = newChecker(ctx, web, t.base, opt, keys)
	}
	if opt.DID != "" {
		c.did, c.rep.DID = opt.DID, opt.DID
	}
	c.state = st

	rep := &Report{}
	seen := map[string]bool{}
	for {
		seen[c.feedURL.String()] = true
		rep.add(c.run())
		next := c.migratedTo
		if next == nil {
			break
		}
		if reason := stopFollowing(len(rep.Origins), seen[next.String()]); reason != "" {
			c.errorf(codeFollowLimit, c.where(next), "%s", reason)
			rep.recount()
			break
		}
		c = newChecker(ctx, web, baseOfFeed(next), opt, keys)
		c.feedURL, c.state = next, st
	}
	if err := st.save(); err != nil {
		return rep, err
	}
	return rep, nil
}

func stopFollowing(hops int, seen bool) string {
	switch {
	case seen:
		return "not followed: the migrations lead in a circle"
	case hops > MaxFollow:
		return fmt.Sprintf("not followed: more than %d migrations", MaxFollow)
	}
	return ""
}

// openDir opens a directory target. Without a base URL, the feed's self
// link says where the directory is published.
func openDir(t target, max int64) (*dirSource, error) {
	root, err := os.OpenRoot(t.dir)
	if err != nil {
		return nil, err
	}
	dir := &dirSource{root: root, base: t.base, max: max}
	if dir.base == nil {
		dir.base, err = dir.baseFromFeed(t.dir)
	}
	if err != nil {
		root.Close()
		return nil, err
	}
	return dir, nil
}

// baseFromFeed learns the URL a directory is published at from the self
// link of its feed.
func (s *dirSource) baseFromFeed(dir string) (*url.URL, error) {
	resp, err := s.file(strings.TrimPrefix(paths.Feed, "/"))
	var fe *fetchError
	switch {
	case errors.As(err, &fe) && fe.code == codeTooLarge:
		return nil, diag.Errorf("", 0, "%s: cannot read %s to learn the site's URL: %s", dir, paths.Feed, fe.msg).
			WithHint("raise the cap with --max-bytes, or pass --base with the URL the directory is published at")
	case err != nil:
		return nil, diag.Errorf("", 0, "%s: cannot read %s to learn the site's URL: %v", dir, paths.Feed, err).
			WithHint("pass --base with the URL the directory is published at")
	case resp.status != http.StatusOK:
		return nil, diag.Errorf("", 0, "%s: cannot read %s to learn the site's URL: there is no such file", dir, paths.Feed).
			WithHint("pass --base with the URL the directory is published at")
	}
	feed, err := agentfeed.Decode(resp.body)
	if err != nil || !strings.HasSuffix(feed.SelfURL, paths.Feed) {
		return nil, diag.Errorf("", 0, "%s: the feed has no self link ending in %s to learn the site's URL from", dir, paths.Feed).
			WithHint("pass --base with the URL the directory is published at")
	}
	return originURL(strings.TrimSuffix(feed.SelfURL, paths.Feed))
}

// baseOfFeed returns the site of a feed URL: the URL without
// /.well-known/agent-feed.xml, or the origin's root for a feed elsewhere.
func baseOfFeed(feed *url.URL) *url.URL {
	base := *feed
	base.Path = "/"
	if p, ok := strings.CutSuffix(feed.Path, paths.Feed); ok {
		base.Path = p + "/"
	}
	base.RawPath, base.RawQuery, base.Fragment = "", "", ""
	return &base
}

func (r *Report) add(o *Origin) {
	r.Origins = append(r.Origins, o)
	r.recount()
}

// recount derives every count from the findings.
func (r *Report) recount() {
	r.Errors, r.Warnings = 0, 0
	for _, o := range r.Origins {
		o.Errors, o.Warnings = 0, 0
		for _, f := range o.Findings {
			if f.Severity == SeverityError {
				o.Errors++
			} else {
				o.Warnings++
			}
		}
		r.Errors += o.Errors
		r.Warnings += o.Warnings
	}
	r.OK = r.Errors == 0
}
