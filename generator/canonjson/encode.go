package canonjson

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

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
		for i, k := range slices.SortedFunc(maps.Keys(v), compareUTF16) {
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

// compareUTF16 orders strings by their UTF-16 code units (RFC 8785 §3.2.3).
// That is the order of code points except that a character beyond U+FFFF
// (a surrogate pair, D800–DBFF first) sorts before U+E000–U+FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			if c := cmp.Compare(firstUnit(ra), firstUnit(rb)); c != 0 {
				return c
			}
			return cmp.Compare(ra, rb) // same high surrogate: the low ones decide, in code point order
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r > 0xFFFF {
		high, _ := utf16.EncodeRune(r)
		return high
	}
	return r
}
