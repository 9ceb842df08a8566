package schemadiff

import (
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

// describeTypes writes a type set for a change text: "string or null".
func describeTypes(types []string) string {
	if types == nil {
		return "any type"
	}
	return strings.Join(types, " or ")
}
