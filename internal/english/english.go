// Package english writes the small pieces of English that messages and
// summaries share, so that every command says "1 file" and "2 files" alike.
package english

import (
	"fmt"
	"strings"
)

// Count writes n and noun, in the plural unless n is 1: "1 entry",
// "2 entries", "3 files".
func Count(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y") && !strings.HasSuffix(noun, "ey"):
		return fmt.Sprintf("%d %sies", n, noun[:len(noun)-1])
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
