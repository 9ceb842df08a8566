package schemadiff

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/canonjson"
)

// shared decodes two versions of a tool as a history replay does: the newer
// one shares, object for object, what the older one's canonical form has in
// common with it, so that unchanged subtrees are the very same values.
func shared(t *testing.T, before, after string) (b, a map[string]any) {
	t.Helper()
	form := func(s string, like *canonjson.Form) *canonjson.Form {
		v, err := canonjson.Decode([]byte(s), canonjson.Limits{})
		if err != nil {
			t.Fatalf("test JSON %s: %v", s, err)
		}
		c, err := canonjson.Canonical(v)
		if err != nil {
			t.Fatalf("test JSON %s: %v", s, err)
		}
		f := &canonjson.Form{}
		if err := canonjson.DecodeFormInto(f, c, like); err != nil {
			t.Fatalf("canonical form %s: %v", c, err)
		}
		return f
	}
	fb := form(before, nil)
	fa := form(after, fb)
	return fb.Value.(map[string]any), fa.Value.(map[string]any)
}

// TestSharedVersionsCompareLikeCopies checks that the shortcuts taken for
// values two versions share (the same object, or equal JSON) hide no
// change: every case of the table, both ways, compares the same whether
// the versions share their unchanged parts or are separate copies.
func TestSharedVersionsCompareLikeCopies(t *testing.T) {
	for _, tc := range append(compareCases, fastPathCases...) {
		for _, way := range [][2]string{{tc.before, tc.after}, {tc.after, tc.before}} {
			b, a := shared(t, way[0], way[1])
			got := Compare(b, a)
			want := Compare(decode(t, way[0]), decode(t, way[1]))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: with shared values:\n%s%s\nwith copies:\n%s%s", tc.name,
					got.Class, changeLines(got.Changes), want.Class, changeLines(want.Changes))
			}
		}
	}
}

// TestComparedWithoutRefsLikeCompare checks that CompareWithoutRefs
// gives what Compare gives for every case of the table with a side
// without a "$ref", both ways, whether the versions share their unchanged
// parts or not.
func TestComparedWithoutRefsLikeCompare(t *testing.T) {
	compared := 0
	for _, tc := range append(compareCases, fastPathCases...) {
		if strings.Contains(tc.before, "$ref") && strings.Contains(tc.after, "$ref") {
			continue
		}
		compared++
		for _, way := range [][2]string{{tc.before, tc.after}, {tc.after, tc.before}} {
			b, a := shared(t, way[0], way[1])
			for _, pair := range [][2]map[string]any{{b, a}, {decode(t, way[0]), decode(t, way[1])}} {
				got, want := CompareWithoutRefs(pair[0], pair[1]), Compare(pair[0], pair[1])
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: without refs:\n%s%s\nCompare:\n%s%s", tc.name,
						got.Class, changeLines(got.Changes), want.Class, changeLines(want.Changes))
				}
			}
		}
	}
	if compared < 100 {
		t.Fatalf("only %d cases without a $ref", compared)
	}
}

// TestFastPaths checks the cases of a changed schema in which most members
// did not change, each way: a change next to unchanged properties is still
// found, however the versions were decoded.
func TestFastPaths(t *testing.T) {
	for _, tc := range fastPathCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, sharing := range []bool{false, true} {
				b, a := decode(t, tc.before), decode(t, tc.after)
				if sharing {
					b, a = shared(t, tc.before, tc.after)
				}
				got := Compare(b, a)
				if got.Class != tc.class || !reflect.DeepEqual(got.Changes, tc.changes) || !reflect.DeepEqual(got.Migration, tc.migration) {
					t.Errorf("sharing %v: %s %s\n%s\nwant %s %s\n%s", sharing, got.Class, jsonText(got.Migration), changeLines(got.Changes),
						tc.class, jsonText(tc.migration), changeLines(tc.changes))
				}
			}
		})
	}
}

const (
	siblings      = `"units":{"type":"string","enum":["metric","imperial"]},"days":{"type":"integer","minimum":1}`
	options       = `"options":{"type":"object","properties":{"format":{"type":"string"},"timeout":{"type":"integer","default":30}}}`
	optionsLonger = `"options":{"type":"object","properties":{"format":{"type":"string"},"timeout":{"type":"integer","default":60}}}`
	readOnly      = `"annotations":{"readOnlyHint":true}`
)

// fastPathCases each change one thing among many that stay as they are.
var fastPathCases = []compareCase{
	{
		name:    "required added among unchanged properties",
		before:  in(object(city+","+siblings, "city")),
		after:   in(object(city+","+siblings, "city", "days")),
		class:   Breaking,
		changes: []Change{{"/inputSchema/properties/days", Breaking, "parameter `days` is now required"}},
	},
	{
		name:    "required removed among unchanged properties",
		before:  in(object(city+","+siblings, "city", "days")),
		after:   in(object(city+","+siblings, "city")),
		class:   Compatible,
		changes: []Change{{"/inputSchema/properties/days", Compatible, "parameter `days` is now optional"}},
	},
	{
		name:   "nested default changed among unchanged properties",
		before: in(object(city+","+siblings+","+options, "city")),
		after:  in(object(city+","+siblings+","+optionsLonger, "city")),
		class:  Breaking,
		changes: []Change{{"/inputSchema/properties/options/properties/timeout/default", Breaking,
			"default of `options.timeout` changed from `30` to `60`: a call that omits it now behaves differently"}},
	},
	{
		name:   "nested default changed back among unchanged properties",
		before: in(object(city+","+siblings+","+optionsLonger, "city")),
		after:  in(object(city+","+siblings+","+options, "city")),
		class:  Breaking,
		changes: []Change{{"/inputSchema/properties/options/properties/timeout/default", Breaking,
			"default of `options.timeout` changed from `60` to `30`: a call that omits it now behaves differently"}},
	},
	{
		name:    "annotation changed next to an unchanged schema",
		before:  `{"name":"weather",` + readOnly + `,"inputSchema":` + object(city+","+siblings, "city") + `}`,
		after:   `{"name":"weather","annotations":{"readOnlyHint":false},"inputSchema":` + object(city+","+siblings, "city") + `}`,
		class:   Breaking,
		changes: []Change{{"/annotations/readOnlyHint", Breaking, "tool is no longer read-only"}},
	},
	{
		name:    "annotation changed back next to an unchanged schema",
		before:  `{"name":"weather","annotations":{"readOnlyHint":false},"inputSchema":` + object(city+","+siblings, "city") + `}`,
		after:   `{"name":"weather",` + readOnly + `,"inputSchema":` + object(city+","+siblings, "city") + `}`,
		class:   Compatible,
		changes: []Change{{"/annotations/readOnlyHint", Compatible, "tool is now read-only"}},
	},
	{
		name:    "_meta entry added next to unchanged annotations",
		before:  `{"name":"weather",` + readOnly + `,"inputSchema":{"type":"object"}}`,
		after:   `{"name":"weather",` + readOnly + `,"_meta":{"x":1},"inputSchema":{"type":"object"}}`,
		class:   Cosmetic,
		changes: []Change{{"/_meta/x", Cosmetic, "`_meta` entry `x` added"}},
	},
	{
		name:    "reference target changed under an unchanged property",
		before:  in(`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},` + siblings + `},"$defs":{"A":{"type":"string"}}}`),
		after:   in(`{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},` + siblings + `},"$defs":{"A":{"type":"string","maxLength":5}}}`),
		class:   Breaking,
		changes: []Change{{"/inputSchema/properties/a/maxLength", Breaking, "`maxLength` of `a` set to 5"}},
	},
	{
		name:    "if added to a then that applied to nothing",
		before:  in(`{"type":"object","then":{"required":["a"]}}`),
		after:   in(`{"type":"object","if":{"required":["b"]},"then":{"required":["a"]}}`),
		class:   Breaking,
		changes: []Change{{"/inputSchema/then", Breaking, "`then` of input schema added: accepts less"}},
	},
}
