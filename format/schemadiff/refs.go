package schemadiff

import (
	"net/url"
	"strconv"
	"strings"
)

// maxRefChain bounds a chain of schemas that are nothing but a $ref to the
// next one; longer chains are treated as unresolvable.
const maxRefChain = 32

// fragmentPointer returns the JSON Pointer of a local reference ("#",
// "#/$defs/X"), percent-decoded as URI fragments are. Anything else (another
// document, an anchor name) is not local.
func fragmentPointer(ref string) (string, bool) {
	fragment, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return "", false
	}
	pointer, err := url.PathUnescape(fragment)
	if err != nil || (pointer != "" && !strings.HasPrefix(pointer, "/")) {
		return "", false
	}
	return pointer, true
}

// lookup returns the value a JSON Pointer names inside root.
func lookup(root any, pointer string) (any, bool) {
	if pointer == "" {
		return root, true
	}
	current := root
	for _, token := range strings.Split(pointer[1:], "/") {
		token = pointerUnescaper.Replace(token)
		switch node := current.(type) {
		case map[string]any:
			next, ok := node[token]
			if !ok {
				return nil, false
			}
			current = next
		case []any:
			i, ok := arrayIndex(token, len(node))
			if !ok {
				return nil, false
			}
			current = node[i]
		default:
			return nil, false
		}
	}
	return current, true
}

// arrayIndex parses an RFC 6901 array index: decimal digits without a
// leading zero, below length.
func arrayIndex(token string, length int) (int, bool) {
	if !isDecimal(token) {
		return 0, false
	}
	i, err := strconv.Atoi(token)
	return i, err == nil && i < length
}

// resolveRef returns the schema a local reference names inside root.
func resolveRef(root any, ref string) (any, bool) {
	pointer, ok := fragmentPointer(ref)
	if !ok {
		return nil, false
	}
	return lookup(root, pointer)
}

// deref returns the schema v stands for inside the schema document root: the
// boolean schema true becomes the empty schema that means the same, and a
// local $ref is replaced by its target with v's other keywords laid over it
// (for a description next to a $ref, the usual case, that is exactly right;
// for assertions it approximates their conjunction). ok is false when a $ref
// cannot be followed: not a string, not local, dangling, or a loop of bare
// references.
func deref(root, v any) (schema any, ok bool) {
	followed := map[string]bool{}
	for {
		if v == true {
			return map[string]any{}, true
		}
		m, isObject := v.(map[string]any)
		if !isObject {
			return v, true
		}
		ref, hasRef := m["$ref"]
		if !hasRef {
			return m, true
		}
		s, isString := ref.(string)
		if !isString || followed[s] || len(followed) == maxRefChain {
			return nil, false
		}
		followed[s] = true
		target, found := resolveRef(root, s)
		if !found {
			return nil, false
		}
		v = overlay(target, m)
	}
}

// overlay returns target with the keywords of referrer other than $ref laid
// over it. A target that is not an object schema is returned as it is.
func overlay(target any, referrer map[string]any) any {
	if target == true {
		target = map[string]any{}
	}
	base, ok := target.(map[string]any)
	if !ok {
		return target
	}
	merged := make(map[string]any, len(base)+len(referrer))
	for k, v := range base {
		merged[k] = v
	}
	for k, v := range referrer {
		if k != "$ref" {
			merged[k] = v
		}
	}
	return merged
}

// collectRefs appends every $ref string found anywhere inside v to refs. With
// skipDefinitions it does not look into $defs and definitions, whose schemas
// apply only where something references them.
//
// Every unchanged schema a comparison meets is walked here: the $ref
// member is found while the members are walked, not looked up besides,
// and only objects and arrays are walked into.
func collectRefs(v any, refs []string, skipDefinitions bool) []string {
	switch node := v.(type) {
	case map[string]any:
		for k, child := range node {
			switch child := child.(type) {
			case string:
				if k == "$ref" {
					refs = append(refs, child)
				}
			case map[string]any, []any:
				if !skipDefinitions || !isDefinitionsKeyword(k) {
					refs = collectRefs(child, refs, skipDefinitions)
				}
			}
		}
	case []any:
		for _, child := range node {
			switch child.(type) {
			case map[string]any, []any:
				refs = collectRefs(child, refs, skipDefinitions)
			}
		}
	}
	return refs
}

func isDefinitionsKeyword(k string) bool { return k == "$defs" || k == "definitions" }

// usedPointers returns the JSON Pointers of every local $ref target that the
// schema document root applies, directly or through other targets.
func usedPointers(root any) map[string]bool {
	used := map[string]bool{}
	queue := collectRefs(root, nil, true)
	for len(queue) > 0 {
		ref := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		pointer, ok := fragmentPointer(ref)
		if !ok || used[pointer] {
			continue
		}
		used[pointer] = true
		if target, found := lookup(root, pointer); found {
			queue = collectRefs(target, queue, true)
		}
	}
	return used
}

// isUsed reports whether the schema at pointer, or something inside it, is
// the target of a reference in used.
func isUsed(used map[string]bool, pointer string) bool {
	for target := range used {
		if target == pointer || strings.HasPrefix(target, pointer+"/") {
			return true
		}
	}
	return false
}
