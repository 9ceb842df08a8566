package schemadiff

import (
	"fmt"
	"slices"
	"strings"
)

// Class is how serious a change is; it decides the semantic version bump.
type Class string

// The classes, from least to most serious.
const (
	Cosmetic   Class = "cosmetic"   // descriptions, titles, hints, examples: patch bump
	Compatible Class = "compatible" // additions and widenings: minor bump
	Breaking   Class = "breaking"   // removals, narrowings, retypes: major bump
)

func (c Class) severity() int {
	switch c {
	case Cosmetic:
		return 1
	case Compatible:
		return 2
	case Breaking:
		return 3
	}
	return 0
}

// Change is one difference between two versions of a tool.
type Change struct {
	Pointer string // RFC 6901, leading "/", relative to the tool object
	Class   Class
	Text    string // one sentence for a changelog, names in backticks
}

// Result is what changed between two versions of a tool.
type Result struct {
	Class     Class     // the most serious class among Changes; "" when nothing changed
	Migration Migration // the agent-feed structural delta
	Changes   []Change  // in the order the comparison walks the tool
}

// MostSeriousFirst returns the changes ordered breaking, then compatible,
// then cosmetic, each class in walk order: a summary cut short keeps the
// change that decided the version.
func (r Result) MostSeriousFirst() []Change {
	out := slices.Clone(r.Changes)
	slices.SortStableFunc(out, func(a, b Change) int { return b.Class.severity() - a.Class.severity() })
	return out
}

// Compare compares two versions of one tool object, as encoding/json decodes
// the tools/list JSON, following the rules in the package comment. It never
// fails: whatever it cannot understand it reports as a change.
func Compare(before, after map[string]any) Result {
	r := &recorder{budget: maxSchemaVisits}
	r.tool(before, after)
	return r.result()
}

// CompareWithoutRefs is Compare of two tools at least one of which has no
// "$ref" member anywhere, as a caller holding their canonical forms
// (canonjson) knows from the text: without "$ref" in it, a form has none.
// A schema that did not change is the same JSON in both tools, so it has
// no reference either, and CompareWithoutRefs does not look under it for
// one to follow. Given two tools that both have a "$ref", it can miss a
// change behind one.
func CompareWithoutRefs(before, after map[string]any) Result {
	r := &recorder{budget: maxSchemaVisits, withoutRefs: true}
	r.tool(before, after)
	return r.result()
}

// recorder collects changes and the migration as a comparison goes along.
type recorder struct {
	changes     []Change
	migration   Migration
	budget      int  // schema comparisons left before giving up; see spend
	withoutRefs bool // a tool has no $ref (see CompareWithoutRefs)
}

func (r *recorder) note(pointer string, class Class, format string, args ...any) {
	r.changes = append(r.changes, Change{Pointer: pointer, Class: class, Text: fmt.Sprintf(format, args...)})
}

func (r *recorder) add(pointer string) { r.migration.Add = append(r.migration.Add, pointer) }

func (r *recorder) remove(pointer string) { r.migration.Remove = append(r.migration.Remove, pointer) }

func (r *recorder) rename(from, to string) {
	if r.migration.Rename == nil {
		r.migration.Rename = map[string]string{}
	}
	r.migration.Rename[from] = to
}

func (r *recorder) retype(pointer, from, to string) {
	if r.migration.Retype == nil {
		r.migration.Retype = map[string]Retype{}
	}
	r.migration.Retype[pointer] = Retype{From: from, To: to}
}

func (r *recorder) result() Result {
	res := Result{Migration: r.migration, Changes: r.changes}
	slices.Sort(res.Migration.Add)
	slices.Sort(res.Migration.Remove)
	for _, c := range r.changes {
		if c.Class.severity() > res.Class.severity() {
			res.Class = c.Class
		}
	}
	return res
}

// noteIfSilent records a cosmetic change when nothing was recorded since
// mark although the values differ, so that no difference goes unreported.
func (r *recorder) noteIfSilent(mark int, pointer string, before, after any, text string) {
	if len(r.changes) == mark && !sameJSON(before, after) {
		r.note(pointer, Cosmetic, "%s", text)
	}
}

// tool compares the members of the tool object, known ones first.
func (r *recorder) tool(before, after map[string]any) {
	r.name(member(before, "name"), member(after, "name"))
	r.text("/title", "title", member(before, "title"), member(after, "title"))
	r.text("/description", "description", member(before, "description"), member(after, "description"))
	r.annotations(member(before, "annotations"), member(after, "annotations"))
	r.schema(input, "/inputSchema", member(before, "inputSchema"), member(after, "inputSchema"))
	r.outputSchema(member(before, "outputSchema"), member(after, "outputSchema"))
	r.meta(member(before, "_meta"), member(after, "_meta"))
	// Most tools have no other members: their keys are not gathered and
	// sorted to find that out.
	if !hasOtherMembers(before) && !hasOtherMembers(after) {
		return
	}
	for _, key := range sortedKeys(before, after) {
		if knownToolMembers[key] {
			continue
		}
		if b, a := member(before, key), member(after, key); !sameJSON(b, a) {
			r.note("/"+pointerToken(key), Cosmetic, "`%s` %s", key, verb(b, a))
		}
	}
}

// hasOtherMembers reports whether a tool object has a member besides
// knownToolMembers.
func hasOtherMembers(tool map[string]any) bool {
	for key := range tool {
		if !knownToolMembers[key] {
			return true
		}
	}
	return false
}

var knownToolMembers = map[string]bool{
	"name": true, "title": true, "description": true, "annotations": true,
	"inputSchema": true, "outputSchema": true, "_meta": true,
}

// name reports a changed tool name as breaking: callers use it to call the tool.
func (r *recorder) name(before, after any) {
	if sameJSON(before, after) {
		return
	}
	if isMissing(before) || isMissing(after) {
		r.note("/name", Breaking, "tool name %s", verb(before, after))
		return
	}
	r.note("/name", Breaking, "tool name changed from `%s` to `%s`", literal(before), literal(after))
}

// text reports a change of a member that is only read by people.
func (r *recorder) text(pointer, what string, before, after any) {
	if !sameJSON(before, after) {
		r.note(pointer, Cosmetic, "%s %s", what, verb(before, after))
	}
}

// hint is one MCP tool annotation that describes behaviour.
type hint struct {
	key            string
	absent, safe   bool
	safer, riskier string
	aboutWrites    bool // only meaningful for a tool that is not read-only
}

// hints are the MCP tool annotations that describe behaviour, in the order
// they are reported (readOnlyHint first: the others are read after it),
// with the value a client assumes when one is absent, the value that is the
// safer promise, and the texts for becoming safer and less safe.
var hints = []hint{
	{"readOnlyHint", false, true, "tool is now read-only", "tool is no longer read-only", false},
	{"destructiveHint", true, false, "tool is no longer destructive", "tool may now be destructive", true},
	{"idempotentHint", false, true, "tool is now idempotent", "tool is no longer idempotent", true},
	{"openWorldHint", true, false, "tool no longer reaches outside its own domain", "tool may now reach outside its own domain", false},
}

// annotations compares the hints by the value a client acts on: an absent
// hint has its default, and a read-only tool is neither destructive nor
// anything but idempotent, since it changes nothing; when read-only
// changes, that is the one change reported for the three. A tool that
// promises less safety is breaking, because clients decide on these hints
// whether to ask before a call; one that promises more is compatible.
// Hints written out with the value they had, the title and any other
// member are cosmetic.
func (r *recorder) annotations(before, after any) {
	if sameJSON(before, after) {
		return // most versions share their annotations
	}
	mark := len(r.changes)
	defer r.noteIfSilent(mark, "/annotations", before, after, "annotations "+verb(before, after))
	b, okBefore := objectOrEmpty(before)
	a, okAfter := objectOrEmpty(after)
	if !okBefore || !okAfter {
		return
	}
	effectiveBefore, readBefore := effectiveHints(b)
	effectiveAfter, readAfter := effectiveHints(a)
	var rewritten []string
	for i, h := range hints {
		pointer := "/annotations/" + h.key
		bv, av := member(b, h.key), member(a, h.key)
		switch {
		case sameJSON(bv, av):
		case !readBefore[h.key] || !readAfter[h.key]:
			r.note(pointer, Cosmetic, "annotation `%s` %s", h.key, verb(bv, av))
		case effectiveBefore[i] == effectiveAfter[i]:
			rewritten = append(rewritten, "`"+h.key+"`")
		case h.aboutWrites && effectiveBefore[0] != effectiveAfter[0]:
			// Whether the tool writes at all is the one change; how it
			// writes follows from it.
		case effectiveAfter[i] == h.safe:
			r.note(pointer, Compatible, "%s", h.safer)
		default:
			r.note(pointer, Breaking, "%s", h.riskier)
		}
	}
	if len(rewritten) > 0 && len(r.changes) == mark {
		r.note("/annotations", Cosmetic, "annotations %s written differently without a change in meaning", strings.Join(rewritten, ", "))
	}
	for _, key := range sortedKeys(b, a) {
		bv, av := member(b, key), member(a, key)
		if isHint(key) || sameJSON(bv, av) {
			continue
		}
		if key == "title" {
			r.text("/annotations/title", "annotation title", bv, av)
		} else {
			r.note("/annotations/"+pointerToken(key), Cosmetic, "annotation `%s` %s", key, verb(bv, av))
		}
	}
}

// effectiveHints returns the value of each hint a client acts on, in the
// order of hints, and which hints were readable (absent or a boolean).
func effectiveHints(annotations map[string]any) ([]bool, map[string]bool) {
	values := make([]bool, len(hints))
	readable := map[string]bool{}
	for i, h := range hints {
		v, ok := member(annotations, h.key).(bool)
		readable[h.key] = ok || isMissing(member(annotations, h.key))
		values[i] = h.absent
		if ok {
			values[i] = v
		}
	}
	if values[0] { // read-only: nothing to destroy, and every repeat is harmless
		for i, h := range hints {
			if h.aboutWrites {
				values[i] = h.safe
			}
		}
	}
	return values, readable
}

func isHint(key string) bool {
	return slices.ContainsFunc(hints, func(h hint) bool { return h.key == key })
}

// outputSchema reports an output schema appearing or disappearing, and
// compares it otherwise.
func (r *recorder) outputSchema(before, after any) {
	switch {
	case sameJSON(before, after):
	case isMissing(before):
		r.add("/outputSchema")
		r.note("/outputSchema", Compatible, "output schema added")
	case isMissing(after):
		r.remove("/outputSchema")
		r.note("/outputSchema", Breaking, "output schema removed")
	default:
		r.schema(output, "/outputSchema", before, after)
	}
}

// meta reports each changed _meta entry as cosmetic.
func (r *recorder) meta(before, after any) {
	if sameJSON(before, after) {
		return
	}
	mark := len(r.changes)
	defer r.noteIfSilent(mark, "/_meta", before, after, "`_meta` "+verb(before, after))
	b, okBefore := objectOrEmpty(before)
	a, okAfter := objectOrEmpty(after)
	if !okBefore || !okAfter {
		return
	}
	for _, key := range sortedKeys(b, a) {
		if bv, av := member(b, key), member(a, key); !sameJSON(bv, av) {
			r.note("/_meta/"+pointerToken(key), Cosmetic, "`_meta` entry `%s` %s", key, verb(bv, av))
		}
	}
}
