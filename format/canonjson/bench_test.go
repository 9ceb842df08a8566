package canonjson

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// wideObject is one object with n members in ascending order of name, as
// files usually list them: gowebpki/jcs, which inserts each member into a
// sorted list from its front, walks the whole list for every member.
func wideObject(n int) []byte {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"p%06d": {"type": "string"}`, i)
	}
	b.WriteString("}")
	return []byte(b.String())
}

// BenchmarkCanonicalWide compares this package (decode, then write the
// canonical form) with gowebpki/jcs, whose time grows with the square of
// the number of members.
func BenchmarkCanonicalWide(b *testing.B) {
	for _, n := range []int{10_000, 40_000, 200_000} {
		data := wideObject(n)
		b.Run(fmt.Sprintf("canonjson/members=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				v, err := Decode(data, Limits{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Canonical(v); err != nil {
					b.Fatal(err)
				}
			}
		})
		if n > 40_000 {
			continue // minutes for gowebpki/jcs
		}
		b.Run(fmt.Sprintf("gowebpki-jcs/members=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := jcs.Transform(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
