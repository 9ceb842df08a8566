package schemadiff

import (
	"encoding/binary"
	"strings"
)

// Packed is a Result kept in one string, for a Result held long: a long
// history's timeline holds one for every version, and as a struct of
// slices, strings and maps each cost several times the bytes of its
// texts. Unpack gives the Result back, equal to the one packed; its
// strings are parts of the packed one, not copies.
//
// The string is a run of fields, each a string (its length as a uvarint,
// then its bytes) or a count (a uvarint): the class; Migration's Add and
// Remove, each a count and its pointers; Rename, a count and each old and
// new pointer, by old pointer; Retype, a count and each pointer, from and
// to, by pointer; then Changes, a count and each change's pointer, class
// and text. No Result packs to "", which stands for none.
type Packed string

// Pack packs r. It measures the string before it makes it, once and at
// its size: grown as it was written and then copied, it cost a long
// history's replay three times its size.
func (r Result) Pack() Packed {
	size := packer{measuring: true}
	r.pack(&size)
	var p packer
	p.b.Grow(size.n)
	r.pack(&p)
	return Packed(p.b.String())
}

func (r Result) pack(p *packer) {
	p.string(string(r.Class))
	p.strings(r.Migration.Add)
	p.strings(r.Migration.Remove)
	p.count(len(r.Migration.Rename))
	for _, from := range sortedKeys(r.Migration.Rename) {
		p.string(from)
		p.string(r.Migration.Rename[from])
	}
	p.count(len(r.Migration.Retype))
	for _, at := range sortedKeys(r.Migration.Retype) {
		p.string(at)
		p.string(r.Migration.Retype[at].From)
		p.string(r.Migration.Retype[at].To)
	}
	p.count(len(r.Changes))
	for _, c := range r.Changes {
		p.string(c.Pointer)
		p.string(string(c.Class))
		p.string(c.Text)
	}
}

// Unpack returns the Result p packs, nil for "". Empty slices and maps
// come back nil, as Compare leaves them.
func (p Packed) Unpack() *Result {
	if p == "" {
		return nil
	}
	u := unpacker{s: string(p)}
	r := &Result{Class: u.class()}
	r.Migration.Add = u.strings()
	r.Migration.Remove = u.strings()
	if n := u.count(); n > 0 {
		r.Migration.Rename = make(map[string]string, n)
		for range n {
			from := u.string()
			r.Migration.Rename[from] = u.string()
		}
	}
	if n := u.count(); n > 0 {
		r.Migration.Retype = make(map[string]Retype, n)
		for range n {
			at := u.string()
			r.Migration.Retype[at] = Retype{From: u.string(), To: u.string()}
		}
	}
	if n := u.count(); n > 0 {
		r.Changes = make([]Change, n)
		for i := range r.Changes {
			r.Changes[i] = Change{Pointer: u.string(), Class: u.class(), Text: u.string()}
		}
	}
	return r
}

// packer writes the fields of a Packed, or only counts their bytes.
type packer struct {
	measuring bool
	n         int // the bytes counted
	b         strings.Builder
}

func (p *packer) count(n int) {
	var buf [binary.MaxVarintLen64]byte
	field := binary.AppendUvarint(buf[:0], uint64(n))
	if p.measuring {
		p.n += len(field)
		return
	}
	p.b.Write(field)
}

func (p *packer) string(s string) {
	p.count(len(s))
	if p.measuring {
		p.n += len(s)
		return
	}
	p.b.WriteString(s)
}

func (p *packer) strings(ss []string) {
	p.count(len(ss))
	for _, s := range ss {
		p.string(s)
	}
}

// unpacker reads the fields of a Packed, which Pack wrote: it trusts
// them.
type unpacker struct{ s string }

func (u *unpacker) count() int {
	var n uint64
	for shift := 0; ; shift += 7 {
		b := u.s[0]
		u.s = u.s[1:]
		n |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return int(n)
		}
	}
}

func (u *unpacker) string() string {
	n := u.count()
	s := u.s[:n]
	u.s = u.s[n:]
	return s
}

// class reads a Class as the constant of the same name: a class is kept
// long (a page's badge), and a part of the packed string would keep all
// of it.
func (u *unpacker) class() Class {
	switch c := Class(u.string()); c {
	case Breaking:
		return Breaking
	case Compatible:
		return Compatible
	case Cosmetic:
		return Cosmetic
	default:
		return c
	}
}

func (u *unpacker) strings() []string {
	n := u.count()
	if n == 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = u.string()
	}
	return ss
}
