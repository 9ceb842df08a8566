package pages

import "bytes"

// MaxNesting caps how deep a Markdown file's lists and block quotes nest.
// The Markdown parser's time grows with the square of the depth times the
// line's length (a 256 KB line of list markers, "- - - … a", took 47 s),
// so the depth is checked on the bytes before the parser sees them.
// Prose and documentation nest a few levels.
const MaxNesting = 32

// container is a list item or a block quote open at a line's start.
type container struct {
	quote  bool
	indent int // a list item's: the column its content starts at
}

// tooDeep returns the first line (from 1) of src where lists and block
// quotes nest more than MaxNesting deep, or 0. It follows CommonMark's
// containers as far as their depth needs: a line continues the open
// containers whose markers (a block quote's '>') or indentation (a list
// item's) it repeats, and opens those its markers start; fenced code is
// skipped, as is a line indented as code. A line that continues fewer and
// opens none may be a lazy continuation of a paragraph, which closes
// nothing: so that the count is never below the parser's, it closes
// nothing here either.
func tooDeep(src []byte) int {
	var open []container
	var fence []byte // the open code fence, if any
	for n := 1; len(src) > 0; n++ {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if bytes.IndexByte(line, '\t') >= 0 {
			line = expandTabs(line)
		}
		col, rest, kept := continued(line, open)
		if fence != nil {
			closed := isFence(rest, fence)
			if kept == len(open) || closed {
				if closed {
					fence = nil
				}
				continue // code, or the fence's end
			}
			fence, open = nil, open[:kept] // the fence's container ended
		}
		if len(bytes.TrimSpace(rest)) == 0 {
			continue // a blank line closes no container
		}
		var added []container
		checkedBreak := false
		for spaces := leadingSpaces(rest); spaces < 4; spaces = leadingSpaces(rest) {
			rest, col = rest[spaces:], col+spaces
			c, width := opening(rest, col)
			if width == 0 {
				break
			}
			if !c.quote && !checkedBreak {
				// "- - -" is a thematic break, not three lists; the
				// rest of the line is looked at once.
				checkedBreak = true
				if isThematicBreak(rest) {
					break
				}
			}
			if kept+len(added) == MaxNesting {
				return n
			}
			added = append(added, c)
			rest, col = rest[width:], col+width
		}
		fence = fenceOf(rest)
		if len(added) > 0 || fence != nil || kept == len(open) {
			open = append(open[:kept], added...)
		}
	}
	return 0
}

// continued matches line against the open containers, returning the
// column after their markers, the rest of the line and how many continue.
// A blank line continues them all.
func continued(line []byte, open []container) (col int, rest []byte, kept int) {
	rest = line
	if len(bytes.TrimSpace(line)) == 0 {
		return 0, line, len(open)
	}
	for _, c := range open {
		spaces := leadingSpaces(rest)
		switch {
		case c.quote && spaces < 4 && len(rest) > spaces && rest[spaces] == '>':
			rest, col = rest[spaces+1:], col+spaces+1
			if len(rest) > 0 && rest[0] == ' ' {
				rest, col = rest[1:], col+1
			}
		case !c.quote && col+spaces >= c.indent:
			take := c.indent - col
			rest, col = rest[take:], c.indent
		default:
			return col, rest, kept
		}
		kept++
	}
	return col, rest, kept
}

// opening returns the container a block quote marker or list marker at the
// start of rest opens, at column col, and the marker's width with the
// spaces after it; 0 when rest starts with neither.
func opening(rest []byte, col int) (container, int) {
	if len(rest) == 0 {
		return container{}, 0
	}
	if rest[0] == '>' {
		if len(rest) > 1 && rest[1] == ' ' {
			return container{quote: true}, 2
		}
		return container{quote: true}, 1
	}
	marker := 0
	switch {
	case rest[0] == '-' || rest[0] == '+' || rest[0] == '*':
		marker = 1
	case '0' <= rest[0] && rest[0] <= '9':
		for marker < len(rest) && marker < 9 && '0' <= rest[marker] && rest[marker] <= '9' {
			marker++
		}
		if marker == len(rest) || rest[marker] != '.' && rest[marker] != ')' {
			return container{}, 0
		}
		marker++
	default:
		return container{}, 0
	}
	if marker < len(rest) && rest[marker] != ' ' {
		return container{}, 0
	}
	spaces := leadingSpaces(rest[marker:])
	if spaces > 4 || marker+spaces == len(rest) {
		spaces = 1 // content indented as code, or none: it starts one space in
	}
	width := min(marker+spaces, len(rest))
	return container{indent: col + marker + spaces}, width
}

// isThematicBreak reports whether rest is three or more of one of '-', '*'
// and '_', with nothing but spaces between them.
func isThematicBreak(rest []byte) bool {
	n := 0
	for _, c := range rest {
		switch {
		case c == rest[0] && (c == '-' || c == '*' || c == '_'):
			n++
		case c != ' ':
			return false
		}
	}
	return n >= 3
}

// leadingSpaces counts the spaces at the start of b.
func leadingSpaces(b []byte) int {
	n := 0
	for _, c := range b {
		if c != ' ' {
			return n
		}
		n++
	}
	return n
}

// fenceOf returns the code fence rest opens (``` or ~~~, three or more),
// or nil.
func fenceOf(rest []byte) []byte {
	for _, f := range [][]byte{[]byte("```"), []byte("~~~")} {
		if bytes.HasPrefix(rest, f) {
			n := len(f)
			for n < len(rest) && rest[n] == f[0] {
				n++
			}
			return rest[:n]
		}
	}
	return nil
}

// isFence reports whether rest closes the fence open.
func isFence(rest, open []byte) bool {
	rest = rest[min(leadingSpaces(rest), 3):]
	f := fenceOf(rest)
	return len(f) >= len(open) && f[0] == open[0] && len(bytes.TrimSpace(rest[len(f):])) == 0
}

// expandTabs replaces each tab of line with the spaces to the next multiple
// of four columns, as CommonMark reads indentation.
func expandTabs(line []byte) []byte {
	var b []byte
	for _, c := range line {
		if c == '\t' {
			b = append(b, "    "[len(b)%4:]...)
			continue
		}
		b = append(b, c)
	}
	return b
}
