package verify

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/generator/cards"
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
	// check returns the problems of a document served by host; nil for none.
	check func(data []byte, host string) []cards.Problem
}

var (
	jsonTypes = []string{"application/json"}

	kindDID  = kind{name: "DID document", types: []string{"application/did+json", "application/did+ld+json", "application/json"}, polled: true}
	kindFeed = kind{name: "agent feed", types: []string{"application/atom+xml"}, generic: []string{"application/xml", "text/xml"}, polled: true}
	// kindFeedArchive is an archive document of the feed, served as the
	// feed is.
	kindFeedArchive = kind{name: "agent feed archive", types: kindFeed.types, generic: kindFeed.generic, polled: true}
	// kindWellKnownAgentCard is /.well-known/agent-card.json, where the
	// snapshot lives unless an A2A Agent Card does.
	kindWellKnownAgentCard = kind{name: "agent card", types: []string{"application/json", cards.TypeAgentCard}, check: agentCardUnlessSnapshot}
	kindSnapshot           = kind{name: "snapshot", types: jsonTypes}
	kindSchema             = kind{name: "archived tool schema", types: jsonTypes}
	kindCatalog            = kind{name: "AI Catalog", types: []string{cards.TypeAICatalog}, generic: jsonTypes, check: ignoreHost(cards.CheckAICatalog)}
	kindServerCard         = kind{name: "Server Card", types: []string{cards.TypeServerCard}, generic: jsonTypes, check: ignoreHost(cards.CheckServerCard)}
	kindAgentCard          = kind{name: "A2A Agent Card", types: []string{"application/json", cards.TypeAgentCard}, check: ignoreHost(cards.CheckAgentCard)}
	kindServerList         = kind{name: "server list", types: jsonTypes, check: ignoreHost(cards.CheckServerList)}
	kindAICards            = kind{name: "AI Card discovery document", types: jsonTypes, check: ignoreHost(cards.CheckAICards)}
	kindEntityCard         = kind{name: "EDP entity card", types: jsonTypes, check: cards.CheckEntityCard}
	kindOther              = kind{name: "document", types: jsonTypes}
)

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

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}
