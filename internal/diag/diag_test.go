package diag

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"testing"
)

// Error prints the location it knows, and nothing for what it does not:
// the CLI puts "wellknown: error: " before it.
func TestErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{Errorf("site.toml", 12, "unknown key %q", "titel"), `site.toml:12: unknown key "titel"`},
		{Errorf("site.toml", 0, "not found"), "site.toml: not found"},
		{Errorf("", 0, "--set %s: bad value", "x=y"), "--set x=y: bad value"},
		{Errorf("", 7, "a line without a file"), "a line without a file"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

// A hint is kept apart from the message, so the CLI prints it on a line of
// its own and --json in a field of its own.
func TestWithHint(t *testing.T) {
	e := Errorf("site.toml", 3, "base_url is not absolute")
	if got := e.WithHint("write it as %s", "https://example.com/"); got != e {
		t.Errorf("WithHint returned another error")
	}
	if e.Hint != "write it as https://example.com/" || e.Error() != "site.toml:3: base_url is not absolute" {
		t.Errorf("hint %q, text %q", e.Hint, e.Error())
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{e, e.Hint},
		{fmt.Errorf("building: %w", e), e.Hint}, // wrapped
		{Errorf("a", 1, "no fix"), ""},
		{errors.New("plain"), ""},
		{nil, ""},
	} {
		if got := Hint(tc.err); got != tc.want {
			t.Errorf("Hint(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// List flattens errors.Join, however nested, in order; a single error is
// a list of one, and nil of none.
func TestList(t *testing.T) {
	a, b, c, d := errors.New("a"), Errorf("f", 1, "b"), errors.New("c"), errors.New("d")
	for _, tc := range []struct {
		err  error
		want []error
	}{
		{nil, nil},
		{a, []error{a}},
		{errors.Join(a, b), []error{a, b}},
		{errors.Join(a, errors.Join(b, c), d), []error{a, b, c, d}},
		{errors.Join(errors.Join(a), errors.Join(b, errors.Join(c, d))), []error{a, b, c, d}},
	} {
		if got := List(tc.err); !slices.Equal(got, tc.want) {
			t.Errorf("List(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
	// A wrapped join is one problem: its wrapper names what failed.
	wrapped := fmt.Errorf("reading: %w", errors.Join(a, b))
	if got := List(wrapped); len(got) != 1 || got[0] != wrapped {
		t.Errorf("List(wrapped join) = %q, want the wrapper alone", got)
	}
}

// JSONError points at the line of the bad byte, and the message names its
// column and offset, for syntax errors and for values of the wrong type.
func TestJSONError(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		target     any
		line       int
		msg        string
	}{
		{"syntax", "{\n  \"a\": 1,\n  \"b\": ]\n}", new(any), 3,
			"invalid JSON at column 8 (byte offset 19): invalid character ']' looking for beginning of value"},
		{"first line", `{"a" 1}`, new(any), 1,
			"invalid JSON at column 6 (byte offset 5): invalid character '1' after object key"},
		// encoding/json reports a type error after the value: the line is
		// still the value's.
		{"type", "{\n\"n\": \"x\"}", new(struct{ N int }), 2,
			`invalid JSON at column 8 (byte offset 9): cannot unmarshal string into Go struct field .N of type int`},
		{"truncated", "{\n\"a\": [1,", new(any), 2,
			"invalid JSON at column 8 (byte offset 9): unexpected end of JSON input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := json.Unmarshal([]byte(tc.data), tc.target)
			if err == nil {
				t.Fatal("no error")
			}
			got := JSONError("x.json", []byte(tc.data), err)
			if got.File != "x.json" || got.Line != tc.line || got.Msg != tc.msg {
				t.Errorf("got %s:%d: %s\nwant x.json:%d: %s", got.File, got.Line, got.Msg, tc.line, tc.msg)
			}
		})
	}
	// An error that is not encoding/json's has no offset: the file as a
	// whole.
	got := JSONError("x.json", nil, errors.New("unexpected EOF"))
	if got.File != "x.json" || got.Line != 0 || got.Msg != "invalid JSON: unexpected EOF" {
		t.Errorf("got %s:%d: %s", got.File, got.Line, got.Msg)
	}
}

// Cause leaves out the operation and path a message already names, and
// keeps any other error whole.
func TestCause(t *testing.T) {
	_, err := os.Open("no-such-file.toml")
	if got := Cause(err); !errors.Is(got, fs.ErrNotExist) || got.Error() != "no such file or directory" {
		t.Errorf("Cause(%v) = %v", err, got)
	}
	wrapped := fmt.Errorf("loading: %w", err)
	if got := Cause(wrapped); got.Error() != "no such file or directory" {
		t.Errorf("Cause(%v) = %v", wrapped, got)
	}
	plain := errors.New("plain")
	if got := Cause(plain); got != plain {
		t.Errorf("Cause(plain) = %v", got)
	}
}
