package site

import (
	"strings"
	"testing"
)

// The pre-scan refuses site.toml nested beyond MaxDepth in any way TOML
// nests (inline tables, arrays, dotted keys, headers), naming the line,
// before the decoder sees it, and lets through what only looks deep
// inside strings and comments.
func TestPrescan(t *testing.T) {
	deep := MaxDepth + 1
	for _, tc := range []struct {
		name, src string
		line      int // 0: accepted
	}{
		{"the example", "base_url = \"https://x.example/\"\n[entity.entities.mcps.verification]\nsignature_file = \"a.jwt\"\n[[servers]]\nremotes = [{url = \"https://x.example/mcp\", headers = [{name = \"A\"}]}]\n", 0},
		{"inline tables at the limit", "x = " + strings.Repeat("{a=", MaxDepth) + "1" + strings.Repeat("}", MaxDepth) + "\n", 0},
		{"inline tables 6,000 deep", "title = \"t\"\nx = " + strings.Repeat("{a=", 6000) + "1" + strings.Repeat("}", 6000), 2},
		{"arrays", "\n\nx = " + strings.Repeat("[", deep) + strings.Repeat("]", deep), 3},
		{"arrays over lines", "x = [\n" + strings.Repeat("[\n", deep) + strings.Repeat("]", deep) + "]", deep},
		{"a dotted key", strings.Repeat("a.", deep) + "b = 1", 1},
		{"a dotted key in an inline table", "x = {" + strings.Repeat("a.", deep) + "b = 1}", 1},
		{"a header", "[" + strings.Repeat("a.", deep) + "b]\n", 1},
		{"an array of tables", "x = 1\n[[" + strings.Repeat("a.", deep) + "b]]\n", 2},
		{"a header and a value", "[" + strings.Repeat("a.", MaxDepth-1) + "b]\nx = [[1]]\n", 2},
		{"quoted dots in a header", "[\"" + strings.Repeat("a.", deep) + "\"]\n", 0},
		{"brackets in strings", "a = \"" + strings.Repeat("{[", 1000) + "\"\nb = '" + strings.Repeat("{[", 1000) + "'\n", 0},
		{"brackets in an escaped string", `a = "\"` + strings.Repeat("{", 100) + `"` + "\n", 0},
		{"brackets in multi-line strings", "a = \"\"\"\n" + strings.Repeat("{", 100) + "\n\"\"\"\"\"\nb = '''\n" + strings.Repeat("[", 100) + "'''\n", 0},
		{"brackets in comments", "# " + strings.Repeat("{", 100) + "\na = 1 # " + strings.Repeat("[", 100) + "\n", 0},
		{"the line after a multi-line string", "a = \"\"\"\none\ntwo\n\"\"\"\nx = " + strings.Repeat("[", deep) + strings.Repeat("]", deep), 5},
	} {
		line, err := prescan(tc.src)
		switch {
		case tc.line == 0 && err != nil:
			t.Errorf("%s: %v, want it accepted", tc.name, err)
		case tc.line != 0 && (err == nil || line != tc.line || !strings.Contains(err.Error(), "nest more than 32 deep (the limit)")):
			t.Errorf("%s: line %d, %v; want line %d refused", tc.name, line, err, tc.line)
		}
	}
	if _, err := prescan(strings.Repeat("#", MaxFileSize+1)); err == nil || err.Error() != "is larger than the limit of 1 MiB" {
		t.Errorf("a site.toml over the size limit: %v", err)
	}
}

// Parse names the file and the line, as every site.toml error does.
func TestParseTooDeep(t *testing.T) {
	_, err := Parse("site.toml", "title = \"t\"\nx = "+strings.Repeat("{a=", 6000)+"1"+strings.Repeat("}", 6000)+"\n", nil)
	if err == nil || err.Error() != "site.toml:2: tables and arrays nest more than 32 deep (the limit)" {
		t.Errorf("Parse = %v", err)
	}
}

// A past site.toml in git history is pre-scanned as well: a commit from a
// fork's pull request is as hostile as the working tree.
func TestParseHistoricalTooDeep(t *testing.T) {
	_, err := ParseHistorical([]byte("title = \"t\"\nx = "+strings.Repeat("[", 6000)+strings.Repeat("]", 6000)), nil)
	if err == nil || err.Error() != "line 2: tables and arrays nest more than 32 deep (the limit)" {
		t.Errorf("ParseHistorical = %v", err)
	}
}
