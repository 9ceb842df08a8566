package pages

import (
	"strings"
	"testing"
)

// tooDeep finds the line where lists and block quotes nest beyond
// MaxNesting however the nesting is written, and passes deep-looking text
// that does not nest: code, siblings, a blank line's worth of closing.
func TestTooDeep(t *testing.T) {
	deep := MaxNesting + 1
	indented := func(n int, unit, marker string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(strings.Repeat(unit, i) + marker + "a\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, src string
		line      int // 0: accepted
	}{
		{"a few levels", "# Title\n\n- a\n  - b\n    1. c\n       > d\n", 0},
		{"markers at the limit", strings.Repeat("- ", MaxNesting) + "a\n", 0},
		{"markers on one line", "# Title\n\n" + strings.Repeat("- ", 128<<10) + "a\n", 3},
		{"ordered markers", strings.Repeat("1. ", deep) + "a\n", 1},
		{"block quotes", strings.Repeat("> ", deep) + "a\n", 1},
		{"block quotes without spaces", strings.Repeat(">", deep) + "a\n", 1},
		{"indented lists", indented(deep, "  ", "- "), deep},
		{"indented with tabs", indented(deep, "\t", "- "), deep},
		{"empty items, CRLF", strings.ReplaceAll(indented(deep, "  ", "-"), "a\n", "\r\n"), deep},
		{"ordered, indented", indented(deep, "   ", "1. "), deep},
		{"quotes line by line", indented(deep, "> ", "> "), deep},
		{"after a lazy line", "- a\n  - b\nlazy\n" + indented(deep, "  ", "- ")[len("- a\n  - b\n"):], deep + 1},
		{"after a fence its item ended", "- ```\n" + strings.Repeat("- ", 20) + "a\n" + strings.Repeat(" ", 42) + strings.Repeat("- ", 20) + "b\n", 3},
		{"siblings", strings.Repeat("- a\n", 1000), 0},
		{"siblings after nesting", strings.Repeat(indented(20, "  ", "- ")+"\ntext\n\n", 10), 0},
		{"fenced code", "```\n" + strings.Repeat("- ", deep) + "\n" + indented(deep, "  ", "- ") + "```\n", 0},
		{"fenced code in a list", "- a\n  ~~~~\n  " + strings.Repeat("> ", deep) + "\n  ~~~~\n", 0},
		{"indented code", "    " + strings.Repeat("- ", deep) + "\n", 0},
		{"dashes in text", "a " + strings.Repeat("- ", deep) + "\n", 0},
		{"a thematic break", strings.Repeat("-", 1000) + "\n", 0},
		{"a thematic break with spaces", strings.Repeat("* ", 100) + "\n", 0},
		{"a thematic break in a list", "- " + strings.Repeat("- ", 100) + "\n", 0},
	} {
		if got := tooDeep([]byte(tc.src)); got != tc.line {
			t.Errorf("%s: line %d, want %d", tc.name, got, tc.line)
		}
	}
}
