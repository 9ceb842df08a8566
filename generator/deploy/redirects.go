package deploy

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// placeholder is a ":name" in a rule's target.
var placeholder = regexp.MustCompile(`:[A-Za-z_][A-Za-z0-9_]*`)

// MatchRedirect reports whether a _redirects rule's source matches the path
// p, and returns its target with ":splat" and ":name" placeholders filled
// in, in the syntax Netlify and Cloudflare Pages share: a segment matches
// itself, ":name" matches any one segment, and a final "*" matches the rest
// of the path, possibly nothing. A trailing slash makes no difference.
func MatchRedirect(r site.Redirect, p string) (string, bool) {
	pattern, path := segments(r.From), segments(p)
	values := map[string]string{}
	for i, seg := range pattern {
		if seg == "*" && i == len(pattern)-1 {
			values["splat"] = strings.Join(path[min(i, len(path)):], "/")
			return fill(r.To, values), true
		}
		if i >= len(path) {
			return "", false
		}
		if name, ok := strings.CutPrefix(seg, ":"); ok {
			values[name] = path[i]
		} else if seg != path[i] {
			return "", false
		}
	}
	if len(pattern) != len(path) {
		return "", false
	}
	return fill(r.To, values), true
}

func segments(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// fill replaces the placeholders of target that have a value.
func fill(target string, values map[string]string) string {
	return placeholder.ReplaceAllStringFunc(target, func(m string) string {
		if v, ok := values[m[1:]]; ok {
			return v
		}
		return m
	})
}

// RedirectHost is the host whose handling of _redirects the dev server
// follows where Netlify and Cloudflare Pages differ: the first of them in
// deploy.targets, Netlify when neither is named.
func RedirectHost(cfg *site.Config) string {
	for _, t := range cfg.Deploy.Targets {
		if t == site.HostNetlify || t == site.HostCloudflarePages {
			return t
		}
	}
	return site.HostNetlify
}

// HostName is a host as its users call it ("Cloudflare Pages").
func HostName(host string) string {
	switch host {
	case site.HostNetlify:
		return "Netlify"
	case site.HostCloudflarePages:
		return "Cloudflare Pages"
	case site.HostGitHubPages:
		return "GitHub Pages"
	}
	return host
}

// lookup returns the file a site path names, as a static host finds it:
// the path itself, or a directory's index.html.
func lookup(b *bundle.Bundle, p string) (*bundle.File, bool) {
	if strings.HasSuffix(p, "/") {
		p += "index.html"
	}
	return b.Get(p)
}

// redirectWarnings are the redirect rules the hosts apply differently, or
// differently from what the rule's author likely expects: a source that is
// a file the build writes (Cloudflare Pages redirects it, Netlify serves
// the file), and a 200 rewrite to a document, which the hosts serve with
// the headers of the path asked for, not the document's own.
func redirectWarnings(b *bundle.Bundle, cfg *site.Config) []*diag.Error {
	var warnings []*diag.Error
	serveAs := HostName(RedirectHost(cfg))
	for i, r := range cfg.Deploy.Redirects {
		key := fmt.Sprintf("deploy.redirects.%d", i)
		if !strings.ContainsAny(r.From, ":*") {
			if f, ok := lookup(b, r.From); ok {
				warnings = append(warnings, cfg.Errorf(key, "redirect %s → %s: the build writes %s there, which Cloudflare Pages redirects and Netlify serves; serve does as %s (the first of them in deploy.targets)", r.From, r.To, f.Path, serveAs))
			}
		}
		target, _, _ := strings.Cut(r.To, "?")
		if f, ok := lookup(b, target); ok && r.Status == http.StatusOK && f.IsDocument() {
			warnings = append(warnings, cfg.Errorf(key, "redirect %s → %s (200): the hosts serve %s with the headers of %s, not its own (its Content-Type, CORS and Cache-Control), and so does serve", r.From, r.To, f.Path, r.From).
				WithHint("redirect with a 3xx status to keep them"))
		}
	}
	return warnings
}
