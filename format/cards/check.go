package cards

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wellknown-dev/wellknown/internal/english"
)

// Problem is one rule a document breaks. Path locates the value in the
// document ("remotes[0].url"; "" for the document as a whole).
type Problem struct {
	Path string
	Msg  string
}

func (p Problem) Error() string {
	if p.Path == "" {
		return p.Msg
	}
	return p.Path + ": " + p.Msg
}

// doc is a checker over one decoded JSON document. Its methods read a member
// of an object, record a Problem when it breaks a rule, and return the value
// so that callers can check further.
type doc struct{ problems []Problem }

func (d *doc) addf(path, format string, args ...any) {
	d.problems = append(d.problems, Problem{path, fmt.Sprintf(format, args...)})
}

// decode parses data as a JSON object; a document that is not one is a single Problem.
func decode(data []byte) (map[string]any, *doc) {
	d := &doc{}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		d.addf("", "not a JSON object")
		return nil, d
	}
	return m, d
}

func at(path, key string) string {
	if key == "" {
		return path
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// object returns m[key] as an object (nil when absent or not one).
func (d *doc) object(m map[string]any, path, key string, required bool) map[string]any {
	v, ok := m[key]
	if !ok {
		if required {
			d.addf(at(path, key), "is required")
		}
		return nil
	}
	o, isObj := v.(map[string]any)
	if !isObj {
		d.addf(at(path, key), "must be an object")
	}
	return o
}

// array returns m[key] as an array with at least minItems items.
func (d *doc) array(m map[string]any, path, key string, required bool, minItems int) []any {
	v, ok := m[key]
	if !ok {
		if required {
			d.addf(at(path, key), "is required")
		}
		return nil
	}
	a, isArr := v.([]any)
	switch {
	case !isArr:
		d.addf(at(path, key), "must be an array")
	case len(a) < minItems:
		d.addf(at(path, key), "must have at least %s", english.Count(minItems, "item"))
	}
	return a
}

// objects returns the items of m[key], each checked to be an object, with their paths.
func (d *doc) objects(m map[string]any, path, key string, required bool, minItems int) (items []map[string]any, paths []string) {
	for i, v := range d.array(m, path, key, required, minItems) {
		p := index(at(path, key), i)
		o, ok := v.(map[string]any)
		if !ok {
			d.addf(p, "must be an object")
			continue
		}
		items, paths = append(items, o), append(paths, p)
	}
	return items, paths
}

// str returns m[key] as a string whose length in characters is within [min, max] (max 0: unbounded).
func (d *doc) str(m map[string]any, path, key string, required bool, min, max int) (string, bool) {
	v, ok := m[key]
	if !ok {
		if required {
			d.addf(at(path, key), "is required")
		}
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		d.addf(at(path, key), "must be a string")
		return "", false
	}
	n := utf8.RuneCountInString(s)
	switch {
	case n < min:
		d.addf(at(path, key), "must be at least %s (has %d)", english.Count(min, "character"), n)
	case max > 0 && n > max:
		d.addf(at(path, key), "must be at most %s (has %d)", english.Count(max, "character"), n)
	}
	return s, true
}

// strings returns m[key] as an array of strings.
func (d *doc) strings(m map[string]any, path, key string, required bool, minItems int) []string {
	var out []string
	for i, v := range d.array(m, path, key, required, minItems) {
		s, ok := v.(string)
		if !ok {
			d.addf(index(at(path, key), i), "must be a string")
			continue
		}
		out = append(out, s)
	}
	return out
}

func (d *doc) boolean(m map[string]any, path, key string) {
	if v, ok := m[key]; ok {
		if _, isBool := v.(bool); !isBool {
			d.addf(at(path, key), "must be true or false")
		}
	}
}

// matches checks a present string member against re; what describes the form.
func (d *doc) matches(m map[string]any, path, key string, required bool, re *regexp.Regexp, what string) string {
	s, ok := d.str(m, path, key, required, 0, 0)
	if ok && !re.MatchString(s) {
		d.addf(at(path, key), "%q must be %s", s, what)
	}
	return s
}

// oneOf checks a present string member against a list of values.
func (d *doc) oneOf(m map[string]any, path, key string, required bool, values ...string) {
	s, ok := d.str(m, path, key, required, 0, 0)
	if ok && !slices.Contains(values, s) {
		d.addf(at(path, key), "%q must be one of %s", s, strings.Join(values, ", "))
	}
}

// time checks a present member is an RFC 3339 time.
func (d *doc) time(m map[string]any, path, key string) {
	if s, ok := d.str(m, path, key, false, 0, 0); ok {
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			d.addf(at(path, key), "%q must be an RFC 3339 time", s)
		}
	}
}

// url checks a present member is an absolute URL with one of schemes.
func (d *doc) url(m map[string]any, path, key string, required bool, schemes ...string) string {
	s, ok := d.str(m, path, key, required, 0, 0)
	if !ok {
		return ""
	}
	if !isURL(s, schemes...) {
		d.addf(at(path, key), "%q must be an absolute %s URL", s, strings.Join(schemes, " or "))
	}
	return s
}

// closed reports members outside allowed (for formats with additionalProperties: false).
func (d *doc) closed(m map[string]any, path string, allowed ...string) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(allowed, k) {
			d.addf(at(path, k), "is not a member of this format")
		}
	}
}

func isURL(s string, schemes ...string) bool {
	u, err := url.Parse(s)
	if err != nil || !slices.Contains(schemes, u.Scheme) {
		return false
	}
	return u.Scheme == "data" || u.Host != ""
}
