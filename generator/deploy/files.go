package deploy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/diag"
	"github.com/wellknown-dev/wellknown/generator/site"
	"github.com/wellknown-dev/wellknown/internal/english"
)

// Cloudflare Pages limits (its documentation, "Limits"): more is rejected or
// silently ignored at deploy time, so a build that exceeds them fails.
const (
	cloudflareMaxHeaderRules  = 100
	cloudflareMaxHeaderLine   = 2000
	cloudflareMaxRedirects    = 2100
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
func AddFiles(b *bundle.Bundle, cfg *site.Config) (warnings []string, err error) {
	rules := Rules(b, strings.TrimSuffix(cfg.Base().Path, "/"))
	headers := RenderHeaders(rules)
	redirects := RenderRedirects(cfg.Deploy.Redirects)
	if cfg.Targets(site.HostCloudflarePages) {
		if err := checkCloudflare(rules, headers, cfg.Deploy.Redirects, redirects); err != nil {
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

func checkCloudflare(rules []Rule, headers []byte, rs []site.Redirect, redirects []byte) error {
	var problems []error
	if len(rules) > cloudflareMaxHeaderRules {
		problems = append(problems, diag.Errorf("", 0, "_headers has %d rules; Cloudflare Pages applies at most %d", len(rules), cloudflareMaxHeaderRules).
			WithHint("each document outside /.well-known/ (a Server Card under /mcp/, an Agent Card under /a2a/, a card at a remote's path) needs a rule of its own: publish fewer servers and agents from this site, or deploy it to Netlify, which has no such limit"))
	}
	if n := longestLine(headers); n > cloudflareMaxHeaderLine {
		problems = append(problems, fmt.Errorf("_headers has a %d-character line; Cloudflare Pages allows %d", n, cloudflareMaxHeaderLine))
	}
	if len(rs) > cloudflareMaxRedirects {
		problems = append(problems, fmt.Errorf("_redirects has %d rules; Cloudflare Pages allows %d", len(rs), cloudflareMaxRedirects))
	}
	if n := longestLine(redirects); n > cloudflareMaxRedirectLine {
		problems = append(problems, fmt.Errorf("_redirects has a %d-character rule; Cloudflare Pages allows %d", n, cloudflareMaxRedirectLine))
	}
	for _, r := range rs {
		if r.Status == 200 && !strings.HasPrefix(r.To, "/") {
			problems = append(problems, fmt.Errorf("redirect %s → %s: Cloudflare Pages proxies (status 200) only to relative URLs", r.From, r.To))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("deploy target cloudflare-pages: %w", errors.Join(problems...))
	}
	return nil
}

func longestLine(b []byte) int {
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		n = max(n, len(l))
	}
	return n
}

func hostWarnings(b *bundle.Bundle, cfg *site.Config) []string {
	var warnings []string
	if p := strings.Trim(cfg.Base().Path, "/"); p != "" {
		warnings = append(warnings, fmt.Sprintf("base_url has a path (/%s/): /.well-known/ documents are only found at an origin's root, so clients will not discover them there; publish at a domain root (a custom domain or a user/organisation Pages site)", p))
	}
	if cfg.Targets(site.HostGitHubPages) {
		if w := githubPagesTypes(b); w != "" {
			warnings = append(warnings, w)
		}
		if n := len(cfg.Deploy.Redirects); n > 0 && !writesHeaderFiles(cfg) {
			warnings = append(warnings, fmt.Sprintf("GitHub Pages cannot redirect, so deploy.redirects (%s) has no effect there (Netlify and Cloudflare Pages apply it from _redirects)", english.Count(n, "rule")))
		}
	}
	if writesHeaderFiles(cfg) {
		warnings = append(warnings, redirectWarnings(b, cfg)...)
	}
	if cfg.Deploy.CNAME != "" && cfg.Deploy.CNAME != cfg.Base().Hostname() {
		warnings = append(warnings, fmt.Sprintf("deploy.cname %q differs from base_url's host %q", cfg.Deploy.CNAME, cfg.Base().Hostname()))
	}
	return warnings
}

// githubPagesTypes is the one warning about the files GitHub Pages, which
// cannot set headers, serves with the type of their extension instead of
// their own, or "" when there are none.
func githubPagesTypes(b *bundle.Bundle) string {
	var wrong []string
	for _, f := range b.Files() {
		host := HostDefaultType(f.Path)
		if mediaType(host) != mediaType(f.ContentType) {
			wrong = append(wrong, fmt.Sprintf("%s as %s (not %s)", f.Path, mediaType(host), mediaType(f.ContentType)))
		}
	}
	if len(wrong) == 0 {
		return ""
	}
	n := len(wrong)
	if n > githubPagesListed {
		wrong = append(wrong[:githubPagesListed], fmt.Sprintf("and %d more", n-githubPagesListed))
	}
	return fmt.Sprintf("GitHub Pages cannot set headers, so it serves %s with a generic type: %s; "+
		"most clients accept that, but one that checks the type (a reader that asks for application/mcp-server-card+json, say) "+
		"rejects the document; Netlify and Cloudflare Pages serve the registered types from _headers",
		english.Count(n, "file"), strings.Join(wrong, ", "))
}

// mediaType is a content type without its parameters.
func mediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.TrimSpace(t)
}
