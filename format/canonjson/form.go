package canonjson

import (
	"bytes"
	"sort"
)

// A Form is a canonical form decoded, with where each of its objects and
// arrays is in it: what DecodeFormInto needs to decode the next version of a
// document without decoding again what did not change.
type Form struct {
	Value any // as Decode returns it
	text  []byte
	spans []span // the objects and arrays, in the order they open

	// like is the earlier version being reused while the form is read,
	// over the bytes both begin with (prefix) and end with (suffix).
	like           *Form
	prefix, suffix int
}

// span is one object or array of a Form: text[start:end] is its JSON.
type span struct {
	start, end int
	value      any
}

// DecodeFormInto decodes a canonical form (as TransformFunc or Canonical
// write it) into f. When like is not nil, each object and array the form
// shares with like, byte for byte, in the part both begin with or in the
// part both end with, is like's own value, not a copy: two versions of a
// document that differ in one place cost that place to decode, and share
// every value the change did not touch. Values are shared, so neither may
// be changed. The form holds canonical, which is not to be changed while
// it is used.
//
// f is a new Form, or one decoded before that no one uses any more, whose
// records of where each object and array lies it reuses: a replay decodes
// a version after another, and making them anew each time cost a tenth of
// what it allocated. Its values are not reused, since a later form may
// share them. like must not be f. When the form does not decode, f holds
// no value.
func DecodeFormInto(f *Form, canonical []byte, like *Form) error {
	clear(f.spans) // the values they hold are not held from here
	*f = Form{text: canonical, like: like, spans: f.spans[:0]}
	if like != nil {
		// A version like the one before has about as many objects and
		// arrays: its spans are made once, not grown, and memory made for
		// a far larger form is not held for this one.
		if n := len(like.spans) + len(like.spans)/8; cap(f.spans) < n || cap(f.spans) > 2*n+16 {
			f.spans = make([]span, 0, n)
		}
		a, b := canonical, like.text
		f.prefix = commonPrefix(a, b)
		// The two parts do not overlap in either version, so no value of
		// like is shared twice.
		f.suffix = commonSuffix(a[f.prefix:], b[f.prefix:])
	}
	d := decoder{data: canonical, form: f}
	v, err := d.document()
	f.like = nil
	if err != nil {
		return err
	}
	f.Value = v
	return nil
}

// container decodes the object or array at d.pos, opening with c, or takes
// the value like has for it, and records where it is.
func (d *decoder) container(c byte, depth int) (any, error) {
	f := d.form
	if v, end, ok := f.share(d.pos); ok {
		d.pos = end
		return v, nil
	}
	i := len(f.spans)
	f.spans = append(f.spans, span{start: d.pos})
	var v any
	var err error
	if c == '{' {
		v, err = d.object(depth)
	} else {
		v, err = d.array(depth)
	}
	f.spans[i].end, f.spans[i].value = d.pos, v
	return v, err
}

// share returns like's value for the object or array at offset p, and
// where it ends, when like has one there that the shared prefix or suffix
// holds whole; it records its span, and those of the values it holds, at
// their offsets in f.
func (f *Form) share(p int) (v any, end int, ok bool) {
	if f.like == nil {
		return nil, 0, false
	}
	inSuffix := p >= len(f.text)-f.suffix
	shift := 0 // f's offset of a shared byte minus like's
	if inSuffix {
		shift = len(f.text) - len(f.like.text)
	}
	spans, q := f.like.spans, p-shift
	k := sort.Search(len(spans), func(k int) bool { return spans[k].start >= q })
	if k == len(spans) || spans[k].start != q || !inSuffix && spans[k].end > f.prefix {
		return nil, 0, false
	}
	for j := k; j < len(spans) && spans[j].start < spans[k].end; j++ {
		s := spans[j]
		f.spans = append(f.spans, span{s.start + shift, s.end + shift, s.value})
	}
	return spans[k].value, spans[k].end + shift, true
}

// commonPrefix returns the length of the longest prefix a and b share,
// comparing them a block at a time (bytes.Equal is vectorised) before the
// bytes of the block that differs.
func commonPrefix(a, b []byte) int {
	const block = 64
	n, i := min(len(a), len(b)), 0
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix returns the length of the longest suffix a and b share.
func commonSuffix(a, b []byte) int {
	const block = 64
	n, i := min(len(a), len(b)), 0
	for i+block <= n && bytes.Equal(a[len(a)-i-block:len(a)-i], b[len(b)-i-block:len(b)-i]) {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
