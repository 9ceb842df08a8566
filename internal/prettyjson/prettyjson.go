// Package prettyjson is how wellknown writes JSON for people to read: every
// published document, the tool files sync writes, the schemas on pages.
package prettyjson

import (
	"bytes"
	"encoding/json"
)

// Marshal returns v as JSON with two-space indentation and a final newline.
// <, > and & stay as they are: a document is not HTML, and whoever puts it
// into a page escapes it there.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
