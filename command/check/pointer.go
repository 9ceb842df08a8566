package check

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// pointerUnescaper undoes the escapes of a JSON Pointer's reference token.
var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

// pointerLine returns the line of data, a JSON document, at which the
// member or element the JSON Pointer names starts, or, when the document
// lacks it (a property removed), that of its nearest ancestor present:
// where a reviewer looks for the change. The whole document is line 1.
func pointerLine(data []byte, pointer string) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	found := int64(0) // offset of the deepest member found, 0 for the document
	if pointer != "" {
		for _, seg := range strings.Split(pointer[1:], "/") {
			seg = pointerUnescaper.Replace(seg)
			at, ok := enter(dec, data, seg)
			if !ok {
				break
			}
			found = at
		}
	}
	return 1 + bytes.Count(data[:found], []byte("\n"))
}

// enter moves dec, before a value of data, into that value's member or
// element named seg, and returns an offset on the line where the member's
// name ends or the element starts; ok is false when the value has none.
func enter(dec *json.Decoder, data []byte, seg string) (int64, bool) {
	tok, err := dec.Token()
	if err != nil {
		return 0, false
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return 0, false
			}
			if key == seg {
				return dec.InputOffset(), true
			}
			if skip(dec) != nil {
				return 0, false
			}
		}
	case json.Delim('['):
		n, err := strconv.Atoi(seg)
		if err != nil || n < 0 {
			return 0, false
		}
		for i := 0; dec.More(); i++ {
			if i == n {
				at := dec.InputOffset() // before the separator and the space that precede the element
				for at < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n,"), data[at]) >= 0 {
					at++
				}
				return at, true
			}
			if skip(dec) != nil {
				return 0, false
			}
		}
	}
	return 0, false
}

// skip reads one whole value.
func skip(dec *json.Decoder) error {
	var v json.RawMessage
	return dec.Decode(&v)
}
