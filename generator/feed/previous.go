package feed

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/generator/agentfeed"
	"github.com/wellknown-dev/wellknown/generator/diag"
	"github.com/wellknown-dev/wellknown/generator/site"
	"github.com/wellknown-dev/wellknown/internal/httpget"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// maxPreviousFeed caps the fetch of a previous feed for the append-only
// check.
const maxPreviousFeed = 64 << 20

// checkFetchURL allows https, and plain http only to this machine: a feed
// that guards what gets published must not come over a connection anyone
// on the way can rewrite.
func checkFetchURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if site.SecureURL(u) {
		return nil
	}
	return fmt.Errorf("%s: the previous feed is fetched over https (plain http only from localhost)", s)
}

// CheckAppendOnly compares the feed's entries about to be published with
// the feed published before (a file, or an http(s) URL of the live feed),
// archives included: every entry published before must still be there with
// the same payload, in any document (an entry may move between archives).
// It returns a warning instead when the URL has no feed yet (a first
// deploy).
func CheckAppendOnly(previous string, entries []agentfeed.Entry) (warnings []string, err error) {
	published, warning, err := readPublished(previous)
	if errors.Is(err, errNoPreviousFeed) {
		return []string{fmt.Sprintf("--previous %s: no feed there yet (a first deploy?); nothing to compare with", previous)}, nil
	}
	if err != nil {
		e := diag.Errorf("", 0, "--previous %s: %v", previous, err)
		var dns *net.DNSError
		if errors.As(err, &dns) {
			e.WithHint("before the first deploy, while the domain does not resolve yet, build without --previous")
		}
		return nil, e
	}
	if warning != "" {
		warnings = append(warnings, fmt.Sprintf("--previous %s: %s", previous, warning))
	}
	current := make(map[string]agentfeed.Entry, len(entries))
	for _, e := range entries {
		current[e.ID] = e
	}
	var problems []error
	for _, e := range published {
		now, ok := current[e.ID]
		switch {
		case !ok:
			problems = append(problems, diag.Errorf("", 0, "published entry %s (%s: %s) would disappear", e.ID, e.Type, e.Summary))
		case string(now.Content) != string(e.Content):
			problems = append(problems, diag.Errorf("", 0, "published entry %s (%s: %s) would change its payload", e.ID, e.Type, e.Summary))
		}
	}
	if len(problems) == 0 {
		return warnings, nil
	}
	problems[0].(*diag.Error).WithHint("a published entry never changes or disappears: restore the history that produced it (was the branch rewritten or rebased?), or move to a new feed with feed.status = \"migrated\"")
	return nil, errors.Join(problems...)
}

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
func readPublished(src string) (entries []agentfeed.Entry, warning string, err error) {
	var pub publication
	var feedURL *url.URL
	if strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://") {
		if feedURL, err = url.Parse(src); err != nil {
			return nil, "", err
		}
		web := newWebPublication()
		defer web.cancel()
		pub = web
	} else {
		pub, feedURL = filePublication{src: src}, &url.URL{Path: "/"}
	}
	data, err := pub.read(feedURL)
	if err != nil {
		return nil, "", err
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

func newWebPublication() *webPublication {
	ctx, cancel := context.WithTimeout(context.Background(), maxPreviousTime)
	return &webPublication{
		ctx:    ctx,
		cancel: cancel,
		client: httpget.New(30*time.Second, maxPreviousFeed, checkFetchURL),
	}
}

func (w *webPublication) read(u *url.URL) ([]byte, error) {
	data, err := w.client.Get(w.ctx, u.String())
	if errors.Is(err, httpget.ErrNotFound) {
		return nil, errNoPreviousFeed
	}
	return data, err
}
