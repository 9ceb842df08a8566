// Package suggest finds the word a person probably meant: the did-you-mean
// of a misspelt command, flag, key or path.
package suggest

// maxEdits is how far a word may be from a candidate to be suggested: two
// edits catch a swapped pair or a missing and a doubled letter, and more
// would suggest unrelated words.
const maxEdits = 2

// Closest returns the candidate fewest edits away from word (the first of
// equally close ones), and whether it is close enough to suggest: at most
// two edits, and fewer edits than the word has letters, so that a short
// word is not "corrected" into any other.
func Closest(word string, candidates []string) (string, bool) {
	best, bestDist := "", maxEdits+1
	for _, c := range candidates {
		if d := distance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best == "" || bestDist >= len([]rune(word)) {
		return "", false
	}
	return best, true
}

// distance is the Levenshtein distance between a and b, counting a
// transposition of two neighbouring letters as one edit (the optimal
// string alignment distance), since swapped letters are the commonest typo.
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// rows i-2, i-1 and i of the table.
	prev2, prev, cur := make([]int, len(y)+1), make([]int, len(y)+1), make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}
