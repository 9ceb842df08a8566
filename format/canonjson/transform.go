package canonjson

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// Transform returns the RFC 8785 form of a JSON document: what Canonical
// returns for the value Decode returns, errors included. A well-formed
// document is written out as it is read, in one pass that builds no values:
// a long history's tool files cost their reading, not a tree each. Anything
// that pass finds wrong is decided by Decode.
func Transform(data []byte, lim Limits) ([]byte, error) {
	if !bytes.HasPrefix(data, bom) && utf8.Valid(data) {
		t := transformer{decoder: decoder{data: data, lim: lim}, out: make([]byte, 0, len(data))}
		if t.value(0) == nil {
			if t.skipSpace(); t.pos == len(t.data) {
				return t.out, nil
			}
		}
	}
	v, err := Decode(data, lim)
	if err != nil {
		return nil, err
	}
	return Canonical(v)
}

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
	i := start + 1
	for i < len(t.data) && t.data[i] != '"' && t.data[i] != '\\' && t.data[i] >= 0x20 {
		i++
	}
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

// Outline decodes a canonical form (as Transform or Canonical write it)
// as Decode would, but for the objects and arrays nested more than depth
// deep, which it decodes empty: a check that needs a document's outer
// members reads them without building the rest.
func Outline(canonical []byte, depth int) (any, error) {
	d := decoder{data: canonical, outline: depth}
	return d.document()
}

// skip passes over the object or array at d.pos, which opens with c, and
// returns it empty. The document is a canonical form: its strings need
// no more than their escaped quotes told apart.
func (d *decoder) skip(c byte) (any, error) {
	open := 0
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case '"':
			for d.pos++; d.pos < len(d.data) && d.data[d.pos] != '"'; d.pos++ {
				if d.data[d.pos] == '\\' {
					d.pos++ // the escaped character, which may be a quote
				}
			}
		case '{', '[':
			open++
		case '}', ']':
			open--
		}
		d.pos++
		if open == 0 {
			if c == '{' {
				return map[string]any{}, nil
			}
			return []any{}, nil
		}
	}
	return nil, d.fail(d.pos, "unexpected end of JSON")
}
