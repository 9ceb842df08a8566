package verify

import (
	"cmp"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/cards"
	"github.com/wellknown-dev/wellknown/generator/deploy"
)

// kind is what a document is: how to name it, how it should be served, and
// which rules it must pass.
type kind struct {
	name string
	// types are the content types it should be served with; generic ones
	// (application/json for a Server Card) are acceptable with a warning.
	types, generic []string
	// polled documents are fetched again and again by readers, so they
	// should be revalidated with an ETag.
	polled bool
	// cache is the Cache-Control the build serves it with; "" for a
	// discovery document's.
	cache string
	// check returns the problems of a document served by host; nil for none.
	check func(data []byte, host string) []cards.Problem
}

var (
	jsonTypes = []string{"application/json"}

	kindDID  = kind{name: "DID document", types: []string{"application/did+json", "application/did+ld+json", "application/json"}, polled: true, cache: deploy.CacheShortLived}
	kindFeed = kind{name: "agent feed", types: []string{"application/atom+xml"}, generic: []string{"application/xml", "text/xml"}, polled: true, cache: deploy.CacheShortLived}
	// kindFeedArchive is an archive document of the feed, served as the
	// feed is but cached for good: it never changes.
	kindFeedArchive = kind{name: "agent feed archive", types: kindFeed.types, generic: kindFeed.generic, polled: true, cache: deploy.CacheImmutable}
	// kindWellKnownAgentCard is /.well-known/agent-card.json, where the
	// snapshot lives unless an A2A Agent Card does.
	kindWellKnownAgentCard = kind{name: "agent card", types: []string{"application/json", cards.TypeAgentCard}, check: agentCardUnlessSnapshot}
	kindSnapshot           = kind{name: "snapshot", types: jsonTypes}
	kindSchema             = kind{name: "archived tool schema", types: jsonTypes, cache: deploy.CacheImmutable}
	kindCatalog            = kind{name: "AI Catalog", types: []string{cards.TypeAICatalog}, generic: jsonTypes, check: ignoreHost(cards.CheckAICatalog)}
	kindServerCard         = kind{name: "Server Card", types: []string{cards.TypeServerCard}, generic: jsonTypes, check: ignoreHost(cards.CheckServerCard)}
	kindAgentCard          = kind{name: "A2A Agent Card", types: []string{"application/json", cards.TypeAgentCard}, check: ignoreHost(cards.CheckAgentCard)}
	kindServerList         = kind{name: "server list", types: jsonTypes, check: ignoreHost(cards.CheckServerList)}
	kindAICards            = kind{name: "AI Card discovery document", types: jsonTypes, check: ignoreHost(cards.CheckAICards)}
	kindEntityCard         = kind{name: "EDP entity card", types: jsonTypes, check: cards.CheckEntityCard}
	kindOther              = kind{name: "document", types: jsonTypes}
)

// lifetimeSlack is how far from the lifetime the build gives a document
// (see package deploy) its max-age may be before verify warns: a host's own
// defaults (GitHub Pages: 600) are close enough.
const lifetimeSlack = 10

func ignoreHost(check func([]byte) []cards.Problem) func([]byte, string) []cards.Problem {
	return func(data []byte, _ string) []cards.Problem { return check(data) }
}

// kindOfCard is the kind of a document a catalog lists with a media type.
func kindOfCard(mediaType string) kind {
	switch mediaType {
	case cards.TypeServerCard:
		return kindServerCard
	case cards.TypeAgentCard:
		return kindAgentCard
	case cards.TypeAICatalog:
		return kindCatalog
	}
	return kindOther
}

// headerLimited reports whether a response comes from a host that cannot
// set response headers, so that its content types, CORS and revalidation are
// the host's, not the publisher's: GitHub Pages.
func headerLimited(h http.Header) bool { return h.Get("Server") == "GitHub.com" }

const limitedHint = "GitHub Pages cannot set response headers; this is expected there, and fixed by a host that can (Netlify, Cloudflare Pages)"

// checkHTTP checks what a live origin sends with a document besides its
// body: content type, CORS, and revalidation with its ETag.
func (c *checker) checkHTTP(u *url.URL, k kind, r reading) {
	h := r.resp.header
	sev, hint := SeverityError, ""
	if headerLimited(h) {
		sev, hint = SeverityWarning, limitedHint
	}
	doc := c.where(u)
	problem := func(code, msg string) {
		c.add(Finding{Severity: sev, Code: code, Document: doc, Message: msg, Hint: hint})
	}
	ct, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	switch {
	case slices.Contains(k.types, ct):
	case slices.Contains(k.generic, ct):
		c.warnf(codeContentType, doc, "served as %s; the %s's own type is %s", ct, k.name, k.types[0])
	default:
		problem(codeContentType, fmt.Sprintf("served as %s, want %s", orNothing(ct), strings.Join(slices.Concat(k.types, k.generic), " or ")))
	}
	if acao := h.Get("Access-Control-Allow-Origin"); acao != "*" {
		problem(codeCORS, fmt.Sprintf("Access-Control-Allow-Origin is %s, want *: browser-based clients cannot read it", orNothing(acao)))
	}
	c.checkCache(doc, k, h.Get("Cache-Control"))
	etag := h.Get("ETag")
	if etag == "" {
		if k.polled {
			c.warnf(codeETag, doc, "no ETag: every poll downloads it again")
		}
		return
	}
	resp, err := r.revalidated, r.revalidErr
	switch {
	case err == errDeadline:
		c.late = append(c.late, doc+" (revalidation)")
	case err != nil:
		problem(codeETag, fmt.Sprintf("revalidating with If-None-Match: %v", err))
	case resp.status != http.StatusNotModified:
		problem(codeETag, fmt.Sprintf("If-None-Match with its ETag %s answered %d, want 304", etag, resp.status))
	}
}

// checkCache warns when a document's Cache-Control is missing, or its
// max-age far from the lifetime the build gives it: far longer keeps a new
// entry, key or card from readers; far shorter has every reader download
// again what has not changed.
func (c *checker) checkCache(doc string, k kind, cacheControl string) {
	want, _ := maxAge(cmp.Or(k.cache, deploy.CacheDocument))
	age, ok := maxAge(cacheControl)
	switch {
	case !ok:
		c.warnf(codeCache, doc, "Cache-Control is %s, with no max-age: caches guess how long to keep it; want max-age=%d", orNothing(cacheControl), want)
	case age > want*lifetimeSlack:
		c.warnf(codeCache, doc, "Cache-Control max-age=%d: a change reaches readers up to %s late; want max-age=%d", age, time.Duration(age)*time.Second, want)
	case age < want/lifetimeSlack:
		c.warnf(codeCache, doc, "Cache-Control max-age=%d: readers download it again after %s; want max-age=%d", age, time.Duration(age)*time.Second, want)
	}
}

// maxAge reads the lifetime a Cache-Control header gives shared caches:
// s-maxage, else max-age; no-store and no-cache are 0.
func maxAge(cacheControl string) (int, bool) {
	age, found := 0, false
	for _, d := range strings.Split(cacheControl, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(name) {
		case "no-store", "no-cache":
			return 0, true
		case "s-maxage":
			if n, err := strconv.Atoi(value); err == nil {
				return n, true
			}
		case "max-age":
			if n, err := strconv.Atoi(value); err == nil {
				age, found = n, true
			}
		}
	}
	return age, found
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}
