package canonjson

import (
	"bytes"
	"reflect"
	"testing"
)

// DecodeFormInto decodes what Decode decodes, whatever the earlier version.
func FuzzDecodeForm(f *testing.F) {
	f.Add([]byte(`{"a":{"x":[1,{"y":2}]},"b":{"z":3}}`), []byte(`{"a":{"x":[1,{"y":2}]},"b":{"z":4}}`))
	f.Add([]byte(`[{"a":1},{"a":1},{"a":1}]`), []byte(`[{"a":1},{"a":1}]`))
	f.Add([]byte(`{"k":{"x":1}}`), []byte(`{"j":{"x":1},"k":{"x":1}}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ca, errA := transformed(a, Limits{})
		cb, errB := transformed(b, Limits{})
		if errA != nil || errB != nil {
			return
		}
		before, err := decodeForm(ca, nil)
		if err != nil {
			t.Fatalf("decodeForm(%q): %v", ca, err)
		}
		for _, like := range []*Form{before, nil} {
			after, err := decodeForm(cb, like)
			if err != nil {
				t.Fatalf("decodeForm(%q) like %q: %v", cb, ca, err)
			}
			if got, _ := Canonical(after.Value); !bytes.Equal(got, cb) {
				t.Fatalf("decodeForm(%q) like %q = %q", cb, ca, got)
			}
			// And again from the form just made, as a history goes on.
			again, err := decodeForm(ca, after)
			if got, _ := Canonical(again.Value); err != nil || !bytes.Equal(got, ca) {
				t.Fatalf("decodeForm(%q) like %q = %q, %v", ca, cb, got, err)
			}
		}
	})
}

// The values a change did not touch are the earlier version's own.
func TestDecodeFormShares(t *testing.T) {
	before, err := decodeForm([]byte(`{"a":{"x":[1,{"y":2}]},"b":{"z":3},"c":{"w":[]}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	after, err := decodeForm([]byte(`{"a":{"x":[1,{"y":2}]},"b":{"z":4},"c":{"w":[]}}`), before)
	if err != nil {
		t.Fatal(err)
	}
	b, a := before.Value.(map[string]any), after.Value.(map[string]any)
	same := func(k string) bool {
		return reflect.ValueOf(b[k]).UnsafePointer() == reflect.ValueOf(a[k]).UnsafePointer()
	}
	if !same("a") || !same("c") || same("b") {
		t.Errorf("shared a %v, b %v, c %v; want a and c only", same("a"), same("b"), same("c"))
	}
}

// A form decoded into one no longer used reads the same values as one
// decoded anew, holds none of the bytes it was read from (a reader reuses
// them), and leaves alone the values of the form it was before, which a
// later version may share.
func TestDecodeFormIntoReusesOnlyTheRecords(t *testing.T) {
	versions := []string{
		`{"a":{"x":[1,{"y":"two"}]},"b":{"z":3}}`,
		`{"a":{"x":[1,{"y":"two"}]},"b":{"z":4}}`,
		`{"a":{"w":{},"x":[1,{"y":"three"}]},"b":{"z":4},"c":["long","er"]}`,
		`{"b":{"z":4}}`,
	}
	buf := []byte(versions[0])
	older, newer := &Form{}, &Form{}
	if err := DecodeFormInto(older, buf, nil); err != nil {
		t.Fatal(err)
	}
	var held []any // each version's value, as its form left it
	for _, v := range versions[1:] {
		held = append(held, older.Value)
		text := []byte(v)
		if err := DecodeFormInto(newer, text, older); err != nil {
			t.Fatal(err)
		}
		for i := range text {
			text[i] = ' ' // the reader's next version
		}
		if got, _ := Canonical(newer.Value); string(got) != v {
			t.Errorf("decoded into a form used before: %s, want %s", got, v)
		}
		older, newer = newer, older
	}
	for i, v := range held {
		if got, _ := Canonical(v); string(got) != versions[i] {
			t.Errorf("version %d after its form was reused: %s, want %s", i, got, versions[i])
		}
	}
	if err := DecodeFormInto(newer, []byte(`{"a":`), older); err == nil || newer.Value != nil {
		t.Errorf("a form cut short: %v, value %v; want an error and no value", err, newer.Value)
	}
}

// decodeForm is DecodeFormInto a new Form.
func decodeForm(canonical []byte, like *Form) (*Form, error) {
	f := &Form{}
	if err := DecodeFormInto(f, canonical, like); err != nil {
		return nil, err
	}
	return f, nil
}
