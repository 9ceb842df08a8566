package schemadiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// missing stands for a member an object does not have, so that an absent
// member and a member holding JSON null stay different.
type missing struct{}

// member returns m[key], or missing{} when m has no such member.
func member(m map[string]any, key string) any {
	if v, ok := m[key]; ok {
		return v
	}
	return missing{}
}

func isMissing(v any) bool { return v == missing{} }

// canonical returns v as compact JSON with sorted keys, for quoting values in
// texts and keying sets of values. A missing member is the empty string,
// which no JSON value is.
func canonical(v any) string {
	if isMissing(v) {
		return ""
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only a Go caller can pass a value that is not JSON (a NaN, a
		// channel); fmt prints maps sorted, so it still compares deterministically.
		return fmt.Sprintf("%#v", v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// sameJSON reports whether two decoded JSON values are equal, as RFC 8785
// sees them (0 and -0 are one number). A missing member equals only another.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer() {
			return true // one object: two versions share what did not change
		}
		for k, xv := range x {
			if yv, ok := y[k]; !ok || !sameJSON(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if len(x) > 0 && &x[0] == &y[0] {
			return true
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	// The scalars of decoded JSON are compared without reflection: most
	// of a comparison is spent on members that did not change.
	case string:
		y, ok := b.(string)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case missing:
		return isMissing(b)
	default:
		return reflect.DeepEqual(a, b)
	}
}

// literal renders a value for a change text: a string as itself, anything
// else as JSON.
func literal(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return canonical(v)
}

// objectOrEmpty returns v as an object, treating a missing member as an empty
// object (nil, which reads as one and costs nothing); ok is false when v is
// something else.
func objectOrEmpty(v any) (m map[string]any, ok bool) {
	if isMissing(v) {
		return nil, true
	}
	m, ok = v.(map[string]any)
	return m, ok
}

// stringSet returns the strings of a JSON array (a missing member is empty,
// and nil); ok is false when v is not an array of strings.
func stringSet(v any) (set map[string]bool, ok bool) {
	if isMissing(v) {
		return nil, true
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	set = make(map[string]bool, len(list))
	for _, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, false
		}
		set[s] = true
	}
	return set, true
}

// sortedKeys returns the keys of all given objects, sorted and without
// duplicates, so that every walk over members has one order.
func sortedKeys[V any](objects ...map[string]V) []string {
	out := keys(objects...)
	slices.Sort(out)
	return out
}

// keys returns the keys of all given objects without duplicates, in no
// particular order. A key an earlier object has is not collected again:
// two versions of an object mostly share their keys, and sorting them
// once is half the work.
func keys[V any](objects ...map[string]V) []string {
	size := 0
	for _, m := range objects {
		size = max(size, len(m))
	}
	out := make([]string, 0, size)
	for i, m := range objects {
		for k := range m {
			if !inAny(objects[:i], k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// absentFrom returns the keys of m that others lacks, sorted.
func absentFrom(m, others map[string]any) []string {
	var out []string
	for k := range m {
		if _, ok := others[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// inAny reports whether one of objects has key.
func inAny[V any](objects []map[string]V, key string) bool {
	for _, m := range objects {
		if _, ok := m[key]; ok {
			return true
		}
	}
	return false
}

// verb says how a member changed between two versions.
func verb(before, after any) string {
	switch {
	case isMissing(before):
		return "added"
	case isMissing(after):
		return "removed"
	default:
		return "changed"
	}
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// pointerToken escapes one reference token of an RFC 6901 JSON Pointer.
func pointerToken(s string) string { return pointerEscaper.Replace(s) }

// isDecimal reports whether s is a non-negative integer written the way RFC
// 6901 array indexes and semver numbers are: digits, and no leading zero.
func isDecimal(s string) bool {
	return s != "" && (len(s) == 1 || s[0] != '0') && strings.Trim(s, "0123456789") == ""
}
