// Package tools reads MCP tool schema files. A tool file holds one JSON
// object in exactly the shape a server returns in tools/list: name, title?,
// description, inputSchema, outputSchema?, annotations?, _meta?.
//
// A tool's identity is the name inside the file, never the file's path:
// files may move without breaking a tool's history. Two files that declare
// the same name for one server is an error naming both.
package tools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"sort"

	"github.com/wellknown-dev/wellknown/format/canonjson"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// namePattern is MCP's tool name rule: 1–128 characters from A–Z a–z 0–9 _ - .
var namePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// Tool is one parsed tool file.
type Tool struct {
	Name   string
	File   string         // where it was read from, for messages
	Object map[string]any // the whole tool object
	// Canonical is the RFC 8785 form of the object: equal for two files that
	// differ only in formatting, and the bytes the schema archive hashes.
	// nil when Stored keeps them.
	Canonical []byte
	// Stored is where Canonical was put outside memory, nil if it was not:
	// a build that reads many versions keeps their forms there, not all
	// at once in memory (see ReadCanonical).
	Stored Stored
	// SHA256 is the hex SHA-256 of Canonical, which names a version: worked
	// out with the parse, which a long history spreads over every core.
	SHA256 string
}

// Stored locates bytes kept outside memory: Read returns a copy of them.
type Stored interface {
	Read() ([]byte, error)
}

// ReadCanonical returns Canonical, read back from Stored when it is not
// held.
func (t Tool) ReadCanonical() ([]byte, error) {
	if t.Canonical != nil || t.Stored == nil {
		return t.Canonical, nil
	}
	return t.Stored.Read()
}

// Title returns the tool's title, or its annotations' title, or "".
func (t Tool) Title() string {
	if s, ok := t.Object["title"].(string); ok {
		return s
	}
	if a, ok := t.Object["annotations"].(map[string]any); ok {
		s, _ := a["title"].(string)
		return s
	}
	return ""
}

// Description returns the tool's description, or "".
func (t Tool) Description() string {
	s, _ := t.Object["description"].(string)
	return s
}

// The limits of one tool file: far above real tool snapshots (a few KB to a
// few tens of KB), and low enough to bound what a hostile file (a commit, or
// a server through sync) costs each build. Within them the canonical form,
// the diff and the page all grow near-linearly with the file.
const (
	MaxFileBytes  = 1 << 20 // 1 MiB
	MaxDepth      = 64      // objects and arrays nested in one another
	MaxProperties = 10_000  // members of all objects in the file together
)

var limits = canonjson.Limits{Depth: MaxDepth, Properties: MaxProperties}

// ErrLimit matches (errors.Is) the error of a tool file over a limit.
var ErrLimit = errors.New("tool file over a limit")

// limitError is the located error of a tool file over a limit.
type limitError struct{ err *diag.Error }

func (e limitError) Error() string        { return e.err.Error() }
func (e limitError) Unwrap() error        { return e.err }
func (e limitError) Is(target error) bool { return target == ErrLimit }

func overLimit(file string, line int, msg string) error {
	return limitError{diag.Errorf(file, line, "%s", msg).WithHint("%s", limitsHint)}
}

var limitsHint = fmt.Sprintf(`a tool file may be at most 1 MiB (%d bytes), nest objects and arrays at most %d deep and hold at most %d properties; see wellknown's docs/limits.md`,
	MaxFileBytes, MaxDepth, MaxProperties)

// Oversized is Parse's error for a tool file of size bytes, over
// MaxFileBytes: for a reader that learns the size before reading.
func Oversized(file string, size int) error {
	return overLimit(file, 0, fmt.Sprintf("tool file is %d bytes; the limit is %d", size, MaxFileBytes))
}

// Parse checks and decodes one tool file. file names it in errors.
func Parse(file string, data []byte) (Tool, error) {
	if len(data) > MaxFileBytes {
		return Tool{}, Oversized(file, len(data))
	}
	v, err := canonjson.Decode(data, limits)
	if err != nil {
		return Tool{}, decodeError(file, data, err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return Tool{}, diag.Errorf(file, 0, "a tool file holds one JSON object (found %s)", kind(v))
	}
	if err := check(obj); err != nil {
		return Tool{}, diag.Errorf(file, 0, "%v", err).
			WithHint("a tool file holds one tool exactly as tools/list returns it: {\"name\": …, \"description\": …, \"inputSchema\": {\"type\": \"object\", …}}")
	}
	canonical, err := canonjson.Canonical(obj)
	if err != nil {
		return Tool{}, diag.Errorf(file, 0, "cannot canonicalise: %v", err)
	}
	sum := sha256.Sum256(canonical)
	return Tool{Name: obj["name"].(string), File: file, Object: obj, Canonical: canonical, SHA256: hex.EncodeToString(sum[:])}, nil
}

// ParseCanonical is Parse, errors included, without the decoded object:
// the tool's name, file, canonical form and its hash. It reads a file in
// one pass that builds no tree (canonjson.TransformFunc), for a reader of many
// versions that keeps their canonical forms and decodes few of them.
func ParseCanonical(file string, data []byte) (Tool, error) {
	return ParseStored(file, data, nil)
}

// ParseStored is ParseCanonical for a reader that keeps the forms outside
// memory: store, when not nil, is given the canonical form of each tool,
// in a buffer it may not keep, and its SHA256, and returns where it keeps
// it, the tool's Stored; Canonical is then nil. When store returns nil,
// Canonical holds the form.
func ParseStored(file string, data []byte, store func(canonical []byte, sha256 string) Stored) (Tool, error) {
	keep := func(t *Tool, canonical []byte) {
		if store != nil {
			t.Stored = store(canonical, t.SHA256)
		}
		if t.Stored == nil {
			t.Canonical = append(make([]byte, 0, len(canonical)), canonical...)
		}
	}
	if len(data) <= MaxFileBytes {
		var t Tool
		err := canonjson.TransformFunc(data, limits, func(canonical []byte) error {
			if name, ok := checkCanonical(canonical); ok {
				sum := sha256.Sum256(canonical)
				t = Tool{Name: name, File: file, SHA256: hex.EncodeToString(sum[:])}
				keep(&t, canonical)
			}
			return nil
		})
		if err == nil && t.Name != "" {
			return t, nil
		}
	}
	t, err := Parse(file, data) // worded as Parse words it
	t.Object = nil
	if err == nil {
		canonical := t.Canonical
		t.Canonical = nil
		keep(&t, canonical)
	}
	return t, err
}

// decodeError locates a decoding error in file.
func decodeError(file string, data []byte, err error) error {
	var located *canonjson.Error
	if !errors.As(err, &located) {
		return diag.JSONError(file, data, err)
	}
	if errors.Is(err, canonjson.ErrLimit) {
		return overLimit(file, located.Line, located.Msg)
	}
	return diag.Errorf(file, located.Line, "%s", located.Msg)
}

// kind names the JSON type of a decoded value, with its article.
func kind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	default:
		return "null"
	}
}

func check(obj map[string]any) error {
	name, ok := obj["name"].(string)
	switch {
	case obj["name"] == nil:
		return errors.New(`tool has no "name"`)
	case !ok:
		return errors.New(`tool "name" must be a string`)
	case !namePattern.MatchString(name):
		return fmt.Errorf("tool name %q must be 1–128 characters from A-Z a-z 0-9 . _ -", name)
	case name == "." || name == "..":
		// The name is a path segment of the tool's page and schema archive.
		return fmt.Errorf("tool name %q is not usable: it names a directory in a path", name)
	}
	for _, key := range []string{"title", "description"} {
		if v, present := obj[key]; present {
			if _, ok := v.(string); !ok {
				return fmt.Errorf("tool %s: %q must be a string", name, key)
			}
		}
	}
	if obj["inputSchema"] == nil {
		return fmt.Errorf(`tool %s has no "inputSchema"`, name)
	}
	for _, key := range []string{"inputSchema", "outputSchema"} {
		if err := checkSchema(name, key, obj); err != nil {
			return err
		}
	}
	for _, key := range []string{"annotations", "_meta"} {
		if v, present := obj[key]; present {
			if _, ok := v.(map[string]any); !ok {
				return fmt.Errorf("tool %s: %q must be an object", name, key)
			}
		}
	}
	return nil
}

// checkCanonical reports whether check accepts the tool whose canonical
// form is given, and its name, reading the form's text: only the tool's
// members and its schemas' "type" are looked at, and nothing is decoded.
// It is false for anything it does not accept at once, which check then
// decides. In a canonical form the keys check knows and the characters of
// a valid name are written as they are, never escaped.
func checkCanonical(canonical []byte) (name string, accepted bool) {
	hasInput, ok := false, true
	object := canonjson.Members(canonical, func(key, value []byte) bool {
		switch string(key) {
		case "name":
			n, quoted := unquotePlain(value)
			ok = quoted && isName(n) && string(n) != "." && string(n) != ".."
			name = string(n)
		case "title", "description":
			ok = bytes.HasPrefix(value, []byte(`"`))
		case "inputSchema", "outputSchema":
			ok = isObjectSchema(value)
			hasInput = hasInput || key[0] == 'i'
		case "annotations", "_meta":
			ok = bytes.HasPrefix(value, []byte("{"))
		}
		return ok
	})
	return name, object && ok && hasInput && name != ""
}

// isObjectSchema reports whether a schema's canonical form is an object
// whose "type" is "object".
func isObjectSchema(schema []byte) bool {
	// "type" sorts after most keywords, often after all: the form then
	// ends with it, and the schema is not read through. Only a string's
	// own quotes go unescaped in a canonical form, so a form that ends
	// (or begins) with this text has this member.
	if bytes.HasSuffix(schema, []byte(`,"type":"object"}`)) || bytes.HasPrefix(schema, []byte(`{"type":"object"`)) {
		return true
	}
	object := false
	canonjson.Members(schema, func(key, value []byte) bool {
		if string(key) != "type" {
			return true
		}
		object = string(value) == `"object"`
		return false
	})
	return object
}

// isName reports whether namePattern matches name, without the regular
// expression: every version of every tool file is checked, and the
// expression cost more than the rest of the check of the name.
func isName(name []byte) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for _, c := range name {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// unquotePlain returns the text of a canonical string that holds no
// escape, and whether it is one.
func unquotePlain(value []byte) ([]byte, bool) {
	if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' || bytes.IndexByte(value, '\\') >= 0 {
		return nil, false
	}
	return value[1 : len(value)-1], true
}

// checkSchema requires an object schema where key is present: MCP tool
// arguments and structured results are always JSON objects.
func checkSchema(name, key string, obj map[string]any) error {
	v, present := obj[key]
	if !present {
		return nil
	}
	schema, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("tool %s: %q must be a JSON Schema object", name, key)
	}
	if schema["type"] != "object" {
		return fmt.Errorf(`tool %s: %q must have "type": "object"`, name, key)
	}
	return nil
}

// CheckUnique returns an error naming both files for every tool name
// declared twice. It sorts ts by name.
func CheckUnique(ts []Tool) error {
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	var problems []error
	for i := 1; i < len(ts); i++ {
		if ts[i].Name == ts[i-1].Name {
			problems = append(problems, diag.Errorf(ts[i].File, 0, "tool %q is also declared in %s", ts[i].Name, ts[i-1].File).
				WithHint("a tool's name is its identity: rename one of them, remove the copy, or leave it out with exclude = [\"…\"] under the server in site.toml"))
		}
	}
	return errors.Join(problems...)
}
