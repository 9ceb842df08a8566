package schemadiff

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// checkPacks fails the test unless r packs to a string that is not "" and
// unpacks to r.
func checkPacks(t *testing.T, r Result) {
	t.Helper()
	p := r.Pack()
	if p == "" {
		t.Fatalf("%+v packs to \"\", which stands for no Result", r)
	}
	if got := p.Unpack(); got == nil || !reflect.DeepEqual(*got, r) {
		t.Fatalf("%+v packed and unpacked = %+v", r, got)
	}
}

func TestPackedRoundTrips(t *testing.T) {
	for _, tc := range compareCases {
		before, after := decode(t, tc.before), decode(t, tc.after)
		checkPacks(t, Compare(before, after))
		checkPacks(t, Compare(after, before))
	}
	long := strings.Repeat("\x00\xff`é", 100) // lengths over a byte, bytes any
	checkPacks(t, Result{Class: Breaking, Changes: []Change{{Pointer: "/" + long, Class: Breaking, Text: long}},
		Migration: Migration{Add: []string{"/a", long}, Remove: []string{""}, Rename: map[string]string{long: "", "/b": "/c"},
			Retype: map[string]Retype{"/d": {From: "string", To: long}, long: {}}}})
	if Packed("").Unpack() != nil {
		t.Error(`Packed("").Unpack() is not nil`)
	}
}

// The classes Unpack gives are the constants, not parts of the packed
// string: a class is kept long, and a part would keep all of it.
func TestUnpackedClassesAreTheConstants(t *testing.T) {
	packed := Result{Class: Breaking, Changes: []Change{
		{Pointer: "/inputSchema/properties/a", Class: Breaking, Text: "parameter `a` removed"},
		{Pointer: "/inputSchema/properties/b", Class: Compatible, Text: "new optional parameter `b`"},
		{Pointer: "/description", Class: Cosmetic, Text: "description changed"},
	}}.Pack()
	r := packed.Unpack()
	classes := []Class{r.Class}
	for _, c := range r.Changes {
		classes = append(classes, c.Class)
	}
	for i, want := range []Class{Breaking, Breaking, Compatible, Cosmetic} {
		if c := classes[i]; c != want || unsafe.StringData(string(c)) != unsafe.StringData(string(want)) {
			t.Errorf("class %d: %q is not the constant %q", i, c, want)
		}
	}
}

// Pack makes the packed string once, at its size.
func TestPackAllocatesOnce(t *testing.T) {
	r := Result{Class: Breaking, Changes: []Change{{Pointer: "/a", Class: Breaking, Text: strings.Repeat("text ", 100)}},
		Migration: Migration{Add: []string{"/b"}}}
	if n := testing.AllocsPerRun(10, func() { r.Pack() }); n != 1 {
		t.Errorf("Pack allocated %v times, want once", n)
	}
}
