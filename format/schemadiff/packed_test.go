package schemadiff

import (
	"reflect"
	"strings"
	"testing"
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
