// Package suggest finds what a mistyped name was probably meant to be, for
// the "did you mean" hints of every command and check.
package suggest

// maxEdits is how far a suggestion may be from the word typed: two edits
// catch a swapped pair or a missing letter, without proposing an unrelated
// name for a short word.
const maxEdits = 2

// Closest returns the candidate closest to word, at most two edits away
// (the first of equally close ones), and whether there is one.
func Closest(word string, candidates []string) (string, bool) {
	best, bestDist := "", maxEdits+1
	for _, cand := range candidates {
		if d := Distance(word, cand); d < bestDist {
			best, bestDist = cand, d
		}
	}
	return best, bestDist <= maxEdits
}

// Distance is the Levenshtein distance between a and b, counted in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
