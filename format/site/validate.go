package site

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/urlrule"
)

var (
	slugPattern     = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	keyIDPattern    = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)
	endpointPattern = regexp.MustCompile(`^[^/#\s]+/[^/#\s]+(#[A-Za-z0-9_.-]+)?$`)
	versionPattern  = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)
	hostnamePattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)
)

// validate checks what site.toml itself must get right. The published
// documents are checked again, field by field, against their formats' rules
// when they are built (package cards); those problems are traced back here
// with Line.
func (c *Config) validate() error {
	var v validator
	c.validateBase(&v)
	c.validateSigning(&v)
	c.validateFeed(&v)
	c.validateServers(&v)
	c.validateAgents(&v)
	c.validateEntity(&v)
	c.validateDeprecations(&v)
	c.validateBreaking(&v)
	c.validateDeploy(&v)
	return errors.Join(v.problems...)
}

type validator struct{ problems []error }

func (v *validator) add(err error) { v.problems = append(v.problems, err) }

func (c *Config) validateBase(v *validator) {
	if c.BaseURL == "" {
		v.add(c.Errorf("base_url", "base_url is required: the https origin the site is published at").
			WithHint(`add base_url = "https://example.com/" at the top of %s`, c.File))
		return
	}
	u, err := ParseBaseURL(c.BaseURL)
	if err != nil {
		v.add(c.Errorf("base_url", "%v", err))
		return
	}
	c.base = u
	if c.Title == "" {
		c.Title = u.Hostname()
	}
	if c.Author == "" {
		c.Author = c.Title
	}
}

// ParseBaseURL checks a site's base URL: an https origin (http only for
// localhost), perhaps with a path, whose host is a host name or an IP
// address (it ends up in did:web, in URNs and in deploy recipes' shell
// commands). The host is lower-cased.
func ParseBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("base_url %q is not an origin URL like https://example.com/", s)
	}
	if !urlrule.Secure(u) {
		return nil, fmt.Errorf("base_url %q must use https (http is allowed only for localhost)", s)
	}
	u.Host = strings.ToLower(u.Host)
	if !hostnamePattern.MatchString(u.Hostname()) && net.ParseIP(u.Hostname()) == nil {
		return nil, fmt.Errorf("base_url %q does not have a valid host name", s)
	}
	if strings.HasSuffix(u.Host, ":") || u.Port() != "" && !validPort(u.Port()) {
		return nil, fmt.Errorf("base_url %q has port %q; a port is a number from 1 to 65535", s, u.Port())
	}
	if u.Scheme == "https" && u.Port() == "443" || u.Scheme == "http" && u.Port() == "80" {
		return nil, fmt.Errorf("base_url %q names its scheme's default port, which would change the site's DID; write it without: %s://%s%s", s, u.Scheme, u.Hostname(), u.EscapedPath())
	}
	if clean := cleanDirPath(u.Path); u.Path != "" && u.Path != clean && u.Path+"/" != clean {
		return nil, fmt.Errorf("base_url %q has a path with empty, '.' or '..' segments; write it as %q", s, clean)
	}
	return u, nil
}

// cleanDirPath is p without empty, '.' or '..' segments, ending in "/".
func cleanDirPath(p string) string {
	return strings.TrimSuffix(path.Clean("/"+p), "/") + "/"
}

// validPort reports whether p is a TCP port number a URL can name.
func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == p
}

func (c *Config) validateSigning(v *validator) {
	ids := map[string]bool{c.Signing.KeyID: true}
	if !keyIDPattern.MatchString(c.Signing.KeyID) {
		v.add(c.Errorf("signing.key_id", "signing.key_id %q may contain only letters, digits, '.', '_' and '-'", c.Signing.KeyID))
	}
	for i, p := range c.Signing.Previous {
		at := fmt.Sprintf("signing.previous.%d", i)
		if !keyIDPattern.MatchString(p.ID) || ids[p.ID] {
			v.add(c.Errorf(at+".id", "signing.previous id %q must be a unique key id (letters, digits, '.', '_', '-')", p.ID))
		}
		ids[p.ID] = true
		if _, err := didweb.ParseMultibaseKey(p.PublicKey); err != nil {
			v.add(c.Errorf(at+".public_key", "signing.previous %q: %v", p.ID, err))
		}
	}
}

func (c *Config) validateFeed(v *validator) {
	switch c.Feed.Status {
	case StatusActive, StatusTerminated:
		if c.Feed.MigratedTo != "" {
			v.add(c.Errorf("feed.migrated_to", "feed.migrated_to is set but feed.status is %q", c.Feed.Status).
				WithHint(`set feed.status = "migrated", or remove migrated_to`))
		}
	case StatusMigrated:
		if !isHTTPS(c.Feed.MigratedTo) {
			v.add(c.Errorf("feed.migrated_to", "feed.status is migrated, so feed.migrated_to must be the https URL of the new feed"))
		}
	default:
		v.add(c.Errorf("feed.status", "feed.status %q is not one of active, terminated, migrated", c.Feed.Status))
	}
	if c.Feed.PageSize < 0 {
		v.add(c.Errorf("feed.page_size", "feed.page_size is %d; it is a number of entries, at least 1", c.Feed.PageSize).
			WithHint("leave it out for the default of 1000 entries"))
	}
}

// validateHistoryFrom accepts a date (2006-01-02 or RFC 3339) or a revision;
// a revision is resolved against the repository when history is read.
func (c *Config) validateHistoryFrom(v *validator, at, from string) {
	if from == "" || isDate(from) {
		return
	}
	if strings.HasPrefix(from, "-") || strings.ContainsAny(from, " \t\n:") {
		v.add(c.Errorf(at, "history_from %q is neither a date (2025-01-31) nor a commit", from))
	}
}

// HistoryStart returns the time a history_from date names, and false for a
// revision.
func HistoryStart(from string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339, from); err == nil {
		return t, true
	}
	t, err := time.Parse(time.DateOnly, from)
	return t, err == nil
}

func isDate(s string) bool { _, ok := HistoryStart(s); return ok }

func (c *Config) validateServers(v *validator) {
	c.validateHistoryFrom(v, "history_from", c.HistoryFrom)
	names := map[string]int{}
	slugs := map[string]int{}
	for i, s := range c.Servers {
		at := fmt.Sprintf("servers.%d", i)
		if s.Name == "" {
			v.add(c.Errorf(at, "servers[%d] has no name (set name, or import a server.json that has one)", i))
			continue
		}
		if j, dup := names[s.Name]; dup {
			v.add(c.Errorf(at+".name", "server name %q is already used by servers[%d]", s.Name, j))
		}
		names[s.Name] = i
		c.validateSlug(v, at, s.Slug, slugs, i)
		c.validateVersion(v, at, s)
		c.validateHistoryFrom(v, at+".history_from", s.HistoryFrom)
		for j, g := range s.Exclude {
			if _, err := path.Match(strings.ReplaceAll(g, "**", "*"), ""); err != nil || g == "" {
				v.add(c.Errorf(fmt.Sprintf("%s.exclude.%d", at, j), "exclude glob %q is malformed", g))
			}
		}
		if s.Tools != "" {
			if _, err := path.Match(strings.ReplaceAll(s.Tools, "**", "*"), ""); err != nil {
				v.add(c.Errorf(at+".tools", "tools glob %q is malformed", s.Tools))
			}
			if path.IsAbs(s.Tools) || strings.Contains("/"+s.Tools+"/", "/../") {
				v.add(c.Errorf(at+".tools", "tools glob %q must be relative and stay inside its repository", s.Tools))
			}
		}
	}
}

// checkRepos requires each server's repo to be a directory: a path that is
// not there is a clone not made yet (or made elsewhere), which git would
// only report in its own words. Load checks it, since Parse reads only the
// definition.
func (c *Config) checkRepos() error {
	var v validator
	for i, s := range c.Servers {
		if s.Repo == "" {
			continue
		}
		if info, err := os.Stat(c.Path(s.Repo)); err == nil && info.IsDir() {
			continue
		}
		v.add(c.Errorf(fmt.Sprintf("servers.%d.repo", i), "repo %q is not a directory (it is resolved against the directory of %s)", s.Repo, filepath.Base(c.File)).
			WithHint("repo names a local clone of the tools' repository: clone it there (in CI, check it out next to the site), or correct the path"))
	}
	return errors.Join(v.problems...)
}

// validateVersion rejects a ${VAR} placeholder left in a version, typically
// from a registry server.json whose version is filled at publish time.
func (c *Config) validateVersion(v *validator, at string, s Server) {
	if s.VersionTags != "" {
		if _, err := path.Match(s.VersionTags, ""); err != nil {
			v.add(c.Errorf(at+".version_tags", "version_tags pattern %q is malformed", s.VersionTags))
		}
		return // the version comes from the tags
	}
	if !placeholder.MatchString(s.Version) {
		return
	}
	err := c.Errorf(at+".version", "server %s: version %q is a placeholder", s.Name, s.Version)
	if slices.Contains(s.ImportedFields, "version") {
		err = diag.Errorf(c.Path(s.Import), 0, "server %s: version %q imported from here is a placeholder", s.Name, s.Version)
	}
	v.add(err.WithHint("set version in site.toml, or take versions from release tags: version_tags = \"v*\" (sync also takes --set servers.%s.version=1.2.3; a build cannot record it)", s.Slug))
}

func (c *Config) validateSlug(v *validator, at, slug string, seen map[string]int, i int) {
	if !slugPattern.MatchString(slug) {
		v.add(c.Errorf(at+".slug", "slug %q must be lower-case letters, digits, '.', '_' or '-'", slug).
			WithHint("set slug = \"...\" explicitly"))
		return
	}
	if j, dup := seen[slug]; dup {
		v.add(c.Errorf(at+".slug", "slug %q is already used by entry %d", slug, j).
			WithHint("set a distinct slug = \"...\" on one of them"))
	}
	seen[slug] = i
}

func (c *Config) validateAgents(v *validator) {
	slugs := map[string]int{}
	for i, a := range c.Agents {
		c.validateSlug(v, fmt.Sprintf("agents.%d", i), a.Slug, slugs, i)
	}
}

func (c *Config) validateEntity(v *validator) {
	e := c.Entity
	if e == nil {
		return
	}
	if e.Domain == "" && c.base != nil {
		e.Domain = c.base.Hostname()
	}
	switch e.SchemaVersion {
	case "0.1.0":
		if len(e.Entities) > 0 || len(e.MCPs) == 0 {
			v.add(c.Errorf("entity", "entity schema_version 0.1.0 lists [[entity.mcps]] (at least one) and no [[entity.entities]]"))
		}
	case "0.2.0":
		if len(e.MCPs) > 0 || len(e.Entities) == 0 {
			v.add(c.Errorf("entity", "entity schema_version 0.2.0 lists [[entity.entities]] (at least one, each with its mcps) and no top-level [[entity.mcps]]"))
		}
	default:
		v.add(c.Errorf("entity.schema_version", "entity schema_version %q is not one of 0.1.0, 0.2.0", e.SchemaVersion))
	}
	if c.base != nil && e.Domain != c.base.Hostname() {
		v.add(c.Errorf("entity.domain", "entity domain %q does not match the site's host %q", e.Domain, c.base.Hostname()).
			WithHint("EDP requires the card's domain to equal the domain that serves it"))
	}
	for _, ref := range e.AllMCPs() {
		if ref.MCP.Verification != nil {
			c.validateVerification(v, ref.Key+".verification", ref.MCP.Verification)
		}
	}
}

// validateVerification checks the shape of an attestation's settings; the
// token itself is checked by the build, which reads it.
func (c *Config) validateVerification(v *validator, at string, vf *Verification) {
	if vf.Method != "" && vf.Method != "signed_jwt" {
		v.add(c.Errorf(at+".method", "verification method %q is not signed_jwt, the only one EDP defines", vf.Method))
	}
	switch sources := nonEmptyCount(vf.Signature, vf.SignatureFile, vf.SignatureEnv); {
	case sources == 0:
		v.add(c.Errorf(at, "verification has no token: set signature, signature_file or signature_env").
			WithHint("the provider signs the JWT; see wellknown's docs/edp.md"))
	case sources > 1:
		v.add(c.Errorf(at, "verification sets more than one of signature, signature_file and signature_env"))
	}
	if nonEmptyCount(vf.PublicKeyFile, vf.JWKSURL) > 1 {
		v.add(c.Errorf(at, "verification sets both public_key_file and jwks_url; the provider's key comes from one"))
	}
	for _, f := range []struct{ key, value string }{{"issued_at", vf.IssuedAt}, {"expires_at", vf.ExpiresAt}} {
		if _, err := time.Parse(time.RFC3339, f.value); f.value != "" && err != nil {
			v.add(c.Errorf(at+"."+f.key, "verification %s %q is not an RFC 3339 time like 2026-12-29T00:00:00Z", f.key, f.value))
		}
	}
}

func nonEmptyCount(values ...string) int {
	n := 0
	for _, s := range values {
		if s != "" {
			n++
		}
	}
	return n
}

func (c *Config) validateDeprecations(v *validator) {
	for i, d := range c.Deprecations {
		at := fmt.Sprintf("deprecations.%d", i)
		if d.Endpoint == "" {
			v.add(c.Errorf(at, "deprecations[%d] needs an endpoint (a server name, or <server name>#<tool name>)", i))
		}
		announced, err1 := time.Parse(time.RFC3339, d.AnnouncedAt)
		if err1 != nil {
			v.add(c.Errorf(at+".announced_at", "announced_at %q is not an RFC 3339 time like 2026-05-01T00:00:00Z", d.AnnouncedAt))
		}
		sunset, err2 := time.Parse(time.RFC3339, d.Sunset)
		if err2 != nil {
			v.add(c.Errorf(at+".sunset", "sunset %q is not an RFC 3339 time like 2026-12-31T00:00:00Z", d.Sunset))
		}
		if err1 == nil && err2 == nil && sunset.Before(announced) {
			v.add(c.Errorf(at+".sunset", "sunset %s is before announced_at %s", d.Sunset, d.AnnouncedAt))
		}
	}
}

// validateBreaking checks the form of each acknowledgement; wellknown check
// matches them against the changes.
func (c *Config) validateBreaking(v *validator) {
	for i, b := range c.Breaking {
		at := fmt.Sprintf("breaking.%d", i)
		if !endpointPattern.MatchString(b.Endpoint) {
			v.add(c.Errorf(at+".endpoint", "breaking endpoint %q is not a server name or <server name>#<tool name>", b.Endpoint).
				WithHint(`name the endpoint as the feed does, e.g. endpoint = "com.example/weather#get_forecast"`))
		}
		if b.To != Removed && !versionPattern.MatchString(b.To) {
			v.add(c.Errorf(at+".to", "breaking to %q is neither a version like 2.0.0 nor %q", b.To, Removed))
		}
	}
}

func (c *Config) validateDeploy(v *validator) {
	for i, t := range c.Deploy.Targets {
		switch t {
		case HostGitHubPages, HostNetlify, HostCloudflarePages:
		default:
			v.add(c.Errorf(fmt.Sprintf("deploy.targets.%d", i), "deploy target %q is not one of %s, %s, %s", t, HostGitHubPages, HostNetlify, HostCloudflarePages))
		}
	}
	if c.Deploy.CNAME != "" && !hostnamePattern.MatchString(c.Deploy.CNAME) {
		v.add(c.Errorf("deploy.cname", "deploy.cname %q is not a host name", c.Deploy.CNAME))
	}
	for i, r := range c.Deploy.Redirects {
		at := fmt.Sprintf("deploy.redirects.%d", i)
		if !strings.HasPrefix(r.From, "/") || strings.ContainsAny(r.From, " \t") {
			v.add(c.Errorf(at+".from", "redirect from %q must be a path starting with /", r.From))
		}
		if !(strings.HasPrefix(r.To, "/") || isHTTPURL(r.To)) || strings.ContainsAny(r.To, " \t") {
			v.add(c.Errorf(at+".to", "redirect to %q must be a path starting with / or an http(s) URL", r.To))
		}
		switch r.Status {
		case 200, 301, 302, 303, 307, 308:
		default:
			v.add(c.Errorf(at+".status", "redirect status %d is not one of 200, 301, 302, 303, 307, 308", r.Status))
		}
	}
}

func isHTTPS(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != ""
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}
