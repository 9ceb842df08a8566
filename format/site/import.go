package site

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// placeholder matches a ${VAR}-style template left in a registry server.json
// (registries fill it at publish time; a card must carry the real value).
var placeholder = regexp.MustCompile(`\$\{[^}]*\}`)

// versionLike is what a server version the feed can record looks like:
// 1.2.3, 2025.01, 1.0.0-rc.1 (a leading v allowed).
var versionLike = regexp.MustCompile(`^v?[0-9][0-9A-Za-z.+-]*$`)

// IsVersion reports whether v is a version the feed can record: not a
// placeholder, nor a word such as "latest".
func IsVersion(v string) bool { return versionLike.MatchString(v) }

// importServers fills each server's unset identity fields from its registry
// server.json, none of which may be key (the signing key's file). Fields
// set in site.toml win.
func (c *Config) importServers(key inputfile.Secret) error {
	var problems []error
	for i := range c.Servers {
		if err := c.importServer(i, key); err != nil {
			problems = append(problems, err)
		}
	}
	return errors.Join(problems...)
}

func (c *Config) importServer(i int, key inputfile.Secret) error {
	s := &c.Servers[i]
	if s.Import == "" {
		return nil
	}
	file := c.Path(s.Import)
	// The feed is derived from the import's history, so it must be in the
	// site's repository: judged on the path as written, before any read.
	if abs, err := filepath.Abs(file); err == nil && c.Root != "" && !inputfile.Within(c.Root, abs) {
		return c.Errorf(fmt.Sprintf("servers.%d.import", i), "import %s is outside the site's repository %s: the change feed is derived from the history of what a server imports", s.Import, c.Root).
			WithHint("copy the server.json into the site's repository, or set name, description and version in site.toml instead of importing them")
	}
	data, err := key.ReadFile(c.Root, file, inputfile.MaxSize)
	if err != nil {
		return c.Errorf(fmt.Sprintf("servers.%d.import", i), "cannot read import %s: %v", s.Import, diag.Cause(err))
	}
	var imported Identity
	if err := json.Unmarshal(data, &imported); err != nil {
		return diag.JSONError(file, data, err)
	}
	s.ImportData = data
	s.ImportedFields = fillUnset(&s.Identity, imported)
	return nil
}

// fillUnset copies every field of from into the zero fields of to and
// returns the json names of the fields it copied, in declaration order.
func fillUnset(to *Identity, from Identity) []string {
	var filled []string
	dst, src := reflect.ValueOf(to).Elem(), reflect.ValueOf(from)
	for i := 0; i < dst.NumField(); i++ {
		if !dst.Field(i).IsZero() || src.Field(i).IsZero() {
			continue
		}
		dst.Field(i).Set(src.Field(i))
		filled = append(filled, jsonName(dst.Type().Field(i)))
	}
	return filled
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}
