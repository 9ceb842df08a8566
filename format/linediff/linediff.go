// Package linediff compares two texts line by line, as a reader compares two
// versions of a schema: which lines were added, which removed, which
// changed, shown in hunks with a few lines of context around them.
//
// The edit script is Myers' shortest one (O((N+M)·D) time, O(D²) memory
// for D edits). Past MaxEdits edits the two texts have little in common,
// and the script removes every old line and adds every new one instead:
// the cost of a comparison stays bounded whatever the input.
package linediff

import "strings"

// MaxEdits is the most edits Compare looks for before it gives up on a
// shortest script (see the package comment).
const MaxEdits = 2000

// Kind says what a line of a diff is.
type Kind string

// Line kinds. A run of removed lines directly followed by added ones is a
// change: its lines pair up, old with new, as ChangedFrom and ChangedTo,
// and what is left over stays Removed or Added.
const (
	Same        Kind = "same"
	Added       Kind = "added"
	Removed     Kind = "removed"
	ChangedFrom Kind = "changed-from"
	ChangedTo   Kind = "changed-to"
)

// Line is one line of a diff.
type Line struct {
	Kind Kind
	Text string
}

// Marker is the character a unified diff puts before the line.
func (l Line) Marker() string {
	switch l.Kind {
	case Added, ChangedTo:
		return "+"
	case Removed, ChangedFrom:
		return "-"
	}
	return " "
}

// Hunk is a run of changed lines with their context.
type Hunk struct {
	OldStart, NewStart int // line numbers (from 1) of its first line in each text
	Skipped            int // unchanged lines between the previous hunk (or the start) and this one
	Lines              []Line
}

// Diff is the difference between two texts.
type Diff struct {
	Hunks          []Hunk
	Added, Removed int // lines added and removed (a changed line counts in both)
	SkippedAfter   int // unchanged lines after the last hunk
	Omitted        int // changed and context lines left out by Limit
}

// Size is the number of lines the hunks show.
func (d *Diff) Size() int {
	n := 0
	for _, h := range d.Hunks {
		n += len(h.Lines)
	}
	return n
}

// Compare compares two texts line by line and groups the changes into hunks
// with context unchanged lines before and after each change. Texts that
// end in a newline are compared without the empty line after it.
func Compare(old, new string, context int) Diff {
	script := pairChanges(edits(splitLines(old), splitLines(new)))
	var d Diff
	oldLine, newLine := 1, 1
	lastShown := -1 // index in script of the last line a hunk holds
	for i := 0; i < len(script); i++ {
		if script[i].Kind == Same {
			oldLine, newLine = oldLine+1, newLine+1
			continue
		}
		// A change at i: its hunk starts context lines earlier, or right
		// after the previous hunk when they are that close.
		start := max(i-context, lastShown+1)
		if lastShown >= 0 && start == lastShown+1 {
			h := &d.Hunks[len(d.Hunks)-1]
			h.Lines = append(h.Lines, script[lastShown+1:i]...)
		} else {
			d.Hunks = append(d.Hunks, Hunk{OldStart: oldLine - (i - start), NewStart: newLine - (i - start), Skipped: start - lastShown - 1})
			d.Hunks[len(d.Hunks)-1].Lines = append([]Line(nil), script[start:i]...)
		}
		end := i
		for end < len(script) && script[end].Kind != Same {
			switch script[end].Kind {
			case Added, ChangedTo:
				d.Added++
				newLine++
			default:
				d.Removed++
				oldLine++
			}
			end++
		}
		after := min(end+context, len(script))
		for _, l := range script[end:after] {
			if l.Kind == Same {
				oldLine, newLine = oldLine+1, newLine+1
			}
		}
		h := &d.Hunks[len(d.Hunks)-1]
		h.Lines = append(h.Lines, script[i:after]...)
		lastShown, i = after-1, after-1
	}
	d.SkippedAfter = len(script) - lastShown - 1
	return d
}

// Limit cuts the hunks to at most n lines and counts what it leaves out in
// Omitted, so that a page showing a huge change stays small.
func (d *Diff) Limit(n int) {
	for i := range d.Hunks {
		h := &d.Hunks[i]
		if len(h.Lines) <= n {
			n -= len(h.Lines)
			continue
		}
		d.Omitted += len(h.Lines) - n
		h.Lines = h.Lines[:n]
		for _, rest := range d.Hunks[i+1:] {
			d.Omitted += len(rest.Lines)
		}
		d.Hunks = d.Hunks[:i+1]
		if n == 0 {
			d.Hunks = d.Hunks[:i]
		}
		return
	}
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// edits is the shortest edit script from a to b (Myers 1986), or, past
// MaxEdits, the removal of a followed by the addition of b.
func edits(a, b []string) []Line {
	n, m := len(a), len(b)
	limit := min(n+m, MaxEdits)
	offset := limit + 1
	v := make([]int, 2*limit+3) // v[offset+k]: the furthest x on diagonal k
	var trace [][]int           // trace[d]: v[-d..d] after d edits
	for d := 0; d <= limit; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[offset+k-1] < v[offset+k+1] {
				x = v[offset+k+1] // down: an addition
			} else {
				x = v[offset+k-1] + 1 // right: a removal
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[offset+k] = x
			if x >= n && y >= m {
				trace = append(trace, append([]int(nil), v[offset-d:offset+d+1]...))
				return backtrack(a, b, trace)
			}
		}
		trace = append(trace, append([]int(nil), v[offset-d:offset+d+1]...))
	}
	script := make([]Line, 0, n+m)
	for _, s := range a {
		script = append(script, Line{Removed, s})
	}
	for _, s := range b {
		script = append(script, Line{Added, s})
	}
	return script
}

// backtrack walks the trace from the end of both texts back to their start
// and returns the edit script in order.
func backtrack(a, b []string, trace [][]int) []Line {
	furthest := func(d, k int) int { return trace[d][k+d] }
	x, y := len(a), len(b)
	rev := make([]Line, 0, x+y)
	for d := len(trace) - 1; d > 0; d-- {
		k := x - y
		prevK := k - 1
		if k == -d || k != d && furthest(d-1, k-1) < furthest(d-1, k+1) {
			prevK = k + 1
		}
		prevX := furthest(d-1, prevK)
		prevY := prevX - prevK
		// The edit leads from the previous point to mid; equal lines lead
		// on from there to (x, y).
		edit, midX, midY := Line{Removed, ""}, prevX+1, prevY
		if prevK == k+1 {
			edit, midX, midY = Line{Added, b[prevY]}, prevX, prevY+1
		} else {
			edit.Text = a[prevX]
		}
		for x > midX && y > midY {
			rev = append(rev, Line{Same, a[x-1]})
			x, y = x-1, y-1
		}
		rev = append(rev, edit)
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		rev = append(rev, Line{Same, a[x-1]})
		x, y = x-1, y-1
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// pairChanges marks removed lines directly followed by added ones as
// changed, pairing them up in order.
func pairChanges(script []Line) []Line {
	for i := 0; i < len(script); {
		if script[i].Kind != Removed {
			i++
			continue
		}
		del := i
		for i < len(script) && script[i].Kind == Removed {
			i++
		}
		add := i
		for i < len(script) && script[i].Kind == Added {
			i++
		}
		for j := 0; j < min(add-del, i-add); j++ {
			script[del+j].Kind = ChangedFrom
			script[add+j].Kind = ChangedTo
		}
	}
	return script
}
