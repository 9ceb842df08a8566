package canonjson

import (
	"bytes"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// TransformFunc calls fn with the RFC 8785 form of a JSON document, in a
// buffer fn may not keep, and returns fn's error or the one Canonical
// returns for the value Decode returns. A well-formed document is written
// out as it is read, in one pass that builds no values: a long history's
// tool files cost their reading, not a tree each, and a caller that copies
// the form elsewhere no slice of its own. Anything that pass finds wrong
// is decided by Decode.
func TransformFunc(data []byte, lim Limits, fn func(canonical []byte) error) error {
	if !bytes.HasPrefix(data, bom) && utf8.Valid(data) {
		t := transformers.Get().(*transformer)
		t.decoder = decoder{data: data, lim: lim}
		t.out = t.out[:0]
		ok := t.value(0) == nil
		if ok {
			t.skipSpace()
			ok = t.pos == len(t.data)
		}
		var err error
		if ok {
			err = fn(t.out)
		}
		t.decoder, t.members = decoder{}, t.members[:0]
		transformers.Put(t)
		if ok {
			return err
		}
	}
	v, err := Decode(data, lim)
	if err != nil {
		return err
	}
	canonical, err := Canonical(v)
	if err != nil {
		return err
	}
	return fn(canonical)
}

// transformers keep the buffers of transformers done: a long history's
// tool files are transformed one after another.
var transformers = sync.Pool{New: func() any { return new(transformer) }}

// transformer writes the canonical form of a document as it reads it. Its
// errors only say that Decode must decide: their words are not shown.
type transformer struct {
	decoder
	out     []byte
	members []member // the members of the objects being read, innermost last
	scratch []byte   // an object's members, in order, before they go back to out
}

// member is one member of an object written to out: its key, decoded, and
// where "key":value is in out.
type member struct {
	key        []byte
	start, end int
}

func (t *transformer) value(depth int) error {
	t.skipSpace()
	if t.pos >= len(t.data) {
		return errSyntax
	}
	switch c := t.data[t.pos]; {
	case c == '{' || c == '[':
		if t.lim.Depth > 0 && depth >= t.lim.Depth || depth >= maxNesting {
			return errSyntax
		}
		if c == '{' {
			return t.object(depth + 1)
		}
		return t.array(depth + 1)
	case c == '"':
		_, err := t.string()
		return err
	case c == 't':
		return t.literal("true")
	case c == 'f':
		return t.literal("false")
	case c == 'n':
		return t.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return t.number()
	default:
		return errSyntax
	}
}

func (t *transformer) literal(word string) error {
	if err := t.decoder.literal(word); err != nil {
		return err
	}
	t.out = append(t.out, word...)
	return nil
}

// object writes the object at t.pos with its members in RFC 8785 order:
// as they come when they come in that order, as files often list them,
// else sorted once the object is read.
func (t *transformer) object(depth int) error {
	t.pos++ // {
	start, base := len(t.out), len(t.members)
	defer func() { t.members = t.members[:base] }()
	t.out = append(t.out, '{')
	sorted := true
	for first := true; ; first = false {
		end, err := t.next('}', first)
		if err != nil {
			return err
		}
		if end {
			break
		}
		if !first {
			t.out = append(t.out, ',')
		}
		m := member{start: len(t.out)}
		if m.key, err = t.string(); err != nil {
			return err
		}
		if t.skipSpace(); t.pos >= len(t.data) || t.data[t.pos] != ':' {
			return errSyntax
		}
		t.pos++
		t.out = append(t.out, ':')
		if err := t.value(depth); err != nil {
			return err
		}
		m.end = len(t.out)
		if !first && compareUTF16(t.members[len(t.members)-1].key, m.key) >= 0 {
			sorted = false
		}
		t.members = append(t.members, m)
	}
	members := t.members[base:]
	if t.properties += len(members); t.lim.Properties > 0 && t.properties > t.lim.Properties {
		return errSyntax
	}
	if !sorted {
		if err := t.reorder(start+1, members); err != nil {
			return err
		}
	}
	t.out = append(t.out, '}')
	return nil
}

// reorder sorts the members written from out[from:] on, which a duplicate
// key makes an error.
func (t *transformer) reorder(from int, members []member) error {
	slices.SortFunc(members, func(a, b member) int { return compareUTF16(a.key, b.key) })
	t.scratch = t.scratch[:0]
	for i, m := range members {
		if i > 0 {
			if bytes.Equal(members[i-1].key, m.key) {
				return errSyntax
			}
			t.scratch = append(t.scratch, ',')
		}
		t.scratch = append(t.scratch, t.out[m.start:m.end]...)
	}
	t.out = append(t.out[:from], t.scratch...)
	return nil
}

func (t *transformer) array(depth int) error {
	t.pos++ // [
	t.out = append(t.out, '[')
	for first := true; ; first = false {
		end, err := t.next(']', first)
		if err != nil {
			return err
		}
		if end {
			t.out = append(t.out, ']')
			return nil
		}
		if !first {
			t.out = append(t.out, ',')
		}
		if err := t.value(depth); err != nil {
			return err
		}
	}
}

// string writes the string at t.pos and returns it, decoded. One without
// escapes is its own canonical form.
func (t *transformer) string() ([]byte, error) {
	start := t.pos
	if start >= len(t.data) || t.data[start] != '"' {
		return nil, errSyntax
	}
	i := plainEnd(t.data, start+1)
	if i < len(t.data) && t.data[i] == '"' {
		t.pos = i + 1
		t.out = append(t.out, t.data[start:t.pos]...)
		return t.data[start+1 : i], nil
	}
	s, err := t.decoder.string()
	if err != nil {
		return nil, err
	}
	t.out = appendString(t.out, s)
	return []byte(s), nil
}

// number writes the number at t.pos in ECMAScript's form. An integer of at
// most 15 digits, which a float64 holds exactly, is already in it, but
// for -0.
func (t *transformer) number() error {
	start := t.pos
	if err := t.numberText(); err != nil {
		return err
	}
	text := t.data[start:t.pos]
	digits := text
	if text[0] == '-' {
		digits = text[1:]
	}
	if len(digits) <= 15 && !bytes.ContainsAny(digits, ".eE") && string(text) != "-0" {
		t.out = append(t.out, text...)
		return nil
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		return err
	}
	s, err := jcs.NumberToJSON(f)
	if err != nil {
		return err
	}
	t.out = append(t.out, s...)
	return nil
}

// Members calls fn with each member of the object a canonical form (as
// TransformFunc or Canonical write it) holds, in order, until fn returns
// false: its key as written, escapes kept, and its value's text. It builds
// no values, for a check of a document's outer members. It reports whether
// the form is an object.
func Members(canonical []byte, fn func(key, value []byte) bool) bool {
	if len(canonical) < 2 || canonical[0] != '{' {
		return false
	}
	for pos := 1; pos < len(canonical) && canonical[pos] == '"'; {
		colon := valueEnd(canonical, pos)
		if colon >= len(canonical) || canonical[colon] != ':' {
			break
		}
		end := valueEnd(canonical, colon+1)
		if !fn(canonical[pos+1:colon-1], canonical[colon+1:end]) {
			break
		}
		pos = end + 1 // after the comma, if there is one
	}
	return true
}

// valueEnd returns where the value at canonical[pos:] ends. In a canonical
// form nothing but a string holds white space or a bracket, and a string
// needs no more than its escaped quotes told apart. Strings hold most of a
// tool file's bytes: plainEnd skips their plain runs eight bytes at a time.
func valueEnd(canonical []byte, pos int) int {
	open := 0
	for ; pos < len(canonical); pos++ {
		switch canonical[pos] {
		case '"':
			for pos = plainEnd(canonical, pos+1); pos < len(canonical) && canonical[pos] != '"'; pos = plainEnd(canonical, pos+1) {
				if canonical[pos] == '\\' {
					pos++ // the escaped character, which may be a quote
				}
			}
			if open == 0 {
				return min(pos+1, len(canonical))
			}
		case '{', '[':
			open++
		case '}', ']':
			if open == 0 {
				return pos // the end of the object or array around the value
			}
			if open--; open == 0 {
				return pos + 1
			}
		case ',':
			if open == 0 {
				return pos
			}
		}
	}
	return pos
}
