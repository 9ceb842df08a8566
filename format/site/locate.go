package site

import (
	"strconv"
	"strings"
)

// locator finds the line of a key in TOML source. The TOML decoder keeps key
// positions to itself, so this scans the text: table headers, array-of-tables
// headers (counted, so the second [[servers]] is "servers.1") and "key ="
// lines, skipping comments and multi-line strings. Keys inside inline tables
// are not indexed; a lookup falls back to the nearest enclosing key.
type locator struct {
	keys []located // in order of appearance
}

type located struct {
	path string // dotted, with array indices: "servers.1.remotes.0.url"
	line int
}

func newLocator(src string) *locator {
	l := &locator{}
	index := map[string]int{} // array-of-tables path → current element index
	var table string          // resolved path of the current table
	inString := ""            // closing delimiter of an open multi-line string
	for n, raw := range strings.Split(src, "\n") {
		line := strings.TrimSpace(raw)
		if inString != "" {
			if strings.Contains(line, inString) {
				inString = ""
			}
			continue
		}
		switch {
		case line == "" || line[0] == '#':
		case strings.HasPrefix(line, "[["):
			header := headerName(line, "[[", "]]")
			name := join(resolve(parent(header), index), last(header))
			index[name]++
			table = name + "." + strconv.Itoa(index[name]-1)
			l.keys = append(l.keys, located{table, n + 1})
		case line[0] == '[':
			table = resolve(headerName(line, "[", "]"), index)
			l.keys = append(l.keys, located{table, n + 1})
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			l.keys = append(l.keys, located{join(table, unquoteKey(key)), n + 1})
			inString = openMultiline(value)
		}
	}
	return l
}

// line returns the line of the key at path (elements joined with "."), or of
// its nearest enclosing key, or 0 when none is known.
func (l *locator) line(path string) int {
	for p := path; p != ""; p = parent(p) {
		for _, k := range l.keys {
			if k.path == p {
				return k.line
			}
		}
	}
	return 0
}

// lineOfUnindexed finds the first key at or after position from whose path,
// with array indices removed, equals key (as the TOML decoder reports
// undecoded keys). It returns the line and the position after the match.
func (l *locator) lineOfUnindexed(key string, from int) (line, next int) {
	for p := key; p != ""; p = parent(p) {
		for i := from; i < len(l.keys); i++ {
			if stripIndices(l.keys[i].path) == p {
				return l.keys[i].line, i + 1
			}
		}
	}
	return 0, from
}

func headerName(line, open, close string) string {
	name := strings.TrimPrefix(line, open)
	if i := strings.Index(name, close); i >= 0 {
		name = name[:i]
	}
	return unquoteKey(name)
}

// resolve turns a header's dotted name into a path with the current index of
// every array of tables it passes through.
func resolve(name string, index map[string]int) string {
	var path string
	if name == "" {
		return ""
	}
	for _, seg := range strings.Split(name, ".") {
		path = join(path, seg)
		if i, ok := index[path]; ok {
			path += "." + strconv.Itoa(i-1)
		}
	}
	return path
}

func unquoteKey(key string) string {
	parts := strings.Split(strings.TrimSpace(key), ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// openMultiline reports the delimiter of a multi-line string the value starts
// but does not close on the same line.
func openMultiline(value string) string {
	for _, d := range []string{`"""`, `'''`} {
		if strings.Count(value, d)%2 == 1 {
			return d
		}
	}
	return ""
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func last(p string) string { return p[strings.LastIndex(p, ".")+1:] }

func parent(p string) string {
	i := strings.LastIndex(p, ".")
	if i < 0 {
		return ""
	}
	return p[:i]
}

func stripIndices(p string) string {
	parts := strings.Split(p, ".")
	out := parts[:0]
	for _, s := range parts {
		if _, err := strconv.Atoi(s); err != nil {
			out = append(out, s)
		}
	}
	return strings.Join(out, ".")
}
