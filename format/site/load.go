package site

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
	"github.com/wellknown-dev/wellknown/internal/suggest"
)

// Defaults for settings site.toml may leave out.
const (
	DefaultKeyEnv       = "WELLKNOWN_SIGNING_KEY"
	DefaultKeyID        = "key-1"
	DefaultContentDir   = "content"
	DefaultTemplatesDir = "templates"
	// DefaultFeedPageSize keeps the subscription document under about
	// 1 MB: an entry is about 800 bytes.
	DefaultFeedPageSize = 1000
)

// Load reads, decodes, completes and validates the site definition at path,
// and checks that the repositories it names are there.
// overrides are "key=value" settings applied after decoding (see Override).
// The error lists every problem found, each a *diag.Error.
func Load(path string, overrides []string) (*Config, error) {
	return LoadWithKey(path, overrides, "")
}

// LoadWithKey is Load for a build whose signing key is the file keyFile
// (--key-file; "" for the one site.toml names), which no file the
// definition imports may be, by any name.
func LoadWithKey(path string, overrides []string, keyFile string) (*Config, error) {
	src, err := inputfile.ReadFile("", path, MaxFileSize)
	if err != nil {
		return nil, diag.Errorf(path, 0, "cannot read the site definition: %v", diag.Cause(err)).
			WithHint("pass --config FILE, or create a site with: wellknown init")
	}
	c, err := parseWithKey(path, string(src), overrides, keyFile)
	if err != nil {
		return nil, err
	}
	if err := c.checkRepos(); err != nil {
		return nil, err
	}
	return c, nil
}

// Parse is Load for a definition already in memory; path names it in errors
// and anchors its relative paths.
func Parse(path, src string, overrides []string) (*Config, error) {
	return parseWithKey(path, src, overrides, "")
}

func parseWithKey(path, src string, overrides []string, keyFile string) (*Config, error) {
	c := &Config{File: path, Dir: filepath.Dir(path), lines: newLocator(src), src: src, overrides: overrides}
	root, err := inputfile.RepoRoot(c.Dir)
	if err != nil {
		return nil, diag.Errorf(path, 0, "cannot find the site's directory: %v", err)
	}
	c.Root = root
	if line, err := prescan(src); err != nil {
		return nil, diag.Errorf(path, line, "%v", err)
	}
	md, err := toml.Decode(src, c)
	if err != nil {
		return nil, decodeError(path, err)
	}
	if err := c.unknownKeys(md); err != nil {
		return nil, err
	}
	if keyFile == "" {
		keyFile = c.Path(c.Signing.KeyFile)
	}
	if err := c.importServers(didweb.KeyFileSecret(keyFile)); err != nil {
		return nil, err
	}
	c.setDefaults()
	var problems []error
	for _, o := range overrides {
		if err := c.override(o); err != nil {
			problems = append(problems, err)
		}
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// decodeError turns the TOML decoder's error into a one-line diag.Error
// that names the key, when the decoder knows it, and the line.
func decodeError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return diag.Errorf(path, pe.Position.Line, "%s", pe.Message)
	}
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	var line int
	if n, _ := fmt.Sscanf(msg, "line %d", &line); n == 1 {
		msg = strings.TrimPrefix(msg, fmt.Sprintf("line %d ", line))
	}
	key, rest, ok := cutLastKey(msg)
	if !ok {
		return diag.Errorf(path, line, "%s", msg)
	}
	return diag.Errorf(path, line, "%s", typeError(key, rest))
}

// unknownKeys reports every key the Config has no field for, at its line.
func (c *Config) unknownKeys(md toml.MetaData) error {
	var problems []error
	var reported []string
	from := 0
	for _, k := range md.Undecoded() {
		key := k.String()
		if underAny(key, reported) {
			continue
		}
		reported = append(reported, key)
		var line int
		line, from = c.lines.lineOfUnindexed(key, from)
		d := diag.Errorf(c.File, line, "unknown key %q", key)
		if near, ok := suggest.Closest(last(key), knownKeys(parent(key))); ok {
			d.WithHint("did you mean %q?", join(parent(key), near))
		} else {
			d.WithHint("keys are snake_case; every key is listed in wellknown's docs/site-toml.md")
		}
		problems = append(problems, d)
	}
	return errors.Join(problems...)
}

func underAny(key string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(key, p+".") {
			return true
		}
	}
	return false
}

// Override applies one "key=value" setting from the command line. Supported
// keys: base_url, title, feed.status, and servers.<slug>.version (for a
// version a CI job knows only at build time).
func (c *Config) override(kv string) error {
	key, value, ok := strings.Cut(kv, "=")
	if !ok {
		return diag.Errorf("", 0, "--set %q: want key=value", kv)
	}
	field, path := c.overridable(key)
	if field == nil {
		return diag.Errorf("", 0, "--set %q: %s", kv, path).
			WithHint("supported: base_url, title, feed.status, servers.<slug>.version")
	}
	*field = value
	if c.set == nil {
		c.set = map[string]string{}
	}
	c.set[path] = kv
	return nil
}

// overridable returns the field --set key names and its key path in
// site.toml, or nil and why it cannot be set.
func (c *Config) overridable(key string) (*string, string) {
	switch key {
	case "base_url":
		return &c.BaseURL, key
	case "title":
		return &c.Title, key
	case "feed.status":
		return &c.Feed.Status, key
	}
	rest, ok := strings.CutPrefix(key, "servers.")
	if !ok {
		return nil, fmt.Sprintf("unsupported key %q", key)
	}
	slug, field, _ := strings.Cut(rest, ".")
	if field != "version" {
		return nil, "only servers.<slug>.version can be set for a server"
	}
	for i := range c.Servers {
		if s := &c.Servers[i]; s.slug() == slug {
			// A version set here is no longer the imported one.
			s.ImportedFields = slices.DeleteFunc(s.ImportedFields, func(f string) bool { return f == "version" })
			return &s.Version, fmt.Sprintf("servers.%d.version", i)
		}
	}
	return nil, fmt.Sprintf("no server with slug %q", slug)
}

func (c *Config) setDefaults() {
	if c.Signing.KeyEnv == "" {
		c.Signing.KeyEnv = DefaultKeyEnv
	}
	if c.Signing.KeyID == "" {
		c.Signing.KeyID = DefaultKeyID
	}
	if c.ContentDir == "" {
		c.ContentDir = DefaultContentDir
	}
	if c.TemplatesDir == "" {
		c.TemplatesDir = DefaultTemplatesDir
	}
	if c.Feed.Status == "" {
		c.Feed.Status = StatusActive
	}
	if c.Feed.PageSize == 0 {
		c.Feed.PageSize = DefaultFeedPageSize
	}
	for i := range c.Servers {
		c.Servers[i].Slug = c.Servers[i].slug()
	}
	for i := range c.Agents {
		if c.Agents[i].Slug == "" {
			c.Agents[i].Slug = Slugify(c.Agents[i].Name)
		}
	}
	for i := range c.Deploy.Redirects {
		if c.Deploy.Redirects[i].Status == 0 {
			c.Deploy.Redirects[i].Status = 301
		}
	}
}

// slug is the explicit slug, or the part of the name after "/".
func (s *Server) slug() string {
	if s.Slug != "" {
		return s.Slug
	}
	_, after, _ := strings.Cut(s.Name, "/")
	return strings.ToLower(after)
}

// Slugify turns a display name into a path segment: lower-case letters,
// digits and single dashes.
func Slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// Path resolves a path from the config against the config's directory.
func (c *Config) Path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, p)
}

// Line returns the line of a dotted key path ("servers.1.description"), or of
// its nearest enclosing key; 0 when unknown.
func (c *Config) Line(path string) int { return c.lines.line(path) }

// Errorf returns a problem located at the key path in site.toml.
// A value given with --set is blamed on the flag instead.
func (c *Config) Errorf(path, format string, args ...any) *diag.Error {
	if kv, ok := c.set[path]; ok {
		return diag.Errorf("", 0, "--set %s: %s", kv, fmt.Sprintf(format, args...))
	}
	return diag.Errorf(c.File, c.Line(path), format, args...)
}
