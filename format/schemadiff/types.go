package schemadiff

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// typeOrder is the order in which type names are listed in texts; names
// outside it (which are not JSON Schema types) follow, sorted.
var typeOrder = []string{"string", "number", "integer", "boolean", "object", "array", "null"}

// admittedTypes returns the JSON types a schema admits, from "type" and
// OpenAPI's "nullable", in typeOrder; nil means every type. ok is false when
// either keyword is malformed.
func admittedTypes(schema map[string]any) (types []string, ok bool) {
	nullable, ok := member(schema, "nullable").(bool)
	if !ok && !isMissing(member(schema, "nullable")) {
		return nil, false
	}
	switch t := member(schema, "type").(type) {
	case missing:
		return nil, true
	case string:
		types = []string{t}
	case []any:
		for _, item := range t {
			name, ok := item.(string)
			if !ok {
				return nil, false
			}
			types = append(types, name)
		}
		if len(types) == 0 {
			return nil, false
		}
	default:
		return nil, false
	}
	if nullable {
		types = append(types, "null")
	}
	slices.SortFunc(types, compareTypeNames)
	return slices.Compact(types), true
}

func compareTypeNames(a, b string) int {
	ia, ib := typeRank(a), typeRank(b)
	if ia != ib {
		return ia - ib
	}
	return strings.Compare(a, b)
}

func typeRank(name string) int {
	if i := slices.Index(typeOrder, name); i >= 0 {
		return i
	}
	return len(typeOrder)
}

// admitsAll reports whether the type set outer admits every value inner
// admits. nil is every type, and number admits every integer.
func admitsAll(outer, inner []string) bool {
	if outer == nil {
		return true
	}
	if inner == nil {
		return false
	}
	for _, t := range inner {
		if !slices.Contains(outer, t) && !(t == "integer" && slices.Contains(outer, "number")) {
			return false
		}
	}
	return true
}

// typeToken returns the migration token of a type set: one of string,
// number, boolean, null, object, array or nullable<T>. Every type, several
// non-null types and names that are not JSON types have none.
func typeToken(types []string) (string, bool) {
	var kinds []string
	nullable := false
	for _, t := range types {
		switch t {
		case "null":
			nullable = true
		case "integer":
			kinds = append(kinds, "number")
		case "string", "number", "boolean", "object", "array":
			kinds = append(kinds, t)
		default:
			return "", false
		}
	}
	kinds = slices.Compact(kinds) // integer and number are adjacent in typeOrder
	switch {
	case len(kinds) == 0 && nullable:
		return "null", true
	case len(kinds) != 1:
		return "", false
	case nullable:
		return "nullable<" + kinds[0] + ">", true
	default:
		return kinds[0], true
	}
}

// effectiveTypes is admittedTypes narrowed to the types of the enum's
// values when there is an enum: {"enum":["a"]} admits only strings.
func effectiveTypes(schema map[string]any) (types []string, ok bool) {
	types, ok = admittedTypes(schema)
	list, isList := member(schema, "enum").([]any)
	if !ok || !isList {
		return types, ok
	}
	ofValues := []string{} // not nil, which would be every type
	for _, v := range list {
		if t := valueType(v); admitsAll(types, []string{t}) {
			ofValues = append(ofValues, t)
		} else if t == "integer" && admitsAll(types, []string{"number"}) {
			ofValues = append(ofValues, "number")
		}
	}
	slices.SortFunc(ofValues, compareTypeNames)
	return slices.Compact(ofValues), true
}

// valueType is the JSON Schema type of a decoded JSON value; a number
// without a fraction is an integer.
func valueType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// typeNouns name each type in a text as a value of it.
var typeNouns = map[string]string{
	"string": "a string", "number": "a number", "integer": "an integer", "boolean": "a boolean",
	"object": "an object", "array": "an array", "null": "null",
}

// describeTypes writes a type set for a change text: "a string or null".
func describeTypes(types []string) string {
	if types == nil {
		return "any value"
	}
	nouns := make([]string, len(types))
	for i, t := range types {
		nouns[i] = cmp.Or(typeNouns[t], "`"+t+"`")
	}
	return strings.Join(nouns, " or ")
}

// typeNames writes a type set by its names: "string or null".
func typeNames(types []string) string {
	if types == nil {
		return "any type"
	}
	return strings.Join(types, " or ")
}

// describeGap writes the types one set has beyond another; a number beyond
// integers is "a non-integer number".
func describeGap(types, others []string) string {
	if slices.Equal(types, []string{"number"}) && admitsAll(others, []string{"integer"}) {
		return "a non-integer number"
	}
	return describeTypes(types)
}

// typesOutside returns the types of some that all does not admit.
func typesOutside(some, all []string) []string {
	var out []string
	for _, t := range some {
		if !admitsAll(all, []string{t}) {
			out = append(out, t)
		}
	}
	return out
}
