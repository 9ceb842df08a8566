package site

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/internal/diag"
)

// ServerProblem locates a problem found in server i's published card at
// jsonPath ("remotes[0].url"): at the import file when that field was
// imported, else at the site.toml key the field came from.
func (c *Config) ServerProblem(i int, jsonPath, msg string) *diag.Error {
	s := c.Servers[i]
	top, _, _ := strings.Cut(jsonPath, ".")
	top, _, _ = strings.Cut(top, "[")
	if slices.Contains(s.ImportedFields, top) {
		return diag.Errorf(c.Path(s.Import), 0, "server %s: %s: %s", s.Name, jsonPath, msg)
	}
	key := fmt.Sprintf("servers.%d.%s", i, tomlPath(reflect.TypeOf(s.Identity), jsonPath))
	return c.Errorf(key, "server %s: %s: %s", s.Name, jsonPath, msg)
}

// AgentProblem locates a problem found in agent i's published card.
func (c *Config) AgentProblem(i int, jsonPath, msg string) *diag.Error {
	key := fmt.Sprintf("agents.%d.%s", i, tomlPath(reflect.TypeOf(Agent{}), jsonPath))
	return c.Errorf(key, "agent %s: %s: %s", c.Agents[i].Name, jsonPath, msg)
}

// EntityProblem locates a problem found in the published entity card.
func (c *Config) EntityProblem(jsonPath, msg string) *diag.Error {
	return c.Errorf("entity."+tomlPath(reflect.TypeOf(Entity{}), jsonPath), "entity card: %s: %s", jsonPath, msg)
}

// tomlPath translates a JSON path of a document built from a value of type t
// ("remotes[0].supportedProtocolVersions") to the dotted key path of the
// site.toml value it came from ("remotes.0.supported_protocol_versions").
// Segments it cannot translate are kept as they are.
func tomlPath(t reflect.Type, jsonPath string) string {
	var out []string
	for _, seg := range strings.Split(strings.NewReplacer("[", ".", "]", "").Replace(jsonPath), ".") {
		if seg == "" {
			continue
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			if f, ok := fieldByJSONName(t, seg); ok {
				seg, t = strings.Split(f.Tag.Get("toml"), ",")[0], f.Type
			}
		}
		out = append(out, seg)
	}
	return strings.Join(out, ".")
}

// fieldByJSONName finds the field serialised as name, looking into embedded structs.
func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			if inner, ok := fieldByJSONName(f.Type, name); ok {
				return inner, true
			}
			continue
		}
		if jsonName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
