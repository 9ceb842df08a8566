package pages

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/templates"
)

func TestParams(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		want         []Param
	}{
		{"no schema", `null`, nil},
		{"no properties", `{"type": "object"}`, nil},
		{
			"required first, then by name",
			`{"type": "object", "required": ["z"], "properties": {"a": {"type": "string"}, "z": {"type": "integer", "description": "Zed."}}}`,
			[]Param{
				{Name: "z", Type: "integer", Required: true, Description: "Zed."},
				{Name: "a", Type: "string"},
			},
		},
		{
			"types",
			`{"type": "object", "properties": {
				"union": {"type": ["string", "integer"]},
				"nullable": {"type": "string", "nullable": true},
				"list": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
				"ref": {"$ref": "#/$defs/Place"},
				"either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
				"untyped": {}
			}}`,
			[]Param{
				{Name: "either", Type: "string | null"},
				{Name: "list", Type: "array of array of number"},
				{Name: "nullable", Type: "string | null"},
				{Name: "ref", Type: "Place"},
				{Name: "union", Type: "string | integer"},
				{Name: "untyped", Type: "any"},
			},
		},
		{
			"values and constraints",
			`{"type": "object", "properties": {
				"mode": {"type": "string", "enum": ["fast", "", 3, null], "default": "fast"},
				"empty": {"type": "string", "default": ""},
				"n": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10, "multipleOf": 2},
				"s": {"type": "string", "minLength": 1, "maxLength": 8, "pattern": "^a", "format": "email", "deprecated": true},
				"tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "uniqueItems": true},
				"k": {"const": "x"},
				"o": {"type": "object", "additionalProperties": false, "maxProperties": 1}
			}}`,
			[]Param{
				{Name: "empty", Type: "string", Default: `""`},
				{Name: "k", Type: "any", Notes: []string{"always x"}},
				{Name: "mode", Type: "string", Enum: []string{"fast", `""`, "3", "null"}, Default: "fast"},
				{Name: "n", Type: "integer", Notes: []string{"minimum 1", "less than 10", "multiple of 2"}},
				{Name: "o", Type: "object", Notes: []string{"at most 1 property", "no other properties"}},
				{Name: "s", Type: "string", Notes: []string{"format email", "pattern ^a", "at least 1 character", "at most 8 characters", "deprecated"}},
				{Name: "tags", Type: "array of string", Notes: []string{"at least 2 items", "unique items"}},
			},
		},
		{
			"nested objects and arrays of objects",
			`{"type": "object", "properties": {
				"filter": {"type": "object", "required": ["b"], "properties": {
					"a": {"type": "string"},
					"b": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}}
				}}
			}}`,
			[]Param{
				{Name: "filter", Type: "object"},
				{Name: "b", Depth: 1, Type: "array of object", Required: true},
				{Name: "id", Depth: 2, Type: "string"},
				{Name: "a", Depth: 1, Type: "string"},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			var schema any
			if c.schema != "null" {
				schema = object(t, c.schema)
			}
			if got := Params(schema); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Params:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// A tool page grows linearly with its schema's nesting: a field's path is
// not repeated on every row below it (it was: 513 MB for a 1 MB file).
func TestToolPageLinearInNesting(t *testing.T) {
	key := strings.Repeat("k", 1000)
	// nestedTool is a tool whose input schema nests levels object fields.
	nestedTool := func(levels int) string {
		schema := `{"type": "string"}`
		for range levels {
			schema = `{"type": "object", "properties": {"` + key + `": ` + schema + `}}`
		}
		return `{"name": "get_forecast", "inputSchema": ` + schema + `}`
	}
	page := func(src string) int {
		s := fixtureSite(t)
		s.Servers[0].Tools[0].Object = object(t, src)
		return len(render(t, s, templates.FS)["/servers/forecast/tools/get_forecast/index.html"])
	}
	small, large := nestedTool(30), nestedTool(60)
	pageGrowth, schemaGrowth := page(large)-page(small), len(large)-len(small)
	if pageGrowth > 6*schemaGrowth {
		t.Errorf("30 more levels add %d bytes to the schema and %d to its page: more than 6 times", schemaGrowth, pageGrowth)
	}
}

// The tool's JSON on its page is indented 16 levels at most: an array
// nested 60 deep adds no more than 32 spaces to a line.
func TestIndentJSONCapped(t *testing.T) {
	var v any = []any{1.0, 2.0}
	for range 60 {
		v = []any{v}
	}
	got := indentJSON(v)
	for line := range strings.Lines(got) {
		if indent := len(line) - len(strings.TrimLeft(line, " ")); indent > maxIndent {
			t.Fatalf("a line is indented %d spaces: %q", indent, line)
		}
	}
	if !strings.Contains(got, "\n"+strings.Repeat(" ", maxIndent)+"1,\n") {
		t.Errorf("the deepest values are not indented %d spaces:\n%s", maxIndent, got)
	}
}
