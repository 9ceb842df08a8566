package site

import (
	"encoding/json"
	"fmt"

	"github.com/BurntSushi/toml"
)

// ParseHistorical decodes a past version of a site definition, as found in
// git history, for the fields the change feed is derived from: servers
// (identity, slug, tools, repo, import) and deprecations. It is lenient:
// unknown keys are ignored and nothing is validated, because history cannot
// be corrected. readImport returns the content of an import file at the
// same point of history. A definition that is not TOML, or whose import is
// missing or not JSON, is an error: without its servers' identities it
// cannot say what the site published.
func ParseHistorical(src []byte, readImport func(path string) ([]byte, bool)) (*Config, error) {
	if line, err := prescan(string(src)); err != nil && line > 0 {
		return nil, fmt.Errorf("line %d: %v", line, err)
	} else if err != nil {
		return nil, err
	}
	c := &Config{lines: newLocator(string(src))}
	if _, err := toml.Decode(string(src), c); err != nil {
		return nil, err
	}
	for i := range c.Servers {
		s := &c.Servers[i]
		if s.Import == "" {
			continue
		}
		data, ok := readImport(s.Import)
		if !ok {
			return nil, fmt.Errorf("server %d imports %s, which is not in the repository at that commit", i+1, s.Import)
		}
		var imported Identity
		if err := json.Unmarshal(data, &imported); err != nil {
			return nil, fmt.Errorf("server %d imports %s: %v", i+1, s.Import, err)
		}
		fillUnset(&s.Identity, imported)
	}
	for i := range c.Servers {
		c.Servers[i].Slug = c.Servers[i].slug()
	}
	return c, nil
}
