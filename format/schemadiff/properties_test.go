package schemadiff

import (
	"encoding/json"
	"reflect"
	"testing"
)

// corpus returns every tool object of the table test, each decoded twice so
// that the two copies share no maps.
func corpus(t *testing.T) [][2]map[string]any {
	var tools [][2]map[string]any
	for _, tc := range compareCases {
		for _, s := range []string{tc.before, tc.after} {
			tools = append(tools, [2]map[string]any{decode(t, s), decode(t, s)})
		}
	}
	return tools
}

func TestCompareEqualIsEmpty(t *testing.T) {
	for _, tool := range corpus(t) {
		for _, got := range []Result{Compare(tool[0], tool[0]), Compare(tool[0], tool[1])} {
			if !reflect.DeepEqual(got, Result{}) {
				t.Errorf("Compare(x, x) for %s = %+v, want an empty Result", jsonText(tool[0]), got)
			}
		}
	}
}

func TestCompareIsDeterministic(t *testing.T) {
	for _, tc := range compareCases {
		first := Compare(decode(t, tc.before), decode(t, tc.after))
		for range 5 {
			if again := Compare(decode(t, tc.before), decode(t, tc.after)); !reflect.DeepEqual(first, again) {
				t.Fatalf("%s: Compare gave %+v, then %+v", tc.name, first, again)
			}
		}
	}
}

func TestWideningIsNeverBreaking(t *testing.T) {
	for _, tool := range corpus(t) {
		checkWidenings(t, tool[0])
	}
}

func TestCompareReportsEveryDifference(t *testing.T) {
	tools := corpus(t)
	for _, a := range tools {
		for _, b := range tools {
			checkInvariants(t, a[0], b[0])
		}
	}
}

// checkInvariants asserts what holds for any two tool objects: the class is
// a known one and empty exactly when there are no changes, and objects whose
// JSON differs always yield a change.
func checkInvariants(t *testing.T, before, after map[string]any) {
	t.Helper()
	got := Compare(before, after)
	switch got.Class {
	case "", Cosmetic, Compatible, Breaking:
	default:
		t.Fatalf("Class = %q", got.Class)
	}
	if (got.Class == "") != (len(got.Changes) == 0) {
		t.Fatalf("Class %q with %d changes", got.Class, len(got.Changes))
	}
	if !sameJSON(before, after) && len(got.Changes) == 0 {
		t.Fatalf("no change reported between\n%s\nand\n%s", jsonText(before), jsonText(after))
	}
	for _, c := range got.Changes {
		if c.Pointer == "" || c.Pointer[0] != '/' || c.Text == "" {
			t.Fatalf("malformed change %+v", c)
		}
	}
	if _, err := json.Marshal(got.Migration); err != nil {
		t.Fatalf("migration does not marshal: %v", err)
	}
}

// Compare changes neither tool object, though it reads the schemas it
// need not rewrite as they are (see normalize): the versions a replay
// compares share their values.
func TestCompareChangesNeitherObject(t *testing.T) {
	tools := corpus(t)
	for _, a := range tools {
		for _, b := range tools {
			Compare(a[0], b[0])
			CompareWithoutRefs(a[0], b[0])
			if !reflect.DeepEqual(a[0], a[1]) || !reflect.DeepEqual(b[0], b[1]) {
				t.Fatalf("comparing %s with %s changed them to %s and %s", jsonText(a[1]), jsonText(b[1]), jsonText(a[0]), jsonText(b[0]))
			}
		}
	}
}
