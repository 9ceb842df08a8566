package schemadiff

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// maxSchemaVisits bounds the schema pairs one comparison looks at. Real tool
// schemas need a few hundred; only schemas whose references fan out
// exponentially come near it.
const maxSchemaVisits = 10000

// side says which way a widening cuts.
type side int

const (
	input  side = iota // the tool accepts it: accepting more is compatible
	output             // the tool produces it: producing more is breaking
)

// effect is what a change does to the set of values a schema admits.
type effect int

const (
	widening effect = iota
	narrowing
	altering // values both gained and lost
)

func effectOf(widens, narrows bool) effect {
	switch {
	case widens:
		return widening
	case narrows:
		return narrowing
	default:
		return altering
	}
}

// location is where a schema sits: its pointer in the tool object and its
// dotted name for texts ("" for the schema root).
type location struct {
	pointer string
	name    string
}

func (l location) property(name string) location {
	return location{l.pointer + "/properties/" + pointerToken(name), dotted(l.name, name)}
}

func (l location) items() location { return location{l.pointer + "/items", l.name + "[]"} }

func (l location) additional() location {
	return location{l.pointer + "/additionalProperties", dotted(l.name, "*")}
}

func (l location) keyword(k string) string { return l.pointer + "/" + pointerToken(k) }

func dotted(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// schemaDiff compares the two versions of one schema document (inputSchema
// or outputSchema).
type schemaDiff struct {
	*recorder
	side          side
	root          string // pointer of the document in the tool object
	before, after any    // the documents, against which local $refs resolve
	active        map[[2]string]bool
	usedBefore    map[string]bool // $ref targets, computed when first needed
	usedAfter     map[string]bool
	lifted        map[string]map[string]any // see lift
	probing       int                       // how many covered checks this one runs inside
}

func (r *recorder) schema(s side, pointer string, before, after any) {
	if sameJSON(before, after) {
		return // the same document: every reference in it names the same
	}
	d := &schemaDiff{recorder: r, side: s, root: pointer, before: before, after: after, active: map[[2]string]bool{}, lifted: map[string]map[string]any{}}
	// Documents that are not the same JSON do not mean the same: compare
	// would walk them again to find that out.
	d.compareChanged(location{pointer: pointer}, before, after)
}

// compare reports what changed between two schemas at one location. Every
// pair that differs yields at least one change.
func (d *schemaDiff) compare(loc location, before, after any) {
	if !d.sameMeaning(before, after) {
		d.compareChanged(loc, before, after)
	}
}

// compareChanged is compare for two schemas known not to mean the same.
func (d *schemaDiff) compareChanged(loc location, before, after any) {
	// A pair already being compared further up has come round again through a
	// recursive $ref; the comparison up there reports its changes.
	key := [2]string{identity(before), identity(after)}
	if d.active[key] || !d.spend(loc) {
		return
	}
	d.active[key] = true
	defer delete(d.active, key)

	mark := len(d.changes)
	d.compareSchemas(loc, before, after)
	if len(d.changes) == mark {
		d.note(loc.pointer, Cosmetic, "%s rewritten without a change in meaning", d.schemaOf(loc))
	}
}

// identity names a schema value for cycle detection: an object by its
// address, since a cycle revisits the very same objects, anything else by value.
func identity(v any) string {
	if m, ok := v.(map[string]any); ok {
		return fmt.Sprintf("%p", m)
	}
	return "=" + canonical(v)
}

// spend takes one schema comparison from the budget. The comparison that
// exhausts it records a breaking change, so a cut-short result is never
// milder than the truth.
func (d *schemaDiff) spend(loc location) bool {
	switch d.budget {
	case 0:
		return false
	case 1:
		d.budget = 0
		d.note(loc.pointer, Breaking, "%s not compared: the schemas are too large or too deeply recursive", d.schemaOf(loc))
		return false
	}
	d.budget--
	return true
}

// sameMeaning reports whether before (in the old document) and after (in the
// new one) are the same schema: the same JSON, in which every local $ref
// names the same JSON in both documents.
func (d *schemaDiff) sameMeaning(before, after any) bool {
	if !sameJSON(before, after) {
		return false
	}
	if d.withoutRefs {
		return true
	}
	queue := collectRefs(before, nil, false)
	if len(queue) == 0 {
		return true
	}
	seen := map[string]bool{}
	for len(queue) > 0 {
		ref := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[ref] {
			continue
		}
		seen[ref] = true
		b, foundBefore := resolveRef(d.before, ref)
		a, foundAfter := resolveRef(d.after, ref)
		if foundBefore != foundAfter || !sameJSON(b, a) {
			return false
		}
		queue = collectRefs(b, queue, false)
	}
	return true
}

func (d *schemaDiff) compareSchemas(loc location, before, after any) {
	b, okBefore := deref(d.before, before)
	a, okAfter := deref(d.after, after)
	switch {
	case !okBefore && !okAfter:
		d.unclassifiable(loc.pointer, d.schemaOf(loc))
		return
	case !okBefore:
		// A $ref that cannot be followed is compared as written with what
		// the other side has: a union wrapping the same reference is no
		// change.
		b = before
	case !okAfter:
		a = after
	}
	if b == false || a == false {
		d.acceptsNothing(loc, b, a)
		return
	}
	bm, isObjectBefore := b.(map[string]any)
	am, isObjectAfter := a.(map[string]any)
	if !isObjectBefore || !isObjectAfter {
		d.unclassifiable(loc.pointer, d.schemaOf(loc))
		return
	}
	if loc.pointer == d.root {
		d.definitions(loc)
	}
	// A type spelled as a union of branches is described by what the
	// schema accepts rather than by its type keyword.
	spelledAsType := !hasUnion(bm) && !hasUnion(am)
	values := valuesKeyword(bm, am)
	bm, am = normalize(d.before, bm, maxNormalDepth), normalize(d.after, am, maxNormalDepth)
	if d.wholeUnion(loc, bm, am) {
		return
	}
	d.types(loc, bm, am, spelledAsType)
	bm, am = dropVacuous(bm, am)
	d.enum(loc, values, bm, am)
	steps := stepsFor(bm, am)
	for i, step := range keywordSteps {
		if steps&(1<<i) != 0 {
			step.compare(d, loc, bm, am)
		}
	}
	d.otherKeywords(loc, bm, am)
}

// keywordStep is one comparison of compareSchemas with the keywords it
// reads: a step none of whose keywords either schema has finds nothing,
// and is left out.
type keywordStep struct {
	keywords []string
	compare  func(d *schemaDiff, loc location, before, after map[string]any)
}

var (
	keywordSteps     []keywordStep     // after the type and the values, in the order of their changes
	stepOf           map[string]uint32 // for each keyword of keywordSteps, the bit of its step
	analysedKeywords map[string]bool   // the keywords compareSchemas looks at
)

// The steps lead back to compareSchemas, which reads them, so they are
// set up here rather than where they are declared.
func init() {
	keywordSteps = []keywordStep{
		{[]string{"properties", "required"}, (*schemaDiff).properties},
		{[]string{"additionalProperties"}, (*schemaDiff).additionalProperties},
		{[]string{"patternProperties"}, (*schemaDiff).patternProperties},
		{[]string{"dependentRequired"}, (*schemaDiff).dependentRequired},
		{[]string{"dependentSchemas"}, (*schemaDiff).dependentSchemas},
		{[]string{"items", "prefixItems", "additionalItems"}, (*schemaDiff).items},
		{constraintKeywords(), (*schemaDiff).constraints},
		{[]string{"default"}, (*schemaDiff).defaultValue},
		{annotationKeywords(), (*schemaDiff).annotations},
		{[]string{"anyOf", "oneOf"}, (*schemaDiff).unions},
		{[]string{"allOf"}, func(d *schemaDiff, loc location, before, after map[string]any) {
			d.combinator(loc, "allOf", before, after, false)
		}},
		{[]string{"not"}, (*schemaDiff).not},
		{[]string{"if", "then", "else"}, (*schemaDiff).conditional},
		{[]string{"contains", "propertyNames"}, (*schemaDiff).subschemas},
	}
	// $defs and definitions apply only through $ref, which compare follows.
	analysedKeywords = map[string]bool{"type": true, "nullable": true, "enum": true, "$defs": true, "definitions": true}
	stepOf = map[string]uint32{}
	for i, step := range keywordSteps {
		for _, k := range step.keywords {
			stepOf[k] |= 1 << i
			analysedKeywords[k] = true
		}
	}
}

// stepsFor returns the bits of the keywordSteps that read a keyword one of
// the schemas has.
func stepsFor(before, after map[string]any) uint32 {
	var steps uint32
	for k := range before {
		steps |= stepOf[k]
	}
	for k := range after {
		steps |= stepOf[k]
	}
	return steps
}

func hasUnion(m map[string]any) bool {
	return !isMissing(member(m, "anyOf")) || !isMissing(member(m, "oneOf"))
}

// acceptsNothing reports a schema that is or becomes false, which accepts
// no value at all.
func (d *schemaDiff) acceptsNothing(loc location, before, after any) {
	switch {
	case before == false && after == false:
	case after == false:
		d.note(loc.pointer, d.classify(narrowing), "%s no longer %s any value", d.subject(loc), d.accept(loc))
	default:
		d.note(loc.pointer, d.classify(widening), "%s now %s values (it accepted none)", d.subject(loc), d.accept(loc))
	}
}

// classify turns an effect into a class for this side.
func (d *schemaDiff) classify(e effect) Class {
	if e == altering {
		return Breaking
	}
	if (e == widening) == (d.side == input) {
		return Compatible
	}
	return Breaking
}

func (d *schemaDiff) unclassifiable(pointer, what string) {
	d.note(pointer, Breaking, "%s changed in a way that can't be classified automatically", what)
}

// subject names a schema in a text: "`address.zip`", or "input schema".
func (d *schemaDiff) subject(loc location) string {
	if array, ok := strings.CutSuffix(loc.name, "[]"); ok && array != "" {
		return "items of `" + array + "`"
	}
	if loc.name != "" {
		return "`" + loc.name + "`"
	}
	if d.side == input {
		return "input schema"
	}
	return "output schema"
}

// accept is "accepts", or "accept" after a plural subject ("items of `tags`").
func (d *schemaDiff) accept(loc location) string {
	if strings.HasPrefix(d.subject(loc), "items of ") {
		return "accept"
	}
	return "accepts"
}

// schemaOf names a schema as a whole: "schema of `city`", or "input schema".
func (d *schemaDiff) schemaOf(loc location) string {
	if loc.name == "" {
		return d.subject(loc)
	}
	return "schema of " + d.subject(loc)
}

// label names a property in a text: "parameter `city`", "output field `temp`".
func (d *schemaDiff) label(loc location) string {
	if d.side == input {
		return "parameter `" + loc.name + "`"
	}
	return "output field `" + loc.name + "`"
}

// definitions reports changed entries of the root's $defs and definitions
// that no applied $ref uses; the changes of used ones are reported where they
// are used.
func (d *schemaDiff) definitions(loc location) {
	rootBefore, _ := d.before.(map[string]any)
	rootAfter, _ := d.after.(map[string]any)
	for _, keyword := range []string{"$defs", "definitions"} {
		before, after := member(rootBefore, keyword), member(rootAfter, keyword)
		if sameJSON(before, after) {
			continue
		}
		defsBefore, okBefore := objectOrEmpty(before)
		defsAfter, okAfter := objectOrEmpty(after)
		if !okBefore || !okAfter {
			d.note(loc.keyword(keyword), Cosmetic, "`%s` %s", keyword, verb(before, after))
			continue
		}
		for _, name := range sortedKeys(defsBefore, defsAfter) {
			b, a := member(defsBefore, name), member(defsAfter, name)
			pointer := "/" + keyword + "/" + pointerToken(name)
			if !sameJSON(b, a) && !d.used(pointer) {
				d.note(loc.pointer+pointer, Cosmetic, "unused definition `%s` %s", name, verb(b, a))
			}
		}
	}
}

// used reports whether a schema inside either document is a $ref target.
func (d *schemaDiff) used(pointer string) bool {
	if d.usedBefore == nil {
		d.usedBefore, d.usedAfter = usedPointers(d.before), usedPointers(d.after)
	}
	return isUsed(d.usedBefore, pointer) || isUsed(d.usedAfter, pointer)
}

// types compares the admitted types. When only one side has an enum, its
// values' types count, so that {"const":"a"} and {"type":"string"} differ
// only in the values, not in the type.
func (d *schemaDiff) types(loc location, before, after map[string]any, spelledAsType bool) {
	typesOf := admittedTypes
	if isMissing(member(before, "enum")) != isMissing(member(after, "enum")) {
		typesOf = effectiveTypes
	}
	typesBefore, okBefore := typesOf(before)
	typesAfter, okAfter := typesOf(after)
	switch {
	case okBefore && okAfter:
	case sameJSON(member(before, "type"), member(after, "type")) && sameJSON(member(before, "nullable"), member(after, "nullable")):
		return
	case okAfter && typesAfter == nil: // whatever it said, without it any type is accepted
		d.note(loc.keyword("type"), d.classify(widening), "`type` of %s removed: accepts more", d.subject(loc))
		return
	default:
		d.unclassifiable(loc.keyword("type"), "type of "+d.subject(loc))
		return
	}
	widens, narrows := admitsAll(typesAfter, typesBefore), admitsAll(typesBefore, typesAfter)
	if widens && narrows {
		return
	}
	class := d.classify(effectOf(widens, narrows))
	from, hasFrom := typeToken(typesBefore)
	to, hasTo := typeToken(typesAfter)
	if hasFrom && hasTo && from != to {
		d.retype(loc.pointer, from, to)
		if d.side == output {
			class = Breaking
		}
	}
	what := d.subject(loc) + " " + d.accept(loc)
	if spelledAsType {
		what = "`type` of " + d.subject(loc) + " accepts"
	}
	d.note(loc.pointer, class, "%s", typeChangeText(what, typesBefore, typesAfter))
}

// dropVacuous returns both schemas without the keywords for a type family
// that one of them does not admit: on that side they assert nothing, and
// the change of type already says that the family came or went. A schema
// it drops from is copied first: one normalize did not rewrite is the
// compared document's own, which may be shared (see canonjson.DecodeFormInto).
func dropVacuous(before, after map[string]any) (map[string]any, map[string]any) {
	typesBefore, okBefore := admittedTypes(before)
	typesAfter, okAfter := admittedTypes(after)
	if !okBefore || !okAfter {
		return before, after
	}
	vacuous := func(keyword string, _ any) bool {
		kind, ok := keywordKind[keyword]
		return ok && (!admitsKind(typesBefore, kind) || !admitsKind(typesAfter, kind))
	}
	drop := func(m map[string]any) map[string]any {
		// Only keywords it has can be dropped: its own are few, the
		// known keywords many.
		for keyword, v := range m {
			if vacuous(keyword, v) {
				m = maps.Clone(m)
				maps.DeleteFunc(m, vacuous)
				return m
			}
		}
		return m
	}
	return drop(before), drop(after)
}

// admitsKind reports whether a type set admits some type of a family.
func admitsKind(types []string, kind string) bool {
	return types == nil || slices.ContainsFunc(types, func(t string) bool { return kindOf(t) == kind })
}

// typeChangeText says what a type change lets in or keeps out, after what
// names the schema and its verb: "`type` of `note` accepts" gives "`type`
// of `note` now also accepts null".
func typeChangeText(what string, before, after []string) string {
	cut := strings.LastIndex(what, " ")
	subject, verb := what[:cut], what[cut+1:]
	gained, lost := typesOutside(after, before), typesOutside(before, after)
	switch {
	case before == nil:
		return subject + " now " + verb + " only " + describeTypes(after)
	case after == nil:
		return subject + " now " + verb + " any value"
	case len(lost) == 0:
		return subject + " now also " + verb + " " + describeGap(gained, before)
	case len(gained) == 0:
		return subject + " no longer " + verb + " " + describeGap(lost, after)
	case overlap(before, after):
		return subject + " now also " + verb + " " + describeGap(gained, before) + " and no longer " + verb + " " + describeGap(lost, after)
	default:
		return "`type` of " + strings.TrimPrefix(subject, "`type` of ") + " changed from " + typeNames(before) + " to " + typeNames(after)
	}
}

// valuesKeyword names the keyword that lists a schema's values as the tool
// file writes it, for the pointer of a change to them: const when only
// const is written, in the schema after the change or, without either
// there, before it.
func valuesKeyword(before, after map[string]any) string {
	for _, m := range []map[string]any{after, before} {
		_, isConst := m["const"]
		_, isEnum := m["enum"]
		switch {
		case isEnum:
			return "enum"
		case isConst:
			return "const"
		}
	}
	return "enum"
}

// enum compares the lists of admitted values; const arrives here as the
// enum of its one value, and keyword says which of the two the file wrote.
func (d *schemaDiff) enum(loc location, keyword string, before, after map[string]any) {
	b, a := member(before, "enum"), member(after, "enum")
	if sameJSON(b, a) {
		return
	}
	pointer, subject := loc.keyword(keyword), d.subject(loc)
	valuesBefore, listBefore := b.([]any)
	valuesAfter, listAfter := a.([]any)
	switch {
	case isMissing(b) && listAfter && len(valuesAfter) == 1:
		d.note(pointer, d.classify(narrowing), "%s now fixed to `%s`", subject, literal(valuesAfter[0]))
	case isMissing(b) && listAfter:
		d.note(pointer, d.classify(narrowing), "%s now restricted to the values %s", subject, literals(valuesAfter))
	case listBefore && isMissing(a) && len(valuesBefore) == 1:
		d.note(pointer, d.classify(widening), "%s no longer fixed to `%s`", subject, literal(valuesBefore[0]))
	case isMissing(a): // whatever it said, without it more is accepted
		d.note(pointer, d.classify(widening), "%s no longer restricted to a list of values", subject)
	case listBefore && listAfter && len(valuesBefore) == 1 && len(valuesAfter) == 1:
		d.note(pointer, d.classify(altering), "value of %s changed from `%s` to `%s`", subject, literal(valuesBefore[0]), literal(valuesAfter[0]))
	case listBefore && listAfter:
		for _, v := range missingFrom(valuesBefore, valuesAfter) {
			d.note(pointer, d.classify(narrowing), "enum value `%s` removed from %s", literal(v), subject)
		}
		for _, v := range missingFrom(valuesAfter, valuesBefore) {
			d.note(pointer, d.classify(widening), "enum value `%s` added to %s", literal(v), subject)
		}
	default:
		d.unclassifiable(pointer, "enum of "+subject)
	}
}

// missingFrom returns the values of list that others lacks, once each, in order.
func missingFrom(list, others []any) []any {
	present := map[string]bool{}
	for _, v := range others {
		present[canonical(v)] = true
	}
	var out []any
	for _, v := range list {
		if c := canonical(v); !present[c] {
			present[c] = true
			out = append(out, v)
		}
	}
	return out
}

// literals writes values for a text: "`a`, `b`".
func literals(values []any) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = "`" + literal(v) + "`"
	}
	return strings.Join(quoted, ", ")
}

// properties compares the properties of an object schema and which of them
// are required.
func (d *schemaDiff) properties(loc location, before, after map[string]any) {
	propsBefore, propsAfter, _ := d.keywordObjects(loc, before, after, "properties", "properties")
	requiredBefore, okBefore := stringSet(member(before, "required"))
	requiredAfter, okAfter := stringSet(member(after, "required"))
	if !okBefore && okAfter && len(requiredAfter) == 0 {
		d.note(loc.keyword("required"), d.classify(widening), "`required` of %s removed: accepts more", d.subject(loc))
		requiredBefore, okBefore = requiredAfter, true
	}
	if !okBefore || !okAfter {
		if !sameJSON(member(before, "required"), member(after, "required")) {
			d.unclassifiable(loc.keyword("required"), "required properties of "+d.subject(loc))
		}
		requiredBefore, requiredAfter = nil, nil
	}

	renames := d.renames(propsBefore, propsAfter)
	renamedTo := map[string]bool{}
	for _, to := range renames {
		renamedTo[to] = true
	}
	// Most properties of a changed schema did not change: they are left
	// out before the rest are sorted and their locations written out.
	changed := slices.DeleteFunc(keys(propsBefore, propsAfter), func(name string) bool {
		b, a := member(propsBefore, name), member(propsAfter, name)
		return !isMissing(b) && !isMissing(a) && requiredBefore[name] == requiredAfter[name] && d.sameMeaning(b, a)
	})
	slices.Sort(changed)
	for _, name := range changed {
		child := loc.property(name)
		b, a := member(propsBefore, name), member(propsAfter, name)
		newName, renamed := renames[name]
		switch {
		case !isMissing(b) && !isMissing(a):
			d.compare(child, b, a)
			d.requiredness(child, requiredBefore[name], requiredAfter[name])
		case renamed:
			to := loc.property(newName)
			d.rename(child.pointer, to.pointer)
			d.note(child.pointer, Breaking, "%s renamed to `%s`", d.label(child), to.name)
			d.requiredness(to, requiredBefore[name], requiredAfter[newName])
		case isMissing(a):
			d.remove(child.pointer)
			d.note(child.pointer, Breaking, "%s removed", d.label(child))
		case !renamedTo[name]:
			d.added(child, requiredAfter[name])
		}
	}
	// Names required without a schema of their own.
	for _, name := range sortedKeys(requiredBefore, requiredAfter) {
		_, declaredBefore := propsBefore[name]
		_, declaredAfter := propsAfter[name]
		if !declaredBefore && !declaredAfter {
			d.requiredness(loc.property(name), requiredBefore[name], requiredAfter[name])
		}
	}
}

// renames pairs each vanished property with the new property whose schema is
// the same, when that pairing is unique both ways; any other vanished or new
// property is a removal or an addition.
func (d *schemaDiff) renames(before, after map[string]any) map[string]string {
	gone := absentFrom(before, after)
	if len(gone) == 0 {
		return nil
	}
	arrived := absentFrom(after, before)
	if len(arrived) == 0 {
		return nil
	}
	same := make([][]bool, len(gone))
	matchesOf := make([]int, len(arrived)) // how many gone properties each arrived one matches
	for i, g := range gone {
		same[i] = make([]bool, len(arrived))
		for j, a := range arrived {
			if d.sameMeaning(before[g], after[a]) {
				same[i][j] = true
				matchesOf[j]++
			}
		}
	}
	renames := map[string]string{}
	for i, g := range gone {
		match, count := -1, 0
		for j := range arrived {
			if same[i][j] {
				match, count = j, count+1
			}
		}
		if count == 1 && matchesOf[match] == 1 {
			renames[g] = arrived[match]
		}
	}
	return renames
}

func (d *schemaDiff) added(loc location, required bool) {
	d.add(loc.pointer)
	switch {
	case d.side == output:
		d.note(loc.pointer, Compatible, "%s added", d.label(loc))
	case required:
		d.note(loc.pointer, Breaking, "new required parameter `%s`", loc.name)
	default:
		d.note(loc.pointer, Compatible, "new optional parameter `%s`", loc.name)
	}
}

func (d *schemaDiff) requiredness(loc location, wasRequired, isRequired bool) {
	switch {
	case wasRequired == isRequired:
	case isRequired:
		d.note(loc.pointer, d.classify(narrowing), "%s is now required", d.label(loc))
	default:
		d.note(loc.pointer, d.classify(widening), "%s is now optional", d.label(loc))
	}
}

// orAnything reads a missing schema-valued keyword as the schema that admits
// anything.
func orAnything(v any) any {
	if isMissing(v) {
		return true
	}
	return v
}

func (d *schemaDiff) additionalProperties(loc location, before, after map[string]any) {
	b, a := orAnything(member(before, "additionalProperties")), orAnything(member(after, "additionalProperties"))
	if d.sameMeaning(b, a) {
		return
	}
	pointer, subject := loc.keyword("additionalProperties"), d.subject(loc)
	switch {
	case a == false:
		d.note(pointer, d.classify(narrowing), "additional properties no longer allowed in %s", subject)
	case b == false:
		d.note(pointer, d.classify(widening), "additional properties now allowed in %s", subject)
	default:
		d.compare(loc.additional(), b, a)
	}
}

// items compares the items of arrays: positional ones (prefixItems, or a
// draft-07 items list) position by position, then the schema of the items
// after them. A position one side lacks is held to that side's rest.
func (d *schemaDiff) items(loc location, before, after map[string]any) {
	posBefore, posKeyBefore, restBefore, restKeyBefore := arrayItems(before)
	posAfter, posKeyAfter, restAfter, restKeyAfter := arrayItems(after)
	for i := range max(len(posBefore), len(posAfter)) {
		b, a, pointer := restBefore, restAfter, loc.keyword(restKeyAfter)
		if i < len(posBefore) {
			b = posBefore[i]
		}
		if i < len(posAfter) {
			a, pointer = posAfter[i], loc.keyword(posKeyAfter)+"/"+strconv.Itoa(i)
		} else if i < len(posBefore) {
			pointer = loc.keyword(posKeyBefore) + "/" + strconv.Itoa(i)
		}
		d.compare(location{pointer, loc.name + "[" + strconv.Itoa(i) + "]"}, orAnything(b), orAnything(a))
	}
	rest := loc.items()
	rest.pointer = loc.keyword(cmp.Or(restKeyAfter, restKeyBefore))
	if !d.sameMeaning(restBefore, restAfter) {
		d.compare(rest, orAnything(restBefore), orAnything(restAfter))
	}
}

// arrayItems returns the positional item schemas of an array schema with
// their keyword, and the schema of the items after them with its keyword.
func arrayItems(m map[string]any) (positional []any, posKeyword string, rest any, restKeyword string) {
	if list, ok := member(m, "prefixItems").([]any); ok {
		return list, "prefixItems", member(m, "items"), "items"
	}
	if list, ok := member(m, "items").([]any); ok {
		return list, "items", member(m, "additionalItems"), "additionalItems"
	}
	return nil, "", member(m, "items"), "items"
}

// bounds are the numeric range constraints; a lower bound admits fewer
// values as it rises, an upper bound as it falls.
var bounds = []struct {
	keyword string
	lower   bool
}{
	{"minimum", true}, {"maximum", false},
	{"exclusiveMinimum", true}, {"exclusiveMaximum", false},
	{"minLength", true}, {"maxLength", false},
	{"minItems", true}, {"maxItems", false},
	{"minProperties", true}, {"maxProperties", false},
	{"minContains", true}, {"maxContains", false},
}

// stringConstraints admit fewer values when added, more when removed, and
// an unknown difference when changed.
var stringConstraints = []string{"pattern", "format"}

func (d *schemaDiff) constraints(loc location, before, after map[string]any) {
	for _, b := range bounds {
		d.bound(loc, b.keyword, b.lower, before, after)
	}
	d.multipleOf(loc, before, after)
	d.uniqueItems(loc, before, after)
	for _, keyword := range stringConstraints {
		d.stringConstraint(loc, keyword, before, after)
	}
}

func (d *schemaDiff) bound(loc location, keyword string, lower bool, before, after map[string]any) {
	b, a := member(before, keyword), member(after, keyword)
	if sameJSON(b, a) {
		return
	}
	pointer, what := loc.keyword(keyword), fmt.Sprintf("`%s` of %s", keyword, d.subject(loc))
	valueBefore, numberBefore := b.(float64)
	valueAfter, numberAfter := a.(float64)
	switch {
	case isMissing(b) && numberAfter:
		d.note(pointer, d.classify(narrowing), "%s set to %s", what, literal(a))
	case isMissing(a): // whatever it said, without it more is accepted
		d.note(pointer, d.classify(widening), "%s removed", what)
	case numberBefore && numberAfter:
		raised := valueAfter > valueBefore
		direction, e := "lowered", widening
		if raised {
			direction = "raised"
		}
		if raised == lower {
			e = narrowing
		}
		d.note(pointer, d.classify(e), "%s %s from %s to %s", what, direction, literal(b), literal(a))
	default:
		d.unclassifiable(pointer, what)
	}
}

func (d *schemaDiff) multipleOf(loc location, before, after map[string]any) {
	b, a := member(before, "multipleOf"), member(after, "multipleOf")
	if sameJSON(b, a) {
		return
	}
	pointer, what := loc.keyword("multipleOf"), "`multipleOf` of "+d.subject(loc)
	valueBefore, numberBefore := b.(float64)
	valueAfter, numberAfter := a.(float64)
	switch {
	case isMissing(b) && numberAfter:
		d.note(pointer, d.classify(narrowing), "%s set to %s", what, literal(a))
	case isMissing(a): // whatever it said, without it more is accepted
		d.note(pointer, d.classify(widening), "%s removed", what)
	case numberBefore && numberAfter && valueBefore > 0 && valueAfter > 0:
		// Multiples of 4 are multiples of 2: a new step that is a multiple
		// of the old one admits fewer values.
		e := effectOf(isWholeMultiple(valueBefore, valueAfter), isWholeMultiple(valueAfter, valueBefore))
		d.note(pointer, d.classify(e), "%s changed from %s to %s", what, literal(b), literal(a))
	default:
		d.unclassifiable(pointer, what)
	}
}

// isWholeMultiple reports whether x is a whole multiple of step.
func isWholeMultiple(x, step float64) bool {
	q := x / step
	return !math.IsInf(q, 0) && q == math.Trunc(q)
}

func (d *schemaDiff) uniqueItems(loc location, before, after map[string]any) {
	b, a := member(before, "uniqueItems"), member(after, "uniqueItems")
	if sameJSON(b, a) {
		return
	}
	pointer, subject := loc.keyword("uniqueItems"), d.subject(loc)
	uniqueBefore, okBefore := boolOrFalse(b)
	uniqueAfter, okAfter := boolOrFalse(a)
	switch {
	case !okBefore || !okAfter:
		d.unclassifiable(pointer, "`uniqueItems` of "+subject)
	case uniqueAfter && !uniqueBefore:
		d.note(pointer, d.classify(narrowing), "items of %s must now be unique", subject)
	case uniqueBefore && !uniqueAfter:
		d.note(pointer, d.classify(widening), "items of %s no longer need to be unique", subject)
	}
}

// boolOrFalse reads a boolean keyword whose absence means false.
func boolOrFalse(v any) (value, ok bool) {
	if isMissing(v) {
		return false, true
	}
	value, ok = v.(bool)
	return value, ok
}

func (d *schemaDiff) stringConstraint(loc location, keyword string, before, after map[string]any) {
	b, a := member(before, keyword), member(after, keyword)
	if sameJSON(b, a) {
		return
	}
	pointer, what := loc.keyword(keyword), fmt.Sprintf("`%s` of %s", keyword, d.subject(loc))
	_, stringBefore := b.(string)
	_, stringAfter := a.(string)
	switch {
	case isMissing(b) && stringAfter:
		d.note(pointer, d.classify(narrowing), "%s set to `%s`", what, literal(a))
	case isMissing(a): // whatever it said, without it more is accepted
		d.note(pointer, d.classify(widening), "%s removed", what)
	case stringBefore && stringAfter:
		d.note(pointer, d.classify(altering), "%s changed from `%s` to `%s`: whether one admits all the other does can't be decided", what, literal(b), literal(a))
	default:
		d.unclassifiable(pointer, what)
	}
}

// defaultValue reports a changed or removed default of an input as
// breaking: a call that omits the value now gets another one. Setting a
// default documents what such a call gets, which is compatible. In an
// output schema a default is only documentation.
func (d *schemaDiff) defaultValue(loc location, before, after map[string]any) {
	b, a := member(before, "default"), member(after, "default")
	if sameJSON(b, a) {
		return
	}
	pointer, subject := loc.keyword("default"), d.subject(loc)
	class, setClass := Breaking, Compatible
	removed, changed := ": a call that omits it may now behave differently", ": a call that omits it now behaves differently"
	if d.side == output {
		class, setClass, removed, changed = Cosmetic, Cosmetic, "", ""
	}
	switch {
	case isMissing(b):
		d.note(pointer, setClass, "default of %s set to `%s`", subject, literal(a))
	case isMissing(a):
		d.note(pointer, class, "default of %s removed%s", subject, removed)
	default:
		d.note(pointer, class, "default of %s changed from `%s` to `%s`%s", subject, literal(b), literal(a), changed)
	}
}

// schemaAnnotations are the keywords only people read, with their names in texts.
var schemaAnnotations = []struct{ keyword, noun string }{
	{"title", "title"}, {"description", "description"}, {"examples", "examples"}, {"$comment", "comment"},
}

func (d *schemaDiff) annotations(loc location, before, after map[string]any) {
	subject := d.subject(loc)
	for _, an := range schemaAnnotations {
		if b, a := member(before, an.keyword), member(after, an.keyword); !sameJSON(b, a) {
			d.note(loc.keyword(an.keyword), Cosmetic, "%s of %s %s", an.noun, subject, verb(b, a))
		}
	}
	b, a := member(before, "deprecated"), member(after, "deprecated")
	switch {
	case sameJSON(b, a):
	case a == true:
		d.note(loc.keyword("deprecated"), Cosmetic, "%s marked deprecated", subject)
	case b == true:
		d.note(loc.keyword("deprecated"), Cosmetic, "%s no longer marked deprecated", subject)
	default:
		d.note(loc.keyword("deprecated"), Cosmetic, "`deprecated` of %s %s", subject, verb(b, a))
	}
}

// constraintKeywords are the keywords constraints reads.
func constraintKeywords() []string {
	keywords := []string{"multipleOf", "uniqueItems"}
	for _, b := range bounds {
		keywords = append(keywords, b.keyword)
	}
	return append(keywords, stringConstraints...)
}

// annotationKeywords are the keywords annotations reads.
func annotationKeywords() []string {
	keywords := []string{"deprecated"}
	for _, an := range schemaAnnotations {
		keywords = append(keywords, an.keyword)
	}
	return keywords
}

// otherKeywords reports every other keyword that changed as unclassifiable:
// a keyword this package does not know may widen or narrow, so the honest
// answer is "breaking".
func (d *schemaDiff) otherKeywords(loc location, before, after map[string]any) {
	others := slices.DeleteFunc(keys(before, after), func(k string) bool { return analysedKeywords[k] })
	slices.Sort(others)
	for _, keyword := range others {
		// A schema such a keyword refers to counts where it is applied.
		if !sameJSON(member(before, keyword), member(after, keyword)) {
			d.unclassifiable(loc.keyword(keyword), fmt.Sprintf("`%s` of %s", keyword, d.subject(loc)))
		}
	}
}
