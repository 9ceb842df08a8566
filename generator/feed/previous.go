package feed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/httpget"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// maxPreviousFeed caps the fetch of a previous feed for the append-only
// check.
const maxPreviousFeed = 64 << 20

// Previous names the feed published before and how to read it.
type Previous struct {
	// Source is a feed file, or the http(s) URL of the live feed.
	Source string
	// Optional turns a feed that cannot be read (the host is down, the
	// name does not resolve now, the feed is malformed) into a warning
	// that the check was skipped, instead of an error.
	Optional bool
	// Resolver, when set, looks the URL's host name up instead of the
	// system's resolver.
	Resolver *net.Resolver
}

// Outcome is what a check found worth saying: notices need no action,
// warnings do.
type Outcome struct {
	Notices  []string
	Warnings []*diag.Error
}

// ReadPrevious reads the feed published before, archives included, for
// the append-only check: every entry published before must still be there
// with the same payload, in any document (an entry may move between
// archives). The entries about to be published are given to the Checker
// as they are signed (Check), and the verdict comes with Finish.
//
// A URL where nothing can have been published yet is a notice, and the
// Checker nil: the host answers 404 or 410 or a page that is not a feed,
// or the name does not exist in DNS (the first deploy, before the domain
// is set up). Any other failure to read the feed is an error, since an
// outage must not skip the check unnoticed; with prev.Optional it is a
// warning instead.
func ReadPrevious(prev Previous) (_ *Checker, out Outcome, err error) {
	published, warning, err := readPublished(prev)
	var nothing *nothingPublished
	if errors.As(err, &nothing) {
		out.Notices = append(out.Notices, fmt.Sprintf("--previous %s: nothing published yet (%s); the append-only check starts with the first deploy", prev.Source, nothing.why))
		return nil, out, nil
	}
	if err != nil && prev.Optional {
		out.Warnings = append(out.Warnings, diag.Errorf("", 0, "--previous %s: %v; the append-only check was skipped (--previous-optional)", prev.Source, err))
		return nil, out, nil
	}
	if err != nil {
		return nil, out, diag.Errorf("", 0, "--previous %s: %v", prev.Source, err).
			WithHint("if the published feed cannot be read now, --previous-optional builds anyway, with a warning that the check was skipped")
	}
	if warning != "" {
		out.Warnings = append(out.Warnings, diag.Errorf("", 0, "--previous %s: %s", prev.Source, warning))
	}
	c := &Checker{published: published, byID: map[string][]int{}, now: make([]*agentfeed.Entry, len(published))}
	for i, e := range published {
		c.byID[e.ID] = append(c.byID[e.ID], i)
	}
	return c, out, nil
}

// Checker compares the entries about to be published with those
// published before (see ReadPrevious). A nil Checker checks nothing.
type Checker struct {
	published []agentfeed.Entry
	byID      map[string][]int // the published entries' indexes, by id
	// now holds, for each published entry, the last entry given with its
	// id whose payload differs, or the entry itself when they are the
	// same; nil while none came.
	now []*agentfeed.Entry
}

// Check takes the next entries about to be published, in feed order. It
// keeps only those whose payload differs from the published one's.
func (c *Checker) Check(entries []agentfeed.Entry) {
	if c == nil {
		return
	}
	for i := range entries {
		for _, j := range c.byID[entries[i].ID] {
			c.now[j] = &c.published[j]
			if string(entries[i].Content) != string(c.published[j].Content) {
				c.now[j] = &entries[i]
			}
		}
	}
}

// Finish returns an error for each published entry that the entries given
// to Check left out or changed, in the published feed's order.
func (c *Checker) Finish() error {
	if c == nil {
		return nil
	}
	var problems []error
	for i, e := range c.published {
		switch now := c.now[i]; {
		case now == nil:
			problems = append(problems, diag.Errorf("", 0, "published entry %s (%s: %s) would disappear", e.ID, e.Type, e.Summary).WithHint(rewrittenHint))
		case string(now.Content) != string(e.Content):
			problems = append(problems, changedPayload(e, *now))
		}
	}
	return errors.Join(problems...)
}

// changedPayload reports that the published entry e would change to now.
func changedPayload(e, now agentfeed.Entry) *diag.Error {
	added := addedExtensions(e.Content, now.Content)
	if len(added) == 0 {
		return diag.Errorf("", 0, "published entry %s (%s: %s) would change its payload", e.ID, e.Type, e.Summary).WithHint(rewrittenHint)
	}
	return diag.Errorf("", 0, "published entry %s (%s: %s) would change its payload: it only gains %s, which earlier versions of wellknown did not write",
		e.ID, e.Type, e.Summary, strings.Join(added, ", ")).WithHint(upgradeHint)
}

// upgradeOptions are what a site can do when a later wellknown derives
// published entries otherwise. Publishing them anyway is not one: every
// reader that remembers the feed would report the changed entries.
const upgradeOptions = "keep building this site with that version, or move readers to a new feed with feed.status = \"migrated\" (see Upgrading wellknown in its README)"

// upgradeHint explains a change only a later wellknown makes; rewrittenHint
// one that a rewritten history makes, or a later wellknown's rules (how
// changes are classified, or commits land), which look alike.
const (
	upgradeHint   = "a published entry never changes, and the rules that derive entries changed with the wellknown version: " + upgradeOptions
	rewrittenHint = "a published entry never changes or disappears: restore the history that produced it (was the branch rewritten or rebased?). If it is intact, the rules that derive entries changed with the wellknown version: " + upgradeOptions
)

// addedExtensions returns the extension keys ("x-…") the payload now has
// and the published one lacks, sorted, when those are its only difference:
// what a later wellknown makes of the same history, since extensions are
// only ever added to a payload. It returns nil for any other difference.
func addedExtensions(published, now []byte) []string {
	var before, after map[string]json.RawMessage
	if json.Unmarshal(published, &before) != nil || json.Unmarshal(now, &after) != nil {
		return nil
	}
	var added []string
	for k, v := range after {
		old, ok := before[k]
		switch {
		case !ok && strings.HasPrefix(k, "x-"):
			added = append(added, k)
		case !ok || string(old) != string(v):
			return nil
		}
	}
	if len(before)+len(added) != len(after) {
		return nil
	}
	slices.Sort(added)
	return added
}

// nothingPublished is a live feed URL where nothing can have been
// published yet. It is errNoPreviousFeed, for the archives it leads to.
type nothingPublished struct{ why string }

func (n *nothingPublished) Error() string { return "nothing published yet: " + n.why }
func (n *nothingPublished) Unwrap() error { return errNoPreviousFeed }

var errNoPreviousFeed = errors.New("no previous feed")

// A publication reads the documents of a published feed by URL; a
// document it does not have is errNoPreviousFeed.
type publication interface {
	read(u *url.URL) ([]byte, error)
}

// readPublished reads the published history: the feed and the archive
// documents its prev-archive links lead to, oldest first. From a file, the
// archives are the files beside it at the paths the links give relative to
// the feed's self link; when the newest archive is not there, only the file
// is compared, with a warning.
func readPublished(prev Previous) (entries []agentfeed.Entry, warning string, err error) {
	src := prev.Source
	var pub publication
	var feedURL *url.URL
	if strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://") {
		if feedURL, err = url.Parse(src); err != nil {
			return nil, "", err
		}
		web := newWebPublication(prev.Resolver)
		defer web.cancel()
		pub = web
	} else {
		pub, feedURL = filePublication{src: src}, &url.URL{Path: "/"}
	}
	data, err := pub.read(feedURL)
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		// Only an authoritative "no such name": a lookup that failed for
		// now says nothing about what was published.
		return nil, "", &nothingPublished{fmt.Sprintf("the name %s does not exist, so nothing can have been published at it", feedURL.Hostname())}
	}
	if err != nil {
		return nil, "", err
	}
	if _, web := pub.(*webPublication); web && isPage(data) {
		return nil, "", &nothingPublished{"the host answers with a page, not a feed"}
	}
	feed, err := agentfeed.Decode(data)
	if err != nil {
		return nil, "", err
	}
	if file, ok := pub.(filePublication); ok && feed.PrevArchive != "" {
		if pub, feedURL, err = file.beside(feed.SelfURL); err != nil {
			return feed.Entries, err.Error() + "; compared with this file only", nil
		}
	}
	archives, err := readArchives(pub, feedURL, feed.PrevArchive)
	var missing *missingArchive
	if _, fromFile := pub.(*fileArchives); fromFile && len(archives) == 0 && errors.As(err, &missing) {
		return feed.Entries, fmt.Sprintf("its archive %s is not beside it; compared with this file only", missing.url), nil
	}
	if err != nil {
		return nil, "", err
	}
	for _, a := range slices.Backward(archives) {
		entries = append(entries, a...)
	}
	return append(entries, feed.Entries...), "", nil
}

// readArchives follows a prev-archive chain from the document at at and
// returns each archive's entries, newest archive first. The chain must stay
// on the feed's origin, must not loop and must not be broken.
func readArchives(pub publication, at *url.URL, link string) ([][]agentfeed.Entry, error) {
	var archives [][]agentfeed.Entry
	feedURL := at
	seen := map[string]bool{at.String(): true}
	for link != "" {
		u, err := at.Parse(link)
		switch {
		case err != nil:
			return archives, fmt.Errorf("%s: prev-archive %q is not a URL", at, link)
		case u.Scheme != feedURL.Scheme || !strings.EqualFold(u.Host, feedURL.Host):
			return archives, fmt.Errorf("%s: prev-archive %s is not on the feed's origin", at, u)
		case seen[u.String()]:
			return archives, fmt.Errorf("%s: prev-archive %s leads back to a document already read: the archives link in a circle", at, u)
		case len(archives) == agentfeed.MaxArchives:
			return archives, fmt.Errorf("more than %d archive documents", agentfeed.MaxArchives)
		}
		seen[u.String()] = true
		data, err := pub.read(u)
		if errors.Is(err, errNoPreviousFeed) {
			return archives, &missingArchive{from: at, url: u}
		}
		if err != nil {
			return archives, fmt.Errorf("%s: %w", u, err)
		}
		archive, err := agentfeed.Decode(data)
		if err != nil {
			return archives, fmt.Errorf("%s: %v", u, err)
		}
		archives = append(archives, archive.Entries)
		at, link = u, archive.PrevArchive
	}
	return archives, nil
}

// missingArchive is a prev-archive link to a document that is not there.
type missingArchive struct{ from, url *url.URL }

func (m *missingArchive) Error() string {
	return fmt.Sprintf("%s: prev-archive %s is missing", m.from, m.url)
}

// filePublication is a feed kept as a file.
type filePublication struct{ src string }

func (f filePublication) read(*url.URL) ([]byte, error) {
	data, err := inputfile.ReadFile("", f.src, maxPreviousFeed)
	return data, diag.Cause(err) // the message names src already
}

// beside returns the archives beside the feed file, located by the feed's
// self link.
func (f filePublication) beside(self string) (*fileArchives, *url.URL, error) {
	u, err := url.Parse(self)
	if err != nil || self == "" {
		return nil, nil, errors.New("the feed has no self link to locate its archives by")
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(f.src))
	if err == nil {
		dir, err = filepath.Abs(dir)
	}
	if err != nil {
		return nil, nil, err
	}
	return &fileArchives{dir: dir, base: path.Dir(u.Path) + "/"}, u, nil
}

// fileArchives are the archive documents beside a feed file: the document
// at the URL path base + rel is the file rel in dir, and nothing outside
// dir is read.
type fileArchives struct {
	dir  string
	base string
}

func (a *fileArchives) read(u *url.URL) ([]byte, error) {
	rel, ok := strings.CutPrefix(path.Clean(u.Path), a.base)
	if !ok {
		return nil, errors.New("not beside the feed file, so not read")
	}
	name := filepath.Join(a.dir, filepath.FromSlash(rel))
	data, err := inputfile.ReadFile(a.dir, name, maxPreviousFeed)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoPreviousFeed
	}
	return data, err
}

// maxPreviousTime bounds reading the whole published history over the
// network.
const maxPreviousTime = 5 * time.Minute

// webPublication is a live feed.
type webPublication struct {
	client *httpget.Client
	ctx    context.Context
	cancel context.CancelFunc
}

func newWebPublication(resolver *net.Resolver) *webPublication {
	ctx, cancel := context.WithTimeout(context.Background(), maxPreviousTime)
	// A feed that guards what gets published must not come over a
	// connection anyone on the way can rewrite.
	client := httpget.New(30*time.Second, maxPreviousFeed, func(u string) error { return httpget.CheckURLFor("the previous feed", u) })
	if resolver != nil {
		client.UseResolver(resolver)
	}
	return &webPublication{ctx: ctx, cancel: cancel, client: client}
}

func (w *webPublication) read(u *url.URL) ([]byte, error) {
	data, err := w.client.Get(w.ctx, u.String())
	var status *httpget.StatusError
	if errors.As(err, &status) && (status.Code == http.StatusNotFound || status.Code == http.StatusGone) {
		return nil, &nothingPublished{"the host answers " + status.Status}
	}
	return data, err
}

// isPage tells whether a document answered at the feed's URL is an HTML
// page, as a host serves for a site that has no feed (yet).
func isPage(data []byte) bool {
	return strings.HasPrefix(http.DetectContentType(data), "text/html")
}
