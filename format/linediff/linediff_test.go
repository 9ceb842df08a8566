package linediff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// render writes a diff as a unified diff's body, with the hunk headers and
// skipped lines, to compare with what a reader would expect.
func render(d Diff) string {
	var b strings.Builder
	for _, h := range d.Hunks {
		fmt.Fprintf(&b, "@@ -%d +%d (%d skipped)\n", h.OldStart, h.NewStart, h.Skipped)
		for _, l := range h.Lines {
			fmt.Fprintf(&b, "%s%s %s\n", l.Marker(), strings.TrimPrefix(string(l.Kind), "changed-"), l.Text)
		}
	}
	fmt.Fprintf(&b, "+%d -%d, %d skipped after, %d omitted\n", d.Added, d.Removed, d.SkippedAfter, d.Omitted)
	return b.String()
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		name, old, new string
		want           string
	}{
		{"equal", "a\nb\n", "a\nb\n", "+0 -0, 2 skipped after, 0 omitted\n"},
		{"both empty", "", "", "+0 -0, 0 skipped after, 0 omitted\n"},
		{"from nothing", "", "a\nb\n", "@@ -1 +1 (0 skipped)\n+added a\n+added b\n+2 -0, 0 skipped after, 0 omitted\n"},
		{"to nothing", "a\n", "", "@@ -1 +1 (0 skipped)\n-removed a\n+0 -1, 0 skipped after, 0 omitted\n"},
		{"one changed line", "a\nb\nc\n", "a\nB\nc\n",
			"@@ -1 +1 (0 skipped)\n same a\n-from b\n+to B\n same c\n+1 -1, 0 skipped after, 0 omitted\n"},
		{"a change and an addition", "a\nb\nc\n", "a\nB\nX\nc\n",
			"@@ -1 +1 (0 skipped)\n same a\n-from b\n+to B\n+added X\n same c\n+2 -1, 0 skipped after, 0 omitted\n"},
		{"context of three, far apart", numbered(1, 20), strings.Replace(strings.Replace(numbered(1, 20), "2\n", "two\n", 1), "18\n", "eighteen\n", 1),
			"@@ -1 +1 (0 skipped)\n same 1\n-from 2\n+to two\n same 3\n same 4\n same 5\n" +
				"@@ -15 +15 (9 skipped)\n same 15\n same 16\n same 17\n-from 18\n+to eighteen\n same 19\n same 20\n" +
				"+2 -2, 0 skipped after, 0 omitted\n"},
		{"close changes share a hunk", numbered(1, 12), strings.Replace(strings.Replace(numbered(1, 12), "3\n", "", 1), "9\n", "", 1),
			"@@ -1 +1 (0 skipped)\n same 1\n same 2\n-removed 3\n same 4\n same 5\n same 6\n same 7\n same 8\n-removed 9\n same 10\n same 11\n same 12\n" +
				"+0 -2, 0 skipped after, 0 omitted\n"},
		{"addition in the middle", numbered(1, 10), strings.Replace(numbered(1, 10), "5\n", "5\nnew\n", 1),
			"@@ -3 +3 (2 skipped)\n same 3\n same 4\n same 5\n+added new\n same 6\n same 7\n same 8\n+1 -0, 2 skipped after, 0 omitted\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := render(Compare(c.old, c.new, 3)); got != c.want {
				t.Errorf("Compare:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// Applying the script to the old text gives the new one, and the script is
// no longer than a simple LCS one, on random texts over a small alphabet.
func TestCompareIsAnEditScript(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	text := func() []string {
		lines := make([]string, r.IntN(30))
		for i := range lines {
			lines[i] = string(rune('a' + r.IntN(4)))
		}
		return lines
	}
	for range 500 {
		a, b := text(), text()
		script := edits(a, b)
		var old, new []string
		edits := 0
		for _, l := range script {
			if l.Kind != Added {
				old = append(old, l.Text)
			}
			if l.Kind != Removed {
				new = append(new, l.Text)
			}
			if l.Kind != Same {
				edits++
			}
		}
		if strings.Join(old, "") != strings.Join(a, "") || strings.Join(new, "") != strings.Join(b, "") {
			t.Fatalf("script %v does not turn %v into %v", script, a, b)
		}
		if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
			t.Fatalf("%d edits from %v to %v, want %d", edits, a, b, want)
		}
	}
}

// lcs is the length of a longest common subsequence, by dynamic programming.
func lcs(a, b []string) int {
	row := make([]int, len(b)+1)
	for i := range a {
		prev := 0
		for j := range b {
			cur := row[j+1]
			if a[i] == b[j] {
				row[j+1] = prev + 1
			} else {
				row[j+1] = max(row[j+1], row[j])
			}
			prev = cur
		}
	}
	return row[len(b)]
}

// Texts with nothing in common past MaxEdits are compared at bounded cost:
// every old line removed, every new one added.
func TestCompareGivesUpPastMaxEdits(t *testing.T) {
	old := numbered(1, MaxEdits)
	new := strings.ReplaceAll(old, "\n", "x\n")
	d := Compare(old, new, 3)
	if d.Added != MaxEdits || d.Removed != MaxEdits || len(d.Hunks) != 1 {
		t.Errorf("+%d -%d in %d hunks, want +%d -%d in one", d.Added, d.Removed, len(d.Hunks), MaxEdits, MaxEdits)
	}
}

func TestLimit(t *testing.T) {
	d := Compare(numbered(1, 40), numbered(1, 4)+"five\n"+numbered(6, 24)+"twenty-five\n"+numbered(26, 40), 3)
	if len(d.Hunks) != 2 || d.Size() != 16 {
		t.Fatalf("%d hunks of %d lines, want 2 of 16:\n%s", len(d.Hunks), d.Size(), render(d))
	}
	d.Limit(10)
	if len(d.Hunks) != 2 || d.Size() != 10 || d.Omitted != 6 {
		t.Errorf("limited to %d hunks of %d lines, %d omitted; want 2, 10 and 6:\n%s", len(d.Hunks), d.Size(), d.Omitted, render(d))
	}
	d.Limit(8)
	if len(d.Hunks) != 1 || d.Size() != 8 || d.Omitted != 8 {
		t.Errorf("limited to %d hunks of %d lines, %d omitted; want 1, 8 and 8:\n%s", len(d.Hunks), d.Size(), d.Omitted, render(d))
	}
}
