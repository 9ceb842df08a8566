package canonjson

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gowebpki/jcs"
)

// Canonical returns the RFC 8785 form of a value as Decode returns it.
func Canonical(v any) ([]byte, error) {
	return appendValue(nil, v)
}

func appendValue(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		if v {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case float64:
		// ECMAScript's Number.prototype.toString, as RFC 8785 §3.2.2.3 asks.
		s, err := jcs.NumberToJSON(v)
		if err != nil {
			return nil, err
		}
		return append(dst, s...), nil
	case string:
		return appendString(dst, v), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case map[string]any:
		dst = append(dst, '{')
		for i, k := range sortedKeys(v) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(appendString(dst, k), ':')
			var err error
			if dst, err = appendValue(dst, v[k]); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	default:
		return nil, fmt.Errorf("canonical json: cannot encode a %T", v)
	}
}

// sortedKeys returns the keys of an object in RFC 8785 order.
func sortedKeys(object map[string]any) []string {
	keys := make([]string, 0, len(object))
	for k := range object {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareUTF16)
	return keys
}

// appendString quotes s as RFC 8785 §3.2.2.2 asks: the two-character escapes
// of JSON where there is one, \u00xx (lower-case hex) for the other control
// characters, every other character as itself.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, `\b`...)
		case '\f':
			dst = append(dst, `\f`...)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\t':
			dst = append(dst, `\t`...)
		default:
			if c < 0x20 {
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			} else {
				dst = append(dst, c)
			}
		}
	}
	return append(dst, '"')
}

// compareUTF16 orders strings, or their bytes, by their UTF-16 code units
// (RFC 8785 §3.2.3).
// Their UTF-8 bytes are in code point order, which is that order except
// that a character beyond U+FFFF (lead byte F0–F4; a surrogate pair, D800–
// DBFF first) sorts before U+E000–U+FFFF (lead byte EE or EF). Two strings
// first differ either in two continuation bytes of characters of one
// length or at the start of a character in each, so that byte decides.
func compareUTF16[S string | []byte](a, b S) int {
	i, n := 0, min(len(a), len(b))
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return cmp.Compare(len(a), len(b))
	}
	x, y := a[i], b[i]
	switch {
	case beyondBMP(x) && highBMP(y):
		return -1
	case highBMP(x) && beyondBMP(y):
		return 1
	}
	return cmp.Compare(x, y)
}

// beyondBMP reports whether a UTF-8 byte starts a character beyond U+FFFF.
func beyondBMP(c byte) bool { return c >= 0xF0 }

// highBMP reports whether a UTF-8 byte starts a character of U+E000–U+FFFF.
func highBMP(c byte) bool { return c == 0xEE || c == 0xEF }
