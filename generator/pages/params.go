package pages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/wellknown-dev/wellknown/internal/prettyjson"
)

// Param is one parameter of a tool, or one field nested in it, as a row of
// a table.
type Param struct {
	// Name is the property's own name. A nested field's row follows its
	// parent's, one Depth deeper; its path is not repeated, so that a page
	// grows linearly, not quadratically, with the schema's nesting.
	Name        string
	Depth       int    // 0 for a top-level parameter
	Type        string // "string", "array of string", "string | null", "any"…
	Required    bool
	Description string
	Enum        []string // the allowed values
	Default     string   // "" when there is none
	Notes       []string // constraints: "format date-time", "minimum 1", "deprecated"…
}

// Params lists the properties of an object schema, required ones first,
// each followed by the properties nested in it. A schema that is not an
// object with properties has none.
func Params(schema any) []Param {
	s, _ := schema.(map[string]any)
	return properties(s, 0)
}

func properties(s map[string]any, depth int) []Param {
	props, _ := s["properties"].(map[string]any)
	required := requiredSet(s)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	var out []Param
	for _, name := range names {
		p, _ := props[name].(map[string]any)
		out = append(out, param(name, depth, required[name], p))
		out = append(out, nested(p, depth+1)...)
	}
	return out
}

// nested lists the properties of an object property, or of the objects an
// array property holds.
func nested(p map[string]any, depth int) []Param {
	if items, ok := p["items"].(map[string]any); ok {
		return nested(items, depth)
	}
	return properties(p, depth)
}

func requiredSet(s map[string]any) map[string]bool {
	out := map[string]bool{}
	list, _ := s["required"].([]any)
	for _, r := range list {
		if name, ok := r.(string); ok {
			out[name] = true
		}
	}
	return out
}

func param(name string, depth int, required bool, s map[string]any) Param {
	p := Param{Name: name, Depth: depth, Type: typeName(s), Required: required, Notes: notes(s)}
	p.Description, _ = s["description"].(string)
	if enum, ok := s["enum"].([]any); ok {
		for _, v := range enum {
			p.Enum = append(p.Enum, value(v))
		}
	}
	if d, ok := s["default"]; ok {
		p.Default = value(d)
	}
	return p
}

// typeName describes the values a schema admits.
func typeName(s map[string]any) string {
	var names []string
	switch t := s["type"].(type) {
	case string:
		names = []string{t}
	case []any:
		for _, v := range t {
			if n, ok := v.(string); ok {
				names = append(names, n)
			}
		}
	}
	for i, n := range names {
		if n == "array" {
			if items, ok := s["items"].(map[string]any); ok && len(items) > 0 {
				names[i] = "array of " + typeName(items)
			}
		}
	}
	if s["nullable"] == true && !slices.Contains(names, "null") {
		names = append(names, "null")
	}
	if len(names) > 0 {
		return strings.Join(names, " | ")
	}
	return untypedName(s)
}

// untypedName describes a schema without "type".
func untypedName(s map[string]any) string {
	if ref, ok := s["$ref"].(string); ok {
		return ref[strings.LastIndex(ref, "/")+1:]
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[key].([]any); ok {
			var names []string
			for _, a := range alts {
				m, _ := a.(map[string]any)
				names = append(names, typeName(m))
			}
			return strings.Join(names, " | ")
		}
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	return "any"
}

// constraints are the keywords shown as notes, in this order, with how to
// say them, and how to say a count of one.
var constraints = []struct{ key, format, one string }{
	{"const", "always %s", ""},
	{"format", "format %s", ""},
	{"pattern", "pattern %s", ""},
	{"minimum", "minimum %s", ""},
	{"exclusiveMinimum", "greater than %s", ""},
	{"maximum", "maximum %s", ""},
	{"exclusiveMaximum", "less than %s", ""},
	{"multipleOf", "multiple of %s", ""},
	{"minLength", "at least %s characters", "at least 1 character"},
	{"maxLength", "at most %s characters", "at most 1 character"},
	{"minItems", "at least %s items", "at least 1 item"},
	{"maxItems", "at most %s items", "at most 1 item"},
	{"minProperties", "at least %s properties", "at least 1 property"},
	{"maxProperties", "at most %s properties", "at most 1 property"},
}

func notes(s map[string]any) []string {
	var out []string
	for _, c := range constraints {
		v, ok := s[c.key]
		switch {
		case !ok:
		case v == 1.0 && c.one != "":
			out = append(out, c.one)
		default:
			out = append(out, fmt.Sprintf(c.format, value(v)))
		}
	}
	if s["uniqueItems"] == true {
		out = append(out, "unique items")
	}
	if s["additionalProperties"] == false {
		out = append(out, "no other properties")
	}
	if s["deprecated"] == true {
		out = append(out, "deprecated")
	}
	return out
}

// value shows a JSON value: a string as itself (the empty string as ""),
// anything else as JSON.
func value(v any) string {
	if s, ok := v.(string); ok && s != "" {
		return s
	}
	return compactJSON(v)
}

func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the page escapes it
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// maxIndent is the deepest indentation of a tool's JSON on its page: the
// levels below it are shown flush with it, so that a page stays a bounded
// multiple of its file (which may nest 64 deep) and not 130 times it.
const maxIndent = 16 * len("  ")

// indentJSON is v as indented JSON, keys sorted.
func indentJSON(v any) string {
	b, err := prettyjson.Marshal(v) // the page escapes it
	if err != nil {
		return fmt.Sprint(v)
	}
	var out strings.Builder
	out.Grow(len(b))
	for line := range strings.Lines(string(b)) {
		text := strings.TrimLeft(line, " ")
		out.WriteString(line[:min(len(line)-len(text), maxIndent)])
		out.WriteString(text)
	}
	return out.String()
}
