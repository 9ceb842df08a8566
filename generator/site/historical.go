package site

import (
	"encoding/json"

	"github.com/BurntSushi/toml"
)

// ParseHistorical decodes a past version of a site definition, as found in
// git history, for the fields the change feed is derived from: servers
// (identity, slug, tools, repo, import) and deprecations. It is lenient:
// unknown keys are ignored and nothing is validated, because history cannot
// be corrected. readImport returns the content of an import file at the
// same point of history; an unreadable or invalid import contributes
// nothing. Only a definition that is not TOML at all is an error.
func ParseHistorical(src []byte, readImport func(path string) ([]byte, bool)) (*Config, error) {
	c := &Config{}
	if _, err := toml.Decode(string(src), c); err != nil {
		return nil, err
	}
	for i := range c.Servers {
		s := &c.Servers[i]
		if s.Import == "" {
			continue
		}
		if data, ok := readImport(s.Import); ok {
			var imported Identity
			if json.Unmarshal(data, &imported) == nil {
				fillUnset(&s.Identity, imported)
			}
		}
	}
	for i := range c.Servers {
		c.Servers[i].Slug = c.Servers[i].slug()
	}
	return c, nil
}
