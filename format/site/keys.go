package site

import (
	"fmt"
	"iter"
	"reflect"
	"strings"
)

// knownKeys lists the keys site.toml may have in the table at path (dotted,
// without array indices; "" is the top level), as the Config's toml tags
// declare them; nil when path is no table of the Config.
func knownKeys(path string) []string {
	t := reflect.TypeFor[Config]()
	if path != "" {
		for _, name := range strings.Split(path, ".") {
			f, ok := fieldByKey(t, name)
			if !ok {
				return nil
			}
			t = f.Type
		}
	}
	var keys []string
	for f := range fields(t) {
		keys = append(keys, tomlKey(f))
	}
	return keys
}

// fields yields the fields that are keys of the table type t, those of an
// embedded struct included (the decoder flattens it).
func fields(t reflect.Type) iter.Seq[reflect.StructField] {
	return func(yield func(reflect.StructField) bool) {
		t = tableType(t)
		if t.Kind() != reflect.Struct {
			return
		}
		for f := range t.Fields() {
			switch {
			case f.Anonymous && f.Tag.Get("toml") == "":
				for g := range fields(f.Type) {
					if !yield(g) {
						return
					}
				}
			case tomlKey(f) != "":
				if !yield(f) {
					return
				}
			}
		}
	}
}

// fieldByKey returns the field of the table type t that the key decodes
// into.
func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for f := range fields(t) {
		if tomlKey(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// tableType is the struct a TOML table or array of tables decodes into.
func tableType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t
}

// tomlKey is the key of a field in site.toml, "" for a field that is none.
func tomlKey(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	return name
}

// cutLastKey splits the TOML decoder's `(last key "K"): message` into the
// key and the message.
func cutLastKey(msg string) (key, rest string, ok bool) {
	quoted, ok := strings.CutPrefix(msg, "(last key ")
	if !ok {
		return "", "", false
	}
	quoted, rest, ok = strings.Cut(quoted, "): ")
	if !ok {
		return "", "", false
	}
	_, err := fmt.Sscanf(quoted, "%q", &key)
	return key, rest, err == nil
}

// typeError says in words what the decoder's "incompatible types" message
// about key says in Go types; other messages just get the key.
func typeError(key, msg string) string {
	var got, want string
	if n, _ := fmt.Sscanf(msg, "incompatible types: TOML value has type %s destination has type %s", &got, &want); n == 2 {
		return fmt.Sprintf("%s must be %s, not %s", key, valueKind(want), valueKind(strings.TrimSuffix(got, ";")))
	}
	return key + ": " + msg
}

// valueKind names a TOML value's kind, from the Go type the decoder names
// (a value's) or the kind it wanted (a destination's).
func valueKind(t string) string {
	switch {
	case t == "string" || t == "primitive":
		return "a string"
	case t == "int64" || t == "integer":
		return "an integer"
	case t == "float64" || t == "float":
		return "a number"
	case t == "bool" || t == "boolean":
		return "a boolean"
	case t == "slice" || strings.HasPrefix(t, "[]"):
		return "an array"
	case t == "map" || strings.HasPrefix(t, "map["):
		return "a table"
	case strings.Contains(t, "Time"):
		return "a date"
	}
	return t
}
