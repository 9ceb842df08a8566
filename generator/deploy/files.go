package deploy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/english"
)

// Cloudflare Pages limits (its documentation, "Limits"): more is rejected or
// silently ignored at deploy time, so a build that exceeds them fails.
const (
	cloudflareMaxHeaderRules  = 100
	cloudflareMaxHeaderLine   = 2000
	cloudflareMaxStatic       = 2000 // redirects with neither a splat nor a :placeholder
	cloudflareMaxDynamic      = 100  // the others, and every rule after the first of them
	cloudflareMaxRedirectLine = 1000
	deployFileType            = "text/plain; charset=utf-8"
	// githubPagesListed is how many files a GitHub Pages type warning names.
	githubPagesListed = 6
)

type deployFile struct {
	path string
	body []byte
}

// AddFiles adds the deploy files to the bundle (.nojekyll, _headers,
// _redirects, and CNAME when configured), sets every file's headers from the
// header table, and returns warnings about what the configured hosts cannot
// do. A limit a host enforces at deploy time is an error.
func AddFiles(b *bundle.Bundle, cfg *site.Config) (warnings []*diag.Error, err error) {
	rules := Rules(b, strings.TrimSuffix(cfg.Base().Path, "/"))
	headers := RenderHeaders(rules)
	order := orderRedirects(cfg.Deploy.Redirects)
	ordered := make([]site.Redirect, len(order))
	for i, r := range order {
		ordered[i] = cfg.Deploy.Redirects[r]
	}
	redirects := RenderRedirects(ordered)
	if cfg.Targets(site.HostCloudflarePages) {
		if err := checkCloudflare(cfg, rules, headers, order, redirects); err != nil {
			return nil, err
		}
	}
	warnings = hostWarnings(b, cfg)
	var files []deployFile
	// .nojekyll is empty: its presence turns off Jekyll, which would drop
	// dot-directories such as /.well-known/ on branch-published Pages.
	if forHost(cfg, site.HostGitHubPages) {
		files = append(files, deployFile{"/.nojekyll", []byte{}})
	}
	if writesHeaderFiles(cfg) {
		files = append(files, deployFile{"/_headers", headers}, deployFile{"/_redirects", redirects})
	}
	if cfg.Deploy.CNAME != "" {
		files = append(files, deployFile{"/CNAME", []byte(cfg.Deploy.CNAME + "\n")})
	}
	for _, f := range files {
		if err := b.Add(f.path, f.body, deployFileType); err != nil {
			return nil, err
		}
	}
	Apply(b, rules)
	return warnings, nil
}

// forHost reports whether the files only host reads are written: when it is
// a deploy target, or when no target is named (the host is unknown, so every
// host's files are).
func forHost(cfg *site.Config, host string) bool {
	return len(cfg.Deploy.Targets) == 0 || cfg.Targets(host)
}

// writesHeaderFiles reports whether _headers and _redirects are written:
// for Netlify and Cloudflare Pages, the hosts that read them.
func writesHeaderFiles(cfg *site.Config) bool {
	return forHost(cfg, site.HostNetlify) || forHost(cfg, site.HostCloudflarePages)
}

// RenderRedirects writes redirect rules, always with an explicit status
// (the hosts' defaults differ: 301 on Netlify, 302 on Cloudflare).
func RenderRedirects(rs []site.Redirect) []byte {
	var b strings.Builder
	b.WriteString("# Written by wellknown build. Redirects for Netlify and Cloudflare Pages.\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "%s %s %d\n", r.From, r.To, r.Status)
	}
	return []byte(b.String())
}

// orderRedirects returns the order _redirects lists the rules in, as
// indexes into rs: each static rule that no dynamic rule before it matches
// moves above the first dynamic rule, since Cloudflare Pages counts every
// rule after the first dynamic one as dynamic, and allows far fewer of
// those. No request meets another rule than before: the moved rule still
// precedes every rule that matched its path after it, and matches no other
// path. A static rule an earlier dynamic rule shadows stays where it is.
func orderRedirects(rs []site.Redirect) []int {
	var static, rest []int
	for i, r := range rs {
		if !isDynamic(r.From) && !shadowed(rs, rest, r.From) {
			static = append(static, i)
		} else {
			rest = append(rest, i)
		}
	}
	return append(static, rest...)
}

// isDynamic reports whether Cloudflare Pages counts a rule's source as
// dynamic on its own: it holds a splat or a :placeholder.
func isDynamic(from string) bool {
	return strings.Contains(from, "*") || placeholder.MatchString(from)
}

// shadowed reports whether one of the rules at the indexes earlier matches
// the path p.
func shadowed(rs []site.Redirect, earlier []int, p string) bool {
	for _, i := range earlier {
		if _, ok := MatchRedirect(rs[i], p); ok {
			return true
		}
	}
	return false
}

// checkCloudflare holds the deploy files to Cloudflare Pages' limits. Its
// redirects are counted as Cloudflare counts them, in the order written:
// static until the first dynamic rule, dynamic from there on.
func checkCloudflare(cfg *site.Config, rules []Rule, headers []byte, order []int, redirects []byte) error {
	var problems []error
	if len(rules) > cloudflareMaxHeaderRules {
		problems = append(problems, diag.Errorf("", 0, "_headers has %d rules; Cloudflare Pages applies at most %d", len(rules), cloudflareMaxHeaderRules).
			WithHint("each document outside /.well-known/ (a Server Card under /mcp/, an Agent Card under /a2a/, a card at a remote's path) needs a rule of its own: publish fewer servers and agents from this site, or deploy it to Netlify, which has no such limit"))
	}
	if n := longestLine(headers); n > cloudflareMaxHeaderLine {
		problems = append(problems, fmt.Errorf("_headers has a %d-character line; Cloudflare Pages allows %d", n, cloudflareMaxHeaderLine))
	}
	problems = append(problems, redirectLimits(cfg, order)...)
	if n := longestLine(redirects); n > cloudflareMaxRedirectLine {
		problems = append(problems, fmt.Errorf("_redirects has a %d-character rule; Cloudflare Pages allows %d", n, cloudflareMaxRedirectLine))
	}
	for _, r := range cfg.Deploy.Redirects {
		if r.Status == 200 && !strings.HasPrefix(r.To, "/") {
			problems = append(problems, fmt.Errorf("redirect %s → %s: Cloudflare Pages proxies (status 200) only to relative URLs", r.From, r.To))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("deploy target cloudflare-pages: %w", errors.Join(problems...))
	}
	return nil
}

// redirectLimits names the first rule past each of Cloudflare's redirect
// limits: Cloudflare skips that rule and, past the dynamic limit, every
// rule after it.
func redirectLimits(cfg *site.Config, order []int) []error {
	var problems []error
	static, dynamic := 0, 0
	for _, i := range order {
		r, at := cfg.Deploy.Redirects[i], fmt.Sprintf("deploy.redirects.%d.from", i)
		if dynamic == 0 && !isDynamic(r.From) {
			if static++; static == cloudflareMaxStatic+1 {
				problems = append(problems, cfg.Errorf(at, "redirect %s is static redirect %d; Cloudflare Pages allows %d static redirects and skips the rest", r.From, static, cloudflareMaxStatic).
					WithHint("remove redirects, or deploy to Netlify, which has no such limit"))
			}
			continue
		}
		if dynamic++; dynamic == cloudflareMaxDynamic+1 {
			problems = append(problems, cfg.Errorf(at, "redirect %s is dynamic redirect %d (a splat or :placeholder, or any rule after the first such); Cloudflare Pages allows %d and skips it and every rule after it", r.From, dynamic, cloudflareMaxDynamic).
				WithHint("use fewer rules with a splat or :placeholder, or deploy to Netlify, which has no such limit"))
		}
	}
	return problems
}

func longestLine(b []byte) int {
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		n = max(n, len(l))
	}
	return n
}

func hostWarnings(b *bundle.Bundle, cfg *site.Config) []*diag.Error {
	var warnings []*diag.Error
	if p := strings.Trim(cfg.Base().Path, "/"); p != "" {
		warnings = append(warnings, cfg.Errorf("base_url", "base_url has a path (/%s/): /.well-known/ documents are only found at an origin's root, so clients will not discover them there", p).
			WithHint("publish at a domain root (a custom domain or a user/organisation Pages site)"))
	}
	if cfg.Targets(site.HostGitHubPages) {
		if w := githubPagesTypes(b); w != nil {
			warnings = append(warnings, w)
		}
		if n := len(cfg.Deploy.Redirects); n > 0 && !writesHeaderFiles(cfg) {
			warnings = append(warnings, cfg.Errorf("deploy.redirects.0", "GitHub Pages cannot redirect, so deploy.redirects (%s) has no effect there (Netlify and Cloudflare Pages apply it from _redirects)", english.Count(n, "rule")))
		}
	}
	if writesHeaderFiles(cfg) {
		warnings = append(warnings, redirectWarnings(b, cfg)...)
	}
	if cfg.Deploy.CNAME != "" && cfg.Deploy.CNAME != cfg.Base().Hostname() {
		warnings = append(warnings, cfg.Errorf("deploy.cname", "deploy.cname %q differs from base_url's host %q", cfg.Deploy.CNAME, cfg.Base().Hostname()))
	}
	return warnings
}

// githubPagesTypes is the one warning about the files GitHub Pages, which
// cannot set headers, serves with the type of their extension instead of
// their own, or nil when there are none.
func githubPagesTypes(b *bundle.Bundle) *diag.Error {
	var wrong []string
	for f := range b.All() {
		host := HostDefaultType(f.Path)
		if mediaType(host) != mediaType(f.ContentType) {
			wrong = append(wrong, fmt.Sprintf("%s as %s (not %s)", f.Path, mediaType(host), mediaType(f.ContentType)))
		}
	}
	if len(wrong) == 0 {
		return nil
	}
	n := len(wrong)
	if n > githubPagesListed {
		wrong = append(wrong[:githubPagesListed], fmt.Sprintf("and %d more", n-githubPagesListed))
	}
	return diag.Errorf("", 0, "GitHub Pages cannot set headers, so it serves %s with a generic type: %s; "+
		"most clients accept that, but one that checks the type (a reader that asks for application/mcp-server-card+json, say) "+
		"rejects the document", english.Count(n, "file"), strings.Join(wrong, ", ")).
		WithHint("Netlify and Cloudflare Pages serve the registered types from _headers")
}

// mediaType is a content type without its parameters.
func mediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.TrimSpace(t)
}
