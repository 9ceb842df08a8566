package site

import (
	"fmt"
	"strings"

	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// MaxFileSize caps site.toml: a site with hundreds of servers is a few
// hundred KiB.
const MaxFileSize = 1 << 20

// MaxDepth caps how deep site.toml's tables and arrays nest, counting each
// table a header's or a key's dotted name opens ([a.b] opens two, a.b = 1
// one), each inline table and each array: the deepest a site needs is
// about 6. The TOML decoder's
// memory grows fast with the depth (2,000 levels take 200 MB), so the
// bytes are checked before it sees them.
const MaxDepth = 32

// prescan checks src against MaxFileSize and MaxDepth, reading just enough
// TOML to skip strings and comments and to tell headers, keys and values
// apart. It returns the line where src goes too deep (0 for its size).
func prescan(src string) (line int, err error) {
	if len(src) > MaxFileSize {
		return 0, fmt.Errorf("is larger than the limit of %s", inputfile.Size(MaxFileSize))
	}
	s := scanner{src: src, line: 1}
	if err := s.scan(); err != nil {
		return s.line, err
	}
	return 0, nil
}

// scanner walks a TOML document's structure.
type scanner struct {
	src  string
	i    int
	line int
	// base is the depth of the table or array the scanner is in; value is
	// the depth of the value being read (its key's parts added to base).
	base, value int
	// open are the brackets not yet closed, each with the base and value
	// outside it.
	open []bracket
}

type bracket struct {
	table       bool // '{' rather than '['
	base, value int
}

func (s *scanner) scan() error {
	header := 0 // the parts of the last table header
	lineStart := true
	for s.i < len(s.src) {
		if lineStart {
			// A line at the top: a header, a key and its value, or nothing.
			s.skipSpace()
			switch {
			case s.i >= len(s.src):
				return nil
			case s.src[s.i] == '[':
				parts, err := s.header()
				if err != nil {
					return err
				}
				header = parts
				continue
			case s.src[s.i] == '\n' || s.src[s.i] == '#':
				s.skipLine()
				continue
			}
			s.base = header
			if err := s.key(); err != nil {
				return err
			}
			lineStart = false
			if s.i >= len(s.src) {
				return nil
			}
		}
		lineStart = s.src[s.i] == '\n' && len(s.open) == 0
		if err := s.valueToken(); err != nil {
			return err
		}
	}
	return nil
}

// header reads a table header, [a.b] or [[a.b]], and the rest of its line,
// and returns the number of its name's parts.
func (s *scanner) header() (int, error) {
	end := strings.IndexByte(s.src[s.i:], '\n')
	if end < 0 {
		end = len(s.src) - s.i
	}
	parts := 1
	for j := s.i; j < s.i+end; j++ {
		switch s.src[j] {
		case '.':
			parts++
		case '"', '\'':
			j = s.quotedEnd(j, s.i+end)
		case '#':
			j = s.i + end
		}
	}
	if parts > MaxDepth {
		return 0, s.tooDeep()
	}
	s.i += end
	return parts, nil
}

// key reads a key up to its '=', and sets value to base and the tables its
// dotted name opens (a.b.c = 1 opens a and b).
func (s *scanner) key() error {
	parts := 1
	for ; s.i < len(s.src); s.i++ {
		switch c := s.src[s.i]; c {
		case '.':
			parts++
		case '"', '\'':
			s.i = s.quotedEnd(s.i, len(s.src))
		case '=':
			s.i++
			s.value = s.base + parts - 1
			if s.value > MaxDepth {
				return s.tooDeep()
			}
			return nil
		case '}':
			// An empty inline table, or a comma before its end.
			return nil
		case '\n':
			return nil // not TOML: the decoder says where
		}
	}
	return nil
}

// valueToken reads one token of a value: a string, a bracket, a comma, a
// comment, the end of the line, or any other byte.
func (s *scanner) valueToken() error {
	switch c := s.src[s.i]; c {
	case '"', '\'':
		s.i = s.stringEnd(s.i)
		return nil
	case '#':
		s.skipComment()
		return nil
	case '\n':
		s.line++
	case '{', '[':
		s.open = append(s.open, bracket{table: c == '{', base: s.base, value: s.value})
		s.base = s.value + 1
		if s.base > MaxDepth {
			return s.tooDeep()
		}
		s.i++
		s.value = s.base
		if c == '{' {
			return s.key()
		}
		return nil
	case '}', ']':
		if n := len(s.open); n > 0 {
			top := s.open[n-1]
			s.open = s.open[:n-1]
			s.base, s.value = top.base, top.value
		}
	case ',':
		s.value = s.base
		if n := len(s.open); n > 0 && s.open[n-1].table {
			s.i++
			return s.key()
		}
	}
	s.i++
	return nil
}

// stringEnd returns the index after the string starting at i: basic or
// literal, on one line or several (counted).
func (s *scanner) stringEnd(i int) int {
	q := s.src[i]
	delim := string(q)
	if strings.HasPrefix(s.src[i:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	for j := i + len(delim); j < len(s.src); j++ {
		switch {
		case s.src[j] == '\\' && q == '"':
			if j+1 < len(s.src) && s.src[j+1] == '\n' {
				s.line++
			}
			j++
		case s.src[j] == '\n':
			s.line++
			if len(delim) == 1 {
				return j // unterminated: the decoder says so
			}
		case strings.HasPrefix(s.src[j:], delim):
			// A multi-line string may end with up to two more quotes.
			end := j + len(delim)
			for k := 0; k < 2 && len(delim) == 3 && end < len(s.src) && s.src[end] == q; k++ {
				end++
			}
			return end
		}
	}
	return len(s.src)
}

// quotedEnd returns the index of the quote closing the quoted key at i,
// looking no further than end.
func (s *scanner) quotedEnd(i, end int) int {
	q := s.src[i]
	for j := i + 1; j < end; j++ {
		switch {
		case s.src[j] == '\\' && q == '"':
			j++
		case s.src[j] == q:
			return j
		case s.src[j] == '\n':
			return j - 1
		}
	}
	return end
}

func (s *scanner) skipSpace() {
	for s.i < len(s.src) && (s.src[s.i] == ' ' || s.src[s.i] == '\t' || s.src[s.i] == '\r') {
		s.i++
	}
}

// skipComment skips to the end of the line, leaving the newline.
func (s *scanner) skipComment() {
	if end := strings.IndexByte(s.src[s.i:], '\n'); end >= 0 {
		s.i += end
	} else {
		s.i = len(s.src)
	}
}

// skipLine skips past the end of the line.
func (s *scanner) skipLine() {
	s.skipComment()
	if s.i < len(s.src) {
		s.i++
		s.line++
	}
}

func (s *scanner) tooDeep() error {
	return fmt.Errorf("tables and arrays nest more than %d deep (the limit)", MaxDepth)
}
