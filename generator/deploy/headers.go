// Package deploy decides what HTTP headers every file of a site is served
// with, and renders the files static hosts read: _headers and _redirects
// (Netlify, Cloudflare Pages), .nojekyll (GitHub Pages), CNAME. It also warns
// about what a chosen host cannot do.
//
// The header table is a list of rules, each a path pattern (an exact path, or
// a prefix ending in "/*") with headers. A file gets the headers of every rule
// that matches it, as on Netlify and Cloudflare. Rules are built so that no
// two rules matching one file set the same header: hosts join repeated values
// with commas, which would corrupt Cache-Control or Content-Type. The dev
// server serves each file with exactly the headers _headers gives it.
package deploy

import (
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/wellknown-dev/wellknown/generator/bundle"
)

// Rule is one entry of the header table.
type Rule struct {
	Pattern string // "/exact/path" or "/prefix/*"
	Header  http.Header
}

// Matches reports whether the rule applies to a site path.
func (r Rule) Matches(p string) bool {
	if prefix, ok := strings.CutSuffix(r.Pattern, "*"); ok {
		return strings.HasPrefix(p, prefix)
	}
	return p == r.Pattern
}

// Cache lifetimes: discovery documents change rarely; the feed and the DID
// document are polled and must propagate a new entry or key quickly; the
// feed's archives and the archived schemas never change once published, so
// a cache may keep them for a year without asking again.
const (
	CacheDocument   = "public, max-age=3600"
	CacheShortLived = "public, max-age=300"
	CacheImmutable  = "public, max-age=31536000, immutable"
)

// shortLived are the files readers poll.
var shortLived = map[string]bool{
	"/.well-known/agent-feed.xml": true,
	"/.well-known/did.json":       true,
	"/did.json":                   true,
}

// CacheFor is the Cache-Control a document at p is served with.
func CacheFor(p string) string {
	switch {
	case shortLived[p]:
		return CacheShortLived
	case immutable(p):
		return CacheImmutable
	}
	return CacheDocument
}

// The prefixes of what never changes once published: the feed's archive
// documents and the schema archive.
const (
	feedArchives  = "/.well-known/agent-feed/"
	schemaArchive = "/.well-known/mcp/schemas/"
)

func immutable(p string) bool {
	return strings.HasPrefix(p, feedArchives) || strings.HasPrefix(p, schemaArchive)
}

// corsHeaders are sent with every machine-readable document so browser-based
// clients can read them and revalidate with ETags. OPTIONS is not among the
// methods: Netlify and Cloudflare Pages answer a preflight with 405 whatever
// _headers says, so a browser's preflighted request fails there.
func corsHeaders() http.Header {
	return http.Header{
		"Access-Control-Allow-Origin":   {"*"},
		"Access-Control-Allow-Methods":  {"GET, HEAD"},
		"Access-Control-Allow-Headers":  {"Accept, Content-Type, If-None-Match"},
		"Access-Control-Expose-Headers": {"ETag"},
	}
}

// siteHeaders are sent with every file: the AI Catalog link relation lets a
// client that lands on any page find the catalog. basePath is the path of
// base_url without its final slash ("" at an origin's root).
func siteHeaders(basePath string) http.Header {
	return http.Header{
		"Link":                   {`<` + basePath + `/.well-known/ai-catalog.json>; rel="ai-catalog"`},
		"X-Content-Type-Options": {"nosniff"},
	}
}

// Rules returns the header table for a bundle published at basePath (see
// siteHeaders): one rule for the whole site,
// one for everything under /.well-known/ (all documents), one each for the
// feed's archives and the schema archive, and exact rules for the documents
// that need their own Content-Type or Cache-Control or live outside
// /.well-known/.
func Rules(b *bundle.Bundle, basePath string) []Rule {
	rules := []Rule{{Pattern: "/*", Header: siteHeaders(basePath)}}
	wellKnown := Rule{Pattern: "/.well-known/*", Header: corsHeaders()}
	archives := []Rule{
		{Pattern: feedArchives + "*", Header: http.Header{"Cache-Control": {CacheImmutable}}},
		{Pattern: schemaArchive + "*", Header: http.Header{"Cache-Control": {CacheImmutable}}},
	}
	hasArchive := make([]bool, len(archives))
	var exact []Rule
	var hasWellKnown bool
	for f := range b.All() {
		inWellKnown := wellKnown.Matches(f.Path)
		hasWellKnown = hasWellKnown || inWellKnown
		h := http.Header{}
		if ct := f.ContentType; ct != HostDefaultType(f.Path) {
			h.Set("Content-Type", ct)
		}
		if f.IsDocument() {
			if !inWellKnown {
				for k, v := range corsHeaders() {
					h[k] = v
				}
			}
			if immutable(f.Path) {
				for i, a := range archives {
					hasArchive[i] = hasArchive[i] || a.Matches(f.Path)
				}
			} else {
				h.Set("Cache-Control", CacheFor(f.Path))
			}
		}
		if len(h) > 0 {
			exact = append(exact, Rule{Pattern: f.Path, Header: h})
		}
	}
	if hasWellKnown {
		rules = append(rules, wellKnown)
	}
	for i, a := range archives {
		if hasArchive[i] {
			rules = append(rules, a)
		}
	}
	return append(rules, exact...)
}

// Apply sets every file's Header from the rules, plus its Content-Type.
// A file is matched against the prefix rules and the exact rules of its
// own path only, since a table has an exact rule for about every document;
// no two rules matching a file set one header (see the package's doc), so
// the order they are merged in does not matter. Files that no exact rule
// names and that match the same prefix rules with the same Content-Type
// share one Header: a long history's archived versions and feed archives
// would otherwise cost a map each.
func Apply(b *bundle.Bundle, rules []Rule) {
	var prefixes []Rule
	exact := map[string][]Rule{}
	for _, r := range rules {
		if strings.HasSuffix(r.Pattern, "*") {
			prefixes = append(prefixes, r)
		} else {
			exact[r.Pattern] = append(exact[r.Pattern], r)
		}
	}
	shared := map[string]http.Header{} // by the prefix rules matched and the Content-Type
	b.SetHeaders(func(f *bundle.File) http.Header {
		if own := exact[f.Path]; len(own) > 0 {
			h := addHeaders(HeaderFor(prefixes, f.Path), own, f.Path)
			h.Set("Content-Type", f.ContentType)
			return h
		}
		key := f.ContentType
		for i, r := range prefixes {
			if r.Matches(f.Path) {
				key += "\x00" + strconv.Itoa(i)
			}
		}
		if shared[key] == nil {
			shared[key] = HeaderFor(prefixes, f.Path)
			shared[key].Set("Content-Type", f.ContentType)
		}
		return shared[key]
	})
}

// HeaderFor merges the headers of every rule matching p.
func HeaderFor(rules []Rule, p string) http.Header {
	return addHeaders(http.Header{}, rules, p)
}

// addHeaders adds to h the headers of every rule matching p.
func addHeaders(h http.Header, rules []Rule, p string) http.Header {
	for _, r := range rules {
		if !r.Matches(p) {
			continue
		}
		for k, v := range r.Header {
			h[k] = append(h[k], v...)
		}
	}
	return h
}

// hostTypes are the content types static hosts send by file extension (as
// in mime-db, which GitHub Pages uses); a file whose type differs needs a
// Content-Type rule, and on GitHub Pages, which can't set headers, is served
// with the host's type.
var hostTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".json":  "application/json",
	".xml":   "application/xml",
	".xsl":   "application/xslt+xml",
	".css":   "text/css; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".txt":   "text/plain; charset=utf-8",
	".woff2": "font/woff2",
}

// HostDefaultType is the content type a static host sends for p by its
// extension; application/octet-stream for a name without a known extension.
func HostDefaultType(p string) string {
	if t, ok := hostTypes[path.Ext(p)]; ok {
		return t
	}
	return "application/octet-stream"
}

// RenderHeaders writes the rules in the _headers syntax Netlify and
// Cloudflare Pages share.
func RenderHeaders(rules []Rule) []byte {
	var b strings.Builder
	b.WriteString("# Written by wellknown build. Response headers for Netlify and Cloudflare Pages.\n")
	for _, r := range rules {
		b.WriteString(r.Pattern + "\n")
		keys := make([]string, 0, len(r.Header))
		for k := range r.Header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString("  " + k + ": " + strings.Join(r.Header[k], ", ") + "\n")
		}
	}
	return []byte(b.String())
}
