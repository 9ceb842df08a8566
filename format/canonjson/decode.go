// Package canonjson reads JSON strictly, within limits, naming the line of
// each problem, and writes the RFC 8785 (JCS) canonical form of what it read.
//
// Canonicalising the decoded value, rather than re-parsing the text, keeps
// the cost near-linear: objects are sorted once, in O(n log n), and nothing
// is copied once per level of nesting.
package canonjson

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Limits bound what Decode accepts; zero means no limit.
type Limits struct {
	Depth      int // objects and arrays nested in one another, the outermost counting 1
	Properties int // members of all objects together
}

// ErrLimit matches (errors.Is) an Error that reports an exceeded limit.
var ErrLimit = errors.New("over a limit")

// Error is a problem in a document: where (Line 0: the document as a whole)
// and what, in words.
type Error struct {
	Line  int
	Msg   string
	limit bool
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Is reports whether e is an exceeded limit.
func (e *Error) Is(target error) bool { return e.limit && target == ErrLimit }

var bom = []byte("\xEF\xBB\xBF")

// Decode returns the value of a JSON document as encoding/json decodes into
// an any (map[string]any, []any, string, float64, bool, nil). Beyond what
// encoding/json checks, it rejects what RFC 8785 cannot canonicalise or what
// makes a document ambiguous: a byte-order mark, invalid UTF-8, a duplicate
// key, a lone UTF-16 surrogate, a number outside the range of a float64.
// A syntax error is encoding/json's *json.SyntaxError, but for nesting too
// deep for encoding/json, which is over any Depth limit; any other problem
// is an *Error.
func Decode(data []byte, lim Limits) (any, error) {
	if bytes.HasPrefix(data, bom) {
		return nil, &Error{Msg: "starts with a UTF-8 byte-order mark; save it without one"}
	}
	if !utf8.Valid(data) {
		return nil, &Error{Line: lineAt(data, invalidUTF8At(data)), Msg: "is not valid UTF-8"}
	}
	// One strict pass decodes a well-formed document. Anything it finds
	// wrong is decided again by the checks below, in their order: a
	// document with both a duplicate key and a syntax error further on is
	// reported for its syntax.
	d := decoder{data: data, lim: lim}
	if v, err := d.document(); err == nil {
		return v, nil
	}
	// encoding/json's scanner checks the syntax without building values, and
	// words its errors as every other JSON input of the build does.
	if !json.Valid(data) {
		err := json.Unmarshal(data, new(json.RawMessage))
		var syntax *json.SyntaxError
		if lim.Depth > 0 && errors.As(err, &syntax) && strings.HasSuffix(syntax.Error(), "exceeded max depth") {
			// encoding/json stops at its own depth (10,000) before the limit
			// is counted: the document is over the limit all the same.
			d := decoder{data: data, lim: lim}
			return nil, d.overLimit(int(syntax.Offset)-1, "objects and arrays nest more than %d deep (the limit)", lim.Depth)
		}
		return nil, err
	}
	d = decoder{data: data, lim: lim}
	return d.value(0)
}

func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// lineAt is the 1-based line of byte offset off.
func lineAt(data []byte, off int) int {
	return bytes.Count(data[:min(off, len(data))], []byte("\n")) + 1
}

// decoder walks a document. It checks the grammar itself, so that a
// well-formed document is read in one pass; what it rejects as errSyntax
// is worded by encoding/json instead (see Decode).
type decoder struct {
	data       []byte
	pos        int
	lim        Limits
	properties int
	form       *Form // when not nil, where each object and array is recorded (see DecodeFormInto)
}

// errSyntax is the decoder's word for a document encoding/json rejects too.
var errSyntax = errors.New("invalid JSON")

// maxNesting is encoding/json's limit on objects and arrays nested in one
// another: a document over it is a syntax error there.
const maxNesting = 10_000

func (d *decoder) fail(at int, format string, args ...any) error {
	return &Error{Line: lineAt(d.data, at), Msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) overLimit(at int, format string, args ...any) error {
	return &Error{Line: lineAt(d.data, at), Msg: fmt.Sprintf(format, args...), limit: true}
}

// document decodes the whole document: one value, and nothing after it
// but white space.
func (d *decoder) document() (any, error) {
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.skipSpace(); d.pos != len(d.data) {
		return nil, errSyntax
	}
	return v, nil
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value decodes the value at d.pos; depth is the number of objects and
// arrays around it.
func (d *decoder) value(depth int) (any, error) {
	d.skipSpace()
	if d.pos >= len(d.data) {
		return nil, d.fail(d.pos, "unexpected end of JSON")
	}
	switch c := d.data[d.pos]; {
	case c == '{' || c == '[':
		if d.lim.Depth > 0 && depth >= d.lim.Depth {
			return nil, d.overLimit(d.pos, "objects and arrays nest more than %d deep (the limit)", d.lim.Depth)
		}
		if depth >= maxNesting {
			return nil, errSyntax
		}
		if d.form != nil {
			return d.container(c, depth+1)
		}
		if c == '{' {
			return d.object(depth + 1)
		}
		return d.array(depth + 1)
	case c == '"':
		return d.string()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	default:
		return nil, errSyntax
	}
}

func (d *decoder) literal(word string) error {
	if !bytes.HasPrefix(d.data[d.pos:], []byte(word)) {
		return d.fail(d.pos, "invalid literal")
	}
	d.pos += len(word)
	return nil
}

// next skips white space and the comma between two members or elements,
// and reports whether the closing byte ends the object or array instead.
// first is true before the first one, where no comma goes.
func (d *decoder) next(closing byte, first bool) (end bool, err error) {
	d.skipSpace()
	if d.pos >= len(d.data) {
		return false, d.fail(d.pos, "unexpected end of JSON")
	}
	switch c := d.data[d.pos]; {
	case c == closing:
		d.pos++
		return true, nil
	case first:
		return false, nil
	case c == ',':
		d.pos++
		d.skipSpace()
		return false, nil
	default:
		return false, errSyntax
	}
}

func (d *decoder) object(depth int) (any, error) {
	d.pos++ // {
	obj := map[string]any{}
	for first := true; ; first = false {
		if end, err := d.next('}', first); end || err != nil {
			return obj, err
		}
		at := d.pos
		key, err := d.string()
		if err != nil {
			return nil, err
		}
		// A canonical form (see DecodeFormInto) was written from a map, so its
		// keys are unique: a replay's forms are not looked up for nothing.
		if d.form == nil {
			if _, dup := obj[key]; dup {
				return nil, d.fail(at, "duplicate key %s", strconv.Quote(key))
			}
		}
		d.properties++
		if d.lim.Properties > 0 && d.properties > d.lim.Properties {
			return nil, d.overLimit(at, "more than %d properties (the limit)", d.lim.Properties)
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.fail(d.pos, "expected ':' after a key")
		}
		d.pos++
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		obj[key] = v
	}
}

func (d *decoder) array(depth int) (any, error) {
	d.pos++ // [
	arr := []any{}
	for first := true; ; first = false {
		if end, err := d.next(']', first); end || err != nil {
			return arr, err
		}
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
}

// number decodes the number at d.pos.
func (d *decoder) number() (any, error) {
	start := d.pos
	if err := d.numberText(); err != nil {
		return nil, err
	}
	text := string(d.data[start:d.pos])
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, d.fail(start, "number %s is too large for a 64-bit floating-point number", text)
	}
	return f, nil
}

// numberText skips the number at d.pos, held to JSON's grammar:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *decoder) numberText() error {
	if d.data[d.pos] == '-' {
		d.pos++
	}
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else if d.digits() == 0 {
		return errSyntax
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if d.digits() == 0 {
			return errSyntax
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.digits() == 0 {
			return errSyntax
		}
	}
	return nil
}

// digits skips the decimal digits at d.pos and returns how many.
func (d *decoder) digits() int {
	start := d.pos
	for d.pos < len(d.data) && '0' <= d.data[d.pos] && d.data[d.pos] <= '9' {
		d.pos++
	}
	return d.pos - start
}

// string decodes the string at d.pos, its opening quote included.
func (d *decoder) string() (string, error) {
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return "", d.fail(d.pos, "expected a string")
	}
	d.pos++
	start := d.pos
	d.pos = plainEnd(d.data, d.pos)
	if d.pos < len(d.data) && d.data[d.pos] == '"' {
		d.pos++
		return string(d.data[start : d.pos-1]), nil // no escapes: the common case
	}
	buf := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), nil
		case c < 0x20:
			return "", errSyntax // a control character must be escaped
		case c != '\\':
			buf = append(buf, c)
			d.pos++
		default:
			var err error
			if buf, err = d.escape(buf); err != nil {
				return "", err
			}
		}
	}
	return "", d.fail(d.pos, "unexpected end of JSON in a string")
}

// plainEnd returns where the run of bytes of a string that stand for
// themselves ends, from data[i:] on: at a quote, a backslash, a control
// character or the end of data. It reads eight bytes at a time while none
// of them ends it: most of a tool file is long strings.
func plainEnd(data []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		quote, backslash := w^'"'*ones, w^'\\'*ones
		// The high bit of a byte below 0x20, or of one equal to 0 after
		// the exclusive or, is set in some byte of these exactly when
		// there is such a byte (the classic tests for a zero or smaller
		// byte in a word).
		if ((w-0x20*ones)&^w|(quote-ones)&^quote|(backslash-ones)&^backslash)&highs != 0 {
			break
		}
	}
	for i < len(data) && data[i] != '"' && data[i] != '\\' && data[i] >= 0x20 {
		i++
	}
	return i
}

// escape appends the character of the escape sequence at d.pos to buf.
func (d *decoder) escape(buf []byte) ([]byte, error) {
	at := d.pos
	if d.pos+1 >= len(d.data) {
		return nil, d.fail(at, "unexpected end of JSON in a string")
	}
	c := d.data[d.pos+1]
	d.pos += 2
	if c != 'u' {
		i := strings.IndexByte(`"\/bfnrt`, c)
		if i < 0 {
			return nil, d.fail(at, "invalid escape \\%c", c)
		}
		return append(buf, "\"\\/\b\f\n\r\t"[i]), nil
	}
	r, ok := d.hex4()
	if !ok {
		return nil, d.fail(at, "invalid \\u escape")
	}
	if utf16.IsSurrogate(r) {
		low, ok := d.lowSurrogate(r)
		if !ok {
			return nil, d.fail(at, "string holds a lone UTF-16 surrogate \\u%04x, which is not a character", r)
		}
		r = utf16.DecodeRune(r, low)
	}
	return utf8.AppendRune(buf, r), nil
}

// lowSurrogate reads the \u escape after the high surrogate high, if it is
// the low surrogate that completes it.
func (d *decoder) lowSurrogate(high rune) (rune, bool) {
	if high >= 0xDC00 || !bytes.HasPrefix(d.data[d.pos:], []byte(`\u`)) {
		return 0, false
	}
	d.pos += 2
	low, ok := d.hex4()
	if !ok || low < 0xDC00 || low > 0xDFFF {
		return 0, false
	}
	return low, true
}

func (d *decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.data[d.pos:d.pos+4]), 16, 16)
	if err != nil {
		return 0, false
	}
	d.pos += 4
	return rune(n), true
}
