package schemadiff

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fuzzSeeds are realistic tools/list objects and edits of them.
var fuzzSeeds = [][2]string{
	{
		`{"name":"get_forecast","title":"Forecast","description":"Weather forecast for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string","minLength":1},"days":{"type":"integer","minimum":1,"maximum":7,"default":3},"units":{"type":"string","enum":["metric","imperial"]}},"required":["city"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"temp":{"type":"number"},"sky":{"enum":["clear","cloudy"]}},"required":["temp"]},"annotations":{"readOnlyHint":true,"openWorldHint":true}}`,
		`{"name":"get_forecast","title":"Forecast","description":"Weather forecast for a place","inputSchema":{"type":"object","properties":{"location":{"type":"string","minLength":1},"days":{"type":["integer","null"],"minimum":1,"maximum":14},"units":{"type":"string","enum":["metric","imperial","kelvin"]}},"required":["location","days"]},"outputSchema":{"type":"object","properties":{"temp":{"type":"number"},"humidity":{"type":"number"}}},"annotations":{"readOnlyHint":true},"_meta":{"io.example/tier":"free"}}`,
	},
	{
		`{"name":"create_issue","description":"Create an issue","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"repo":{"$ref":"#/$defs/repo"},"labels":{"type":"array","items":{"type":"string"},"uniqueItems":true},"assignee":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["repo"],"$defs":{"repo":{"type":"object","properties":{"owner":{"type":"string"},"name":{"type":"string"}},"required":["owner","name"]}}}}`,
		`{"name":"create_issue","description":"Create an issue","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"repo":{"$ref":"#/$defs/repo"},"labels":{"type":"array","items":{"$ref":"#/$defs/label"}},"assignee":{"type":"string","nullable":true}},"required":["repo"],"$defs":{"repo":{"type":"object","properties":{"owner":{"type":"string"},"name":{"type":"string","pattern":"^[a-z-]+$"}},"required":["owner","name"]},"label":{"type":"string","maxLength":50}}}}`,
	},
	{
		`{"name":"tree","inputSchema":{"type":"object","properties":{"node":{"$ref":"#/definitions/node"}},"definitions":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/definitions/node"}}}}}}}`,
		`{"name":"tree","inputSchema":{"type":"object","properties":{"node":{"$ref":"#"},"kids":{"items":{"$ref":"#/definitions/x"}}},"definitions":{"x":{"$ref":"#/definitions/x"}}}}`,
	},
	{`{"name":"odd","inputSchema":{"type":7,"properties":[1,2],"required":"a"}}`, `{"name":"odd","inputSchema":true}`},
}

func FuzzCompare(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	for _, tc := range compareCases {
		f.Add([]byte(tc.before), []byte(tc.after))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var before, after map[string]any
		if json.Unmarshal(a, &before) != nil || json.Unmarshal(b, &after) != nil {
			return
		}
		checkInvariants(t, before, after)
		if got := Compare(before, before); !reflect.DeepEqual(got, Result{}) {
			t.Fatalf("Compare(x, x) = %+v for %s", got, a)
		}
		first, again := Compare(before, after), Compare(before, after)
		if !reflect.DeepEqual(first, again) {
			t.Fatalf("Compare is not deterministic: %+v, then %+v", first, again)
		}
		var beforeAgain, afterAgain map[string]any
		_, _ = json.Unmarshal(a, &beforeAgain), json.Unmarshal(b, &afterAgain)
		if !reflect.DeepEqual(before, beforeAgain) || !reflect.DeepEqual(after, afterAgain) {
			t.Fatalf("Compare changed %s and %s", a, b)
		}
		checkPacks(t, first)
		checkWidenings(t, before)
	})
}

// widenings returns copies of tool, each with one edit that makes its input
// schema accept the same or more: a schema wrapped in a one-branch anyOf or
// joined with null, a constraint or keyword that restricts dropped, an
// enum value, an optional property or a union branch added, a type widened.
func widenings(t testing.TB, tool map[string]any) []map[string]any {
	var out []map[string]any
	for slot := 0; ; slot++ {
		found := false
		for edit := 0; ; edit++ {
			copied := decode(t, jsonText(tool))
			applied, exists := false, false
			n := 0
			eachSchema(member(copied, "inputSchema"), func(m map[string]any) any {
				defer func() { n++ }()
				if n != slot {
					return nil
				}
				exists = true
				widened := widen(m, edit)
				applied = widened != nil
				return widened
			})
			if !exists {
				return out
			}
			found = true
			if !applied {
				break
			}
			out = append(out, copied)
		}
		if !found {
			return out
		}
	}
}

// eachSchema calls f on every object schema below root (not root itself,
// whose place in the tool object is fixed), through properties, items,
// additionalProperties, union branches and definitions, and puts what f
// returns in its place unless that is nil.
func eachSchema(root any, f func(map[string]any) any) {
	var walk func(v any)
	visit := func(container map[string]any, key string) {
		if m, ok := container[key].(map[string]any); ok {
			if r := f(m); r != nil {
				container[key] = r
				return
			}
			walk(m)
		}
	}
	walk = func(v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		keywords := []string{"properties", "$defs", "definitions"}
		if strings.Contains(jsonText(root), `"oneOf"`) {
			keywords = keywords[:1] // a definition may be a oneOf branch
		}
		for _, keyword := range keywords {
			if children, ok := m[keyword].(map[string]any); ok {
				for _, name := range sortedKeys(children) {
					visit(children, name)
				}
			}
		}
		visit(m, "items")
		visit(m, "additionalProperties")
		// Not into oneOf: a branch that accepts more may now overlap
		// another, and oneOf rejects what matches twice.
		for _, keyword := range []string{"anyOf"} {
			if list, ok := m[keyword].([]any); ok {
				for i := range list {
					holder := map[string]any{"b": list[i]}
					visit(holder, "b")
					list[i] = holder["b"]
				}
			}
		}
	}
	walk(root)
}

// restrictive are keywords whose removal accepts the same or more.
var restrictive = []string{
	"type", "enum", "const", "required", "not", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
	"exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems",
	"minProperties", "maxProperties", "allOf", "dependentRequired", "dependentSchemas", "propertyNames", "contains",
}

// widen returns the edit-th widening of m, or nil when there are no more.
func widen(m map[string]any, edit int) any {
	var candidates []func() any
	add := func(f func() any) { candidates = append(candidates, f) }
	// Wrapping keeps the keywords that assert nothing outside, as SDKs
	// write them: a default inside a branch is not the value's default.
	wrap := func(branches ...any) any {
		inner, outer := map[string]any{}, map[string]any{}
		for k, v := range m {
			if metaKeywords[k] {
				outer[k] = v
			} else {
				inner[k] = v
			}
		}
		outer["anyOf"] = append([]any{inner}, branches...)
		return outer
	}
	add(func() any { return wrap() })
	add(func() any { return wrap(map[string]any{"type": "null"}) })
	for _, k := range restrictive {
		if _, ok := m[k]; ok {
			add(func() any { c := cloneMap(m); delete(c, k); return c })
		}
	}
	if m["additionalProperties"] == false {
		add(func() any { c := cloneMap(m); delete(c, "additionalProperties"); return c })
	}
	if t, ok := m["type"].(string); ok && t != "null" {
		add(func() any { c := cloneMap(m); c["type"] = []any{t, "null"}; return c })
	}
	if t, ok := m["type"].(string); ok && t == "integer" {
		add(func() any { c := cloneMap(m); c["type"] = "number"; return c })
	}
	if list, ok := m["enum"].([]any); ok {
		add(func() any { c := cloneMap(m); c["enum"] = append(append([]any{}, list...), "zz-new"); return c })
	}
	if props, ok := m["properties"].(map[string]any); ok {
		add(func() any {
			c, p := cloneMap(m), cloneMap(props)
			p["zz_new"] = map[string]any{"type": "string"}
			c["properties"] = p
			return c
		})
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		// A null branch in a oneOf that accepts null elsewhere would make
		// null match twice, which oneOf rejects.
		if list, ok := m[k].([]any); ok && (k == "anyOf" || !acceptsNull(list)) {
			add(func() any {
				c := cloneMap(m)
				c[k] = append(append([]any{}, list...), map[string]any{"type": "null"})
				return c
			})
		}
	}
	if edit >= len(candidates) {
		return nil
	}
	return candidates[edit]()
}

// acceptsNull reports whether a branch of list accepts every null.
func acceptsNull(list []any) bool {
	return slices.ContainsFunc(list, func(b any) bool {
		m, _ := b.(map[string]any)
		return slices.Contains(wholeTypes(m), "null")
	})
}

func cloneMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// checkWidenings asserts that no widening of tool is breaking. A tool
// with a $ref that cannot be followed is skipped: what it accepts is
// unknown, so no edit of it is known to widen it.
func checkWidenings(t *testing.T, tool map[string]any) {
	t.Helper()
	schema := member(tool, "inputSchema")
	for _, ref := range collectRefs(schema, nil, false) {
		if _, ok := deref(schema, map[string]any{"$ref": ref}); !ok {
			return
		}
	}
	for _, w := range widenings(t, tool) {
		if got := Compare(tool, w); got.Class == Breaking {
			t.Fatalf("a widening is breaking:\n%s\n->\n%s\n%s", jsonText(tool), jsonText(w), changeLines(got.Changes))
		}
	}
}
