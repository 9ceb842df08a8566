package generator

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/generator/agentfeed"
	"github.com/wellknown-dev/wellknown/generator/diag"
	"github.com/wellknown-dev/wellknown/generator/site"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// Bounds of the fetch of a previous feed for the append-only check.
const (
	maxPreviousFeed      = 64 << 20
	maxPreviousRedirects = 3
)

// checkFetchURL allows https, and plain http only to this machine: a feed
// that guards what gets published must not come over a connection anyone
// on the way can rewrite.
func checkFetchURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme == "https" || (u.Scheme == "http" && site.IsLoopback(u.Hostname())) {
		return nil
	}
	return fmt.Errorf("%s: the previous feed is fetched over https (plain http only from localhost)", s)
}

// checkAppendOnly compares the feed about to be published with the one
// published before (a file, or an http(s) URL of the live feed): every entry
// published before must still be there with the same payload. It returns a
// warning instead when the URL has no feed yet (a first deploy).
func (r *Result) checkAppendOnly(previous string) error {
	data, err := readPrevious(previous)
	if errors.Is(err, errNoPreviousFeed) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("--previous %s: no feed there yet (a first deploy?); nothing to compare with", previous))
		return nil
	}
	if err != nil {
		e := diag.Errorf("", 0, "--previous %s: %v", previous, err)
		var dns *net.DNSError
		if errors.As(err, &dns) {
			e.WithHint("before the first deploy, while the domain does not resolve yet, build without --previous")
		}
		return e
	}
	old, err := agentfeed.Decode(data)
	if err != nil {
		return diag.Errorf("", 0, "--previous %s: %v", previous, err)
	}
	current := make(map[string]agentfeed.Entry, len(r.Entries))
	for _, e := range r.Entries {
		current[e.ID] = e
	}
	var problems []error
	for _, e := range old.Entries {
		now, ok := current[e.ID]
		switch {
		case !ok:
			problems = append(problems, diag.Errorf("", 0, "published entry %s (%s: %s) would disappear", e.ID, e.Type, e.Summary))
		case string(now.Content) != string(e.Content):
			problems = append(problems, diag.Errorf("", 0, "published entry %s (%s: %s) would change its payload", e.ID, e.Type, e.Summary))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	problems[0].(*diag.Error).WithHint("a published entry never changes or disappears: restore the history that produced it (was the branch rewritten or rebased?), or move to a new feed with feed.status = \"migrated\"")
	return errors.Join(problems...)
}

var errNoPreviousFeed = errors.New("no previous feed")

func readPrevious(src string) ([]byte, error) {
	if !strings.HasPrefix(src, "https://") && !strings.HasPrefix(src, "http://") {
		data, err := inputfile.ReadFile("", src, maxPreviousFeed)
		return data, diag.Cause(err) // the message names src already
	}
	if err := checkFetchURL(src); err != nil {
		return nil, err
	}
	client := &http.Client{
		Timeout: 30 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxPreviousRedirects {
				return fmt.Errorf("more than %d redirects", maxPreviousRedirects)
			}
			return checkFetchURL(req.URL.String())
		},
	}
	resp, err := client.Get(src)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, errNoPreviousFeed
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxPreviousFeed+1))
	if err == nil && len(data) > maxPreviousFeed {
		err = fmt.Errorf("larger than %d MiB", maxPreviousFeed>>20)
	}
	return data, err
}
