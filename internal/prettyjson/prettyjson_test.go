package prettyjson

import "testing"

func TestMarshal(t *testing.T) {
	got, err := Marshal(map[string]any{"b": "<a & b>", "a": []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": [\n    1\n  ],\n  \"b\": \"<a & b>\"\n}\n"
	if string(got) != want {
		t.Errorf("Marshal = %q, want %q", got, want)
	}
}

func TestMarshalError(t *testing.T) {
	if _, err := Marshal(func() {}); err == nil {
		t.Error("Marshal of a func: no error")
	}
}
