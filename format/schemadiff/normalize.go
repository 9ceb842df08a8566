package schemadiff

import (
	"maps"
	"slices"
)

// maxNormalDepth bounds how deep normalize follows branches into branches,
// so that a branch referring back to its own schema cannot loop.
const maxNormalDepth = 8

// metaKeywords carry no assertion: they document a schema, hold
// definitions, or (default) only matter when a value is absent.
var metaKeywords = map[string]bool{
	"title": true, "description": true, "examples": true, "$comment": true, "deprecated": true,
	"default": true, "$defs": true, "definitions": true,
}

// keywordKind names the one JSON type family an assertion keyword applies
// to; on a value of any other type it is always satisfied.
var keywordKind = map[string]string{
	"minLength": "string", "maxLength": "string", "pattern": "string", "format": "string",
	"minimum": "number", "maximum": "number", "exclusiveMinimum": "number", "exclusiveMaximum": "number", "multipleOf": "number",
	"properties": "object", "required": "object", "additionalProperties": "object", "patternProperties": "object",
	"minProperties": "object", "maxProperties": "object", "dependentRequired": "object", "dependentSchemas": "object",
	"propertyNames": "object",
	"items":         "array", "prefixItems": "array", "additionalItems": "array", "minItems": "array", "maxItems": "array",
	"uniqueItems": "array", "contains": "array", "minContains": "array", "maxContains": "array",
}

// kindOf is the type family of a type name: integer belongs with number.
func kindOf(t string) string {
	if t == "integer" {
		return "number"
	}
	return t
}

// normalize returns schema (an object schema of the document root) with
// equivalent spellings rewritten to one, so that only differences in
// meaning remain: const becomes a one-value enum, draft-07 dependencies
// become dependentRequired and dependentSchemas, allOf branches and
// one-branch anyOf or oneOf are merged into the schema when no keyword
// clashes, and an anyOf or oneOf whose branches each admit their own types
// becomes one schema with a type list ({"anyOf":[{"type":"string"},
// {"type":"null"}]} is {"type":["string","null"]}). The input is not
// changed: a schema with nothing to rewrite is returned itself, most of a
// tool's, and one with something is copied first.
func normalize(root any, schema map[string]any, depth int) map[string]any {
	if !rewritable(schema, depth) {
		return schema
	}
	out := maps.Clone(schema)
	constToEnum(out)
	splitDependencies(out)
	if depth == 0 {
		return out
	}
	for _, keyword := range []string{"allOf", "anyOf", "oneOf"} {
		list, ok := out[keyword].([]any)
		if !ok {
			continue
		}
		if keyword == "anyOf" {
			list = distinct(list)
			out[keyword] = list
		}
		branches, ok := normalBranches(root, list, depth-1)
		switch {
		case !ok:
		case keyword == "allOf" || len(branches) == 1:
			mergeConjunction(out, keyword, branches)
		default:
			if union, ok := unionOf(branches); ok && mergeable(out, union, keyword) {
				delete(out, keyword)
				maps.Copy(out, union)
			}
		}
	}
	return out
}

// rewritable reports whether normalize may rewrite schema: whether it
// has a keyword one of its rewrites starts from.
func rewritable(schema map[string]any, depth int) bool {
	_, hasConst := schema["const"]
	_, hasDependencies := schema["dependencies"]
	_, hasAll := schema["allOf"]
	_, hasAny := schema["anyOf"]
	_, hasOne := schema["oneOf"]
	return hasConst || hasDependencies || depth > 0 && (hasAll || hasAny || hasOne)
}

// distinct returns list without repeated schemas: a value matching one of
// them twice is still accepted by anyOf (not by oneOf, which keeps them).
func distinct(list []any) []any {
	var out []any
	for _, v := range list {
		if !slices.ContainsFunc(out, func(w any) bool { return sameJSON(v, w) }) {
			out = append(out, v)
		}
	}
	return out
}

// constToEnum writes const as the enum of its one value, which admits the
// same; with both present, only values of both remain.
func constToEnum(m map[string]any) {
	c, ok := m["const"]
	if !ok {
		return
	}
	delete(m, "const")
	if list, isList := m["enum"].([]any); isList && !slices.ContainsFunc(list, func(v any) bool { return sameJSON(v, c) }) {
		m["enum"] = []any{}
		return
	}
	m["enum"] = []any{c}
}

// splitDependencies rewrites draft-07 dependencies into the 2019-09
// keywords that split it by kind of value, when those are absent.
func splitDependencies(m map[string]any) {
	deps, ok := m["dependencies"].(map[string]any)
	_, hasRequired := m["dependentRequired"]
	_, hasSchemas := m["dependentSchemas"]
	if !ok || hasRequired || hasSchemas {
		return
	}
	required, schemas := map[string]any{}, map[string]any{}
	for k, v := range deps {
		if _, isList := v.([]any); isList {
			required[k] = v
		} else {
			schemas[k] = v
		}
	}
	delete(m, "dependencies")
	if len(required) > 0 {
		m["dependentRequired"] = required
	}
	if len(schemas) > 0 {
		m["dependentSchemas"] = schemas
	}
}

// normalBranches resolves and normalizes the branches of a combinator; ok
// is false when one cannot be read as an object schema.
func normalBranches(root any, list []any, depth int) ([]map[string]any, bool) {
	out := make([]map[string]any, 0, len(list))
	for _, b := range list {
		m := normalized(root, b, depth)
		if m == nil {
			return nil, false
		}
		out = append(out, m)
	}
	return out, true
}

// mergeConjunction merges the branches of a conjunction into m when no
// keyword clashes, one with m's or another branch's; otherwise it leaves
// the combinator as it is, so that its branches keep their positions.
func mergeConjunction(m map[string]any, keyword string, branches []map[string]any) {
	merged := maps.Clone(m)
	delete(merged, keyword)
	for _, b := range branches {
		if !mergeable(merged, b, keyword) {
			return
		}
		maps.Copy(merged, b)
	}
	clear(m)
	maps.Copy(m, merged)
}

// mergeable reports whether branch can be laid into m without a keyword of
// both meaning different things.
func mergeable(m, branch map[string]any, combinator string) bool {
	for k, v := range branch {
		if existing, ok := m[k]; k == combinator || ok && !sameJSON(existing, v) {
			return false
		}
	}
	return true
}

// unionOf writes the disjunction of branches as one schema when each
// branch admits its own type families and constrains nothing but values
// of those families: then a value of a family meets the merged schema
// exactly when it meets its branch.
func unionOf(branches []map[string]any) (map[string]any, bool) {
	merged := map[string]any{}
	seen := map[string]bool{}
	var types []string
	for _, b := range branches {
		ts, ok := admittedTypes(b)
		if !ok || ts == nil {
			return nil, false
		}
		kinds := map[string]bool{}
		for _, t := range ts {
			kinds[kindOf(t)] = true
		}
		for k := range kinds {
			if seen[k] {
				return nil, false
			}
			seen[k] = true
		}
		types = append(types, ts...)
		for key, v := range b {
			switch {
			case key == "type" || key == "nullable":
			case metaKeywords[key] && key != "default":
				if existing, ok := merged[key]; ok && !sameJSON(existing, v) {
					return nil, false
				}
				merged[key] = v
			case kinds[keywordKind[key]]:
				merged[key] = v
			default:
				return nil, false
			}
		}
	}
	slices.SortFunc(types, compareTypeNames)
	list := make([]any, len(types))
	for i, t := range types {
		list[i] = t
	}
	merged["type"] = list
	return merged, true
}
