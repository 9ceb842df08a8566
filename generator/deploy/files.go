package deploy

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/diag"
	"github.com/wellknown-dev/wellknown/generator/site"
)

// Cloudflare Pages limits (its documentation, "Limits"): more is rejected or
// silently ignored at deploy time, so a build that exceeds them fails.
const (
	cloudflareMaxHeaderRules     = 100
	cloudflareMaxHeaderLine      = 2000
	cloudflareMaxRedirects       = 2100
	cloudflareMaxRedirectLine    = 1000
	deployFileType               = "text/plain; charset=utf-8"
	githubPagesExtensionlessHint = "GitHub Pages serves files without an extension as application/octet-stream"
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
	// .nojekyll is empty: its presence turns off Jekyll, which would drop
	// dot-directories such as /.well-known/ on branch-published Pages.
	files := []deployFile{
		{"/.nojekyll", []byte{}},
		{"/_headers", headers},
		{"/_redirects", redirects},
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
		var bare []string
		for _, f := range b.Files() {
			if path.Ext(f.Path) == "" && f.ContentType != HostDefaultType(f.Path) {
				bare = append(bare, f.Path)
			}
		}
		if len(bare) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s, so these files will have the wrong type there: %s", githubPagesExtensionlessHint, strings.Join(bare, ", ")))
		}
	}
	if cfg.Deploy.CNAME != "" && cfg.Deploy.CNAME != cfg.Base().Hostname() {
		warnings = append(warnings, fmt.Sprintf("deploy.cname %q differs from base_url's host %q", cfg.Deploy.CNAME, cfg.Base().Hostname()))
	}
	return warnings
}
