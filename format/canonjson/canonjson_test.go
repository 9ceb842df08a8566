package canonjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// transformed is TransformFunc's form, copied out.
func transformed(data []byte, lim Limits) ([]byte, error) {
	var out []byte
	err := TransformFunc(data, lim, func(canonical []byte) error {
		out = slices.Clone(canonical)
		return nil
	})
	return out, err
}

func transform(t *testing.T, data []byte) []byte {
	t.Helper()
	v, err := Decode(data, Limits{})
	if err != nil {
		t.Fatalf("Decode(%q): %v", data, err)
	}
	out, err := Canonical(v)
	if err != nil {
		t.Fatalf("Canonical(%q): %v", data, err)
	}
	if direct, err := transformed(data, Limits{}); err != nil || !bytes.Equal(direct, out) {
		t.Errorf("transformed(%q) = %q, %v; Canonical after Decode: %q", data, direct, err, out)
	}
	return out
}

// The RFC 8785 vectors are checked through agentfeed.CanonicalizeJSON,
// which signs with this package.
func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"b":1,"a":[true,false,null]}`, `{"a":[true,false,null],"b":1}`},
		{`{"a":-0,"b":1e21,"c":1e-7,"d":0.000001,"e":100,"f":1.5e300}`, `{"a":0,"b":1e+21,"c":1e-7,"d":0.000001,"e":100,"f":1.5e+300}`},
		{`"\u0000\u001f\u007f\b\f\n\r\t\"\\\/<>&\u2028"`, "\"\\u0000\\u001f\x7f\\b\\f\\n\\r\\t\\\"\\\\/<>&\u2028\""},
		// U+10000 (surrogates D800 DC00) sorts before U+E000 in UTF-16 order.
		{`{"\ue000":1,"\ud800\udc00":2,"a":3,"ab":4,"":5}`, "{\"\":5,\"a\":3,\"ab\":4,\"\U00010000\":2,\"\ue000\":1}"},
		// The same after a common prefix; two characters of one length that
		// first differ in a continuation byte.
		{`{"x\uffff":1,"x\ud83d\ude00":2,"\u00ea":3,"\u00e9":4}`, "{\"x\U0001F600\":2,\"x\uffff\":1,\"\u00e9\":4,\"\u00ea\":3}"},
		{`[]`, `[]`}, {`{}`, `{}`}, {` 1 `, `1`},
		{"{ \"b\" : [ 1 , { \"d\" : 1, \"c\" : 2 } ] ,\n \"a\" : \"\\u0041\" }", `{"a":"A","b":[1,{"c":2,"d":1}]}`},
		{`[-0, 0, -1, 123456789012345, 1234567890123456, 12345678901234567890, 1.0, 10e2]`, `[0,0,-1,123456789012345,1234567890123456,12345678901234567000,1,1000]`},
	} {
		if got := transform(t, []byte(tc.in)); string(got) != tc.want {
			t.Errorf("canonical form of %s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	deep := strings.Repeat("[", 5) + strings.Repeat("]", 5)
	for _, tc := range []struct {
		name, in string
		lim      Limits
		want     string
		limit    bool
	}{
		{"byte-order mark", "\xEF\xBB\xBF{}", Limits{}, "starts with a UTF-8 byte-order mark; save it without one", false},
		{"invalid UTF-8", "{\n\"a\": \"\xff\"}", Limits{}, "line 2: is not valid UTF-8", false},
		{"duplicate key", "{\n \"a\": 1,\n \"b\": {\"x\": 1},\n \"a\": 2\n}", Limits{}, `line 4: duplicate key "a"`, false},
		{"duplicate key after escapes", `{"a": 1, "\u0061": 2}`, Limits{}, `line 1: duplicate key "a"`, false},
		{"lone high surrogate", "{\n\"a\": \"x\\ud800y\"}", Limits{}, `line 2: string holds a lone UTF-16 surrogate \ud800, which is not a character`, false},
		{"lone low surrogate", `["\udc00"]`, Limits{}, `line 1: string holds a lone UTF-16 surrogate \udc00`, false},
		{"high surrogate then another high", `["\ud800\ud800"]`, Limits{}, `line 1: string holds a lone UTF-16 surrogate \ud800`, false},
		{"number out of range", "[\n1e400]", Limits{}, "line 2: number 1e400 is too large", false},
		{"too deep", deep, Limits{Depth: 4}, "line 1: objects and arrays nest more than 4 deep (the limit)", true},
		// encoding/json stops at 10,000 levels, before the limit is counted.
		{"too deep for encoding/json", "\n" + strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001), Limits{Depth: 64}, "line 2: objects and arrays nest more than 64 deep (the limit)", true},
		{"too many properties", "{\"a\": {\"b\": 1,\n\"c\": 2}}", Limits{Properties: 2}, "line 2: more than 2 properties (the limit)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.in), tc.lim)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Decode(%q) = %v, want %q", tc.in, err, tc.want)
			}
			if errors.Is(err, ErrLimit) != tc.limit {
				t.Errorf("errors.Is(%v, ErrLimit) = %v", err, !tc.limit)
			}
		})
	}
	if _, err := Decode([]byte(deep), Limits{Depth: 5}); err != nil {
		t.Errorf("depth 5 at limit 5: %v", err)
	}
	var syntax *json.SyntaxError
	if _, err := Decode([]byte(`{"a": 1,}`), Limits{}); !errors.As(err, &syntax) || syntax.Offset != 9 {
		t.Errorf("a syntax error is %v, want encoding/json's SyntaxError at offset 9", err)
	}
}

// Decode reads a document in one pass that checks the grammar itself: each
// of these is a syntax error, worded by encoding/json.
func TestDecodeSyntaxErrors(t *testing.T) {
	for _, in := range []string{
		`{"a": 1 "b": 2}`, `[1 2]`, `[1,]`, `[,1]`, `{,}`, `{"a" 1}`, `{"a": 1}x`, `{"a": 1}}`,
		`01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`, `-x`, `tru`, `nul`, `[true false]`,
		"\"a\tb\"", "\"a\nb\"", `"\x"`, `"\u12g4"`, `{"a": [}`, ``, ` `,
	} {
		var syntax *json.SyntaxError
		if _, err := Decode([]byte(in), Limits{}); !errors.As(err, &syntax) {
			t.Errorf("Decode(%q) = %v, want encoding/json's SyntaxError", in, err)
		}
	}
}

// Decode agrees with encoding/json on every document both accept.
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	in := `{"s": "a\u00e9\ud83d\ude00\n", "n": [0, -1.5, 2e10, 123456789012345678], "o": {"t": true, "f": false, "z": null}}`
	got, err := Decode([]byte(in), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Errorf("Decode = %s, encoding/json = %s", g, w)
	}
}

// On any document both gowebpki/jcs (the reference this replaces) and
// Decode accept, both give the same bytes; Decode accepts every valid UTF-8
// document the reference does, bar a lone surrogate (which the reference
// turns into another character), and nothing encoding/json rejects.
func FuzzCanonicalMatchesJCS(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,false,null]}`, `[1e21,1e-7,0.1,-0,5e-324,1.7976931348623157e308]`,
		`{"\ue000":1,"\ud800\udc00":2,"a":3}`, `"\u0000\t\u2028<"`, `{"a":{"b":{"c":[{}]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, refErr := jcs.Transform(data)
		v, err := Decode(data, Limits{})
		if err != nil {
			if refErr == nil && utf8.Valid(data) && json.Valid(data) && !strings.Contains(err.Error(), "lone UTF-16 surrogate") {
				t.Fatalf("Decode rejects %q (%v), the reference accepts it", data, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("Decode accepts %q, which is not JSON", data)
		}
		got, err := Canonical(v)
		if err != nil {
			t.Fatalf("Canonical after Decode: %v", err)
		}
		// The reference also rejects some valid documents (a bare number
		// followed by white space): compare where both accept.
		if refErr == nil && !bytes.Equal(got, want) {
			t.Fatalf("canonical form of %q\n got %q\nwant %q", data, got, want)
		}
	})
}

// TransformFunc gives what Decode and Canonical give, errors included, for
// any document and limits.
func FuzzTransformMatchesDecode(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,false,null]}`, `{"a":1,"\u0061":2}`, `{"b":{"y":1,"x":2},"a":[1e400]}`,
		`[-0,1.5e3,"\ud800"]`, `{"a":{"b":{"c":[{}]}}}`, "\xEF\xBB\xBF{}", `{"a" 1}`,
	} {
		f.Add([]byte(s), 3, 4)
	}
	f.Fuzz(func(t *testing.T, data []byte, depth, properties int) {
		lim := Limits{Depth: depth, Properties: properties}
		got, gotErr := transformed(data, lim)
		v, wantErr := Decode(data, lim)
		var want []byte
		if wantErr == nil {
			want, wantErr = Canonical(v)
		}
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !bytes.Equal(got, want) {
			t.Fatalf("transformed(%q, %+v) = %q, %v; Decode and Canonical: %q, %v", data, lim, got, gotErr, want, wantErr)
		}
		// TransformFunc gives fn the same form, and returns fn's error.
		stop := errors.New("stop")
		var seen []byte
		err := TransformFunc(data, lim, func(canonical []byte) error {
			seen = append(seen, canonical...)
			return stop
		})
		if gotErr == nil && (err != stop || !bytes.Equal(seen, got)) || gotErr != nil && fmt.Sprint(err) != fmt.Sprint(gotErr) {
			t.Fatalf("TransformFunc(%q, %+v) gave %q, %v; transformed: %q, %v", data, lim, seen, err, got, gotErr)
		}
		if gotErr != nil {
			return
		}
		checkMembers(t, got, v)
	})
}

// checkMembers checks that Members splits the canonical form of v into
// v's members, when v is an object, and reports no object otherwise.
func checkMembers(t *testing.T, canonical []byte, v any) {
	t.Helper()
	obj, isObject := v.(map[string]any)
	n := 0
	got := Members(canonical, func(key, value []byte) bool {
		n++
		k, err := Decode(append(append([]byte{'"'}, key...), '"'), Limits{})
		member, ok := obj[fmt.Sprint(k)]
		want, _ := Canonical(member)
		if err != nil || !ok || !bytes.Equal(value, want) {
			t.Fatalf("Members(%q): member %q: %q, want %q", canonical, key, value, want)
		}
		return true
	})
	if got != isObject || n != len(obj) {
		t.Fatalf("Members(%q) = %v with %d members, want %v with %d", canonical, got, n, isObject, len(obj))
	}
}

// Members splits a canonical form into its outer members, whatever their
// values hold, and stops when asked to.
func TestMembers(t *testing.T) {
	for _, s := range []string{
		`{"a":{"b":{"c":[1,"]\"}"]},"d":"e","f":[[1]]},"g":[{"h":1}],"i":1,"j":"\\","k":"\\\"}","l":null}`,
		`{}`, `{"":""}`, `[{"a":1}]`, `"{"`, `1`, `{"a\"b":{"c,d":[]},"e":-1.5e-7}`,
		// Strings longer than a word, with escapes inside a word and at
		// its edges.
		`{"a long key, with {brackets}":"a long value \"quoted\", with [brackets] and a \\","b":["0123456\"","01234567\\","\u0001 and more than a word"],"c":{"d":"x\ty\nz 0123456789abcdef"}}`,
	} {
		v, err := Decode([]byte(s), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		canonical, _ := Canonical(v)
		checkMembers(t, canonical, v)
	}
	var keys []string
	Members([]byte(`{"a":1,"b":2,"c":3}`), func(key, _ []byte) bool {
		keys = append(keys, string(key))
		return string(key) != "b"
	})
	if fmt.Sprint(keys) != "[a b]" {
		t.Errorf("Members went on after false: %v", keys)
	}
}

// plainEnd stops where a byte-at-a-time scan stops, wherever in a word the
// byte that stops it is.
func TestPlainEnd(t *testing.T) {
	for _, stop := range []byte{'"', '\\', 0, 0x1f} {
		for _, other := range []byte{'a', ' ', '!', '#', '[', ']', 0x7f, 0x80, 0xff, '"' + 1, '\\' - 1} {
			for n := range 20 {
				for at := range n + 1 {
					data := bytes.Repeat([]byte{other}, n)
					if at < n {
						data[at] = stop
					}
					for from := range min(at, 3) + 1 {
						want := from
						for want < len(data) && data[want] != '"' && data[want] != '\\' && data[want] >= 0x20 {
							want++
						}
						if got := plainEnd(data, from); got != want {
							t.Fatalf("plainEnd(%q, %d) = %d, want %d", data, from, got, want)
						}
					}
				}
			}
		}
	}
}
