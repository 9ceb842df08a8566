package schemadiff

import "fmt"

// patternProperties compares the schemas for properties whose names match
// a pattern. A pattern that appears takes over the matching properties from
// additionalProperties, so its schema is compared with that; one that goes
// hands them back. Patterns that go while others come are breaking:
// whether two regular expressions match the same names is not decided
// here.
func (d *schemaDiff) patternProperties(loc location, before, after map[string]any) {
	b, a, ok := d.keywordObjects(loc, before, after, "patternProperties", "`patternProperties`")
	if !ok {
		return
	}
	restBefore, restAfter := orAnything(member(before, "additionalProperties")), orAnything(member(after, "additionalProperties"))
	gone, arrived := onlyIn(b, a), onlyIn(a, b)
	replaced := len(gone) > 0 && len(arrived) > 0
	if replaced {
		d.note(loc.keyword("patternProperties"), Breaking, "property name patterns of %s changed from %s to %s: whether one matches the names the other does can't be decided",
			d.subject(loc), literals(gone), literals(arrived))
	}
	for _, pattern := range sortedKeys(b, a) {
		child := location{loc.keyword("patternProperties") + "/" + pointerToken(pattern), dotted(loc.name, "/"+pattern+"/")}
		sb, sa := member(b, pattern), member(a, pattern)
		switch {
		case replaced && (isMissing(sb) || isMissing(sa)):
		case isMissing(sb):
			d.compare(child, restBefore, sa)
		case isMissing(sa):
			d.compare(child, sb, restAfter)
		default:
			d.compare(child, sb, sa)
		}
	}
}

// onlyIn returns the keys of m that others lacks, sorted, as values for
// literals.
func onlyIn(m, others map[string]any) []any {
	var out []any
	for _, k := range absentFrom(m, others) {
		out = append(out, k)
	}
	return out
}

// dependentRequired compares the properties that must come along when a
// property is present; each one more accepts less.
func (d *schemaDiff) dependentRequired(loc location, before, after map[string]any) {
	b, okBefore := objectOrEmpty(member(before, "dependentRequired"))
	a, okAfter := objectOrEmpty(member(after, "dependentRequired"))
	subject := d.subject(loc)
	if !okBefore || !okAfter {
		if !sameJSON(member(before, "dependentRequired"), member(after, "dependentRequired")) {
			d.unclassifiable(loc.keyword("dependentRequired"), "`dependentRequired` of "+subject)
		}
		return
	}
	for _, key := range sortedKeys(b, a) {
		pointer := loc.keyword("dependentRequired") + "/" + pointerToken(key)
		namesBefore, okBefore := stringSet(member(b, key))
		namesAfter, okAfter := stringSet(member(a, key))
		if !okBefore || !okAfter {
			if !sameJSON(member(b, key), member(a, key)) {
				d.unclassifiable(pointer, fmt.Sprintf("`dependentRequired` of `%s` in %s", key, subject))
			}
			continue
		}
		for _, name := range sortedKeys(namesBefore, namesAfter) {
			switch {
			case namesAfter[name] && !namesBefore[name]:
				d.note(pointer, d.classify(narrowing), "`%s` now required in %s whenever `%s` is present", name, subject, key)
			case namesBefore[name] && !namesAfter[name]:
				d.note(pointer, d.classify(widening), "`%s` no longer required in %s whenever `%s` is present", name, subject, key)
			}
		}
	}
}

// dependentSchemas compares the schemas that apply when a property is
// present, each like any condition of the schema.
func (d *schemaDiff) dependentSchemas(loc location, before, after map[string]any) {
	b, a, ok := d.keywordObjects(loc, before, after, "dependentSchemas", "`dependentSchemas`")
	if !ok {
		return
	}
	for _, key := range sortedKeys(b, a) {
		d.subschema(loc, fmt.Sprintf("`dependentSchemas` entry `%s` of %s", key, d.subject(loc)), member(b, key), member(a, key), "dependentSchemas", key)
	}
}

// not compares the schema a value must not match: it accepts more as that
// schema accepts less, so the comparison inside it runs the other way.
func (d *schemaDiff) not(loc location, before, after map[string]any) {
	b, a := member(before, "not"), member(after, "not")
	pointer, subject := loc.keyword("not"), d.subject(loc)
	switch {
	case d.sameMeaning(b, a):
	case isMissing(b):
		d.note(pointer, d.classify(narrowing), "`not` of %s added: accepts less", subject)
	case isMissing(a):
		d.note(pointer, d.classify(widening), "`not` of %s removed: accepts more", subject)
	default:
		reversed := *d
		reversed.side = 1 - d.side
		reversed.compare(location{pointer, loc.name}, b, a)
	}
}

// conditional compares if/then/else. With the same condition (or one whose
// outcome does not matter, because then and else accept anything on one
// side), then and else are compared like any condition. A changed
// condition that matters can't be compared, and is breaking.
func (d *schemaDiff) conditional(loc location, before, after map[string]any) {
	ifBefore, ifAfter := member(before, "if"), member(after, "if")
	if isMissing(ifBefore) && isMissing(ifAfter) {
		return // then and else apply to nothing
	}
	thenBefore, elseBefore := d.consequence(before, "then"), d.consequence(before, "else")
	thenAfter, elseAfter := d.consequence(after, "then"), d.consequence(after, "else")
	trivialBefore := acceptsAnything(d.before, thenBefore) && acceptsAnything(d.before, elseBefore)
	trivialAfter := acceptsAnything(d.after, thenAfter) && acceptsAnything(d.after, elseAfter)
	if !d.sameMeaning(ifBefore, ifAfter) && !trivialBefore && !trivialAfter {
		d.note(loc.keyword("if"), Breaking, "condition `if` of %s changed: which values `then` and `else` apply to can't be compared", d.subject(loc))
		return
	}
	d.subschema(loc, "`then` of "+d.subject(loc), thenBefore, thenAfter, "then")
	d.subschema(loc, "`else` of "+d.subject(loc), elseBefore, elseAfter, "else")
}

// consequence returns then or else of a schema; without if they apply to
// nothing.
func (d *schemaDiff) consequence(m map[string]any, keyword string) any {
	if isMissing(member(m, "if")) {
		return missing{}
	}
	return member(m, keyword)
}

// subschemas compares contains and propertyNames, which accept more as
// their schema does.
func (d *schemaDiff) subschemas(loc location, before, after map[string]any) {
	for _, keyword := range []string{"contains", "propertyNames"} {
		b, a := member(before, keyword), member(after, keyword)
		if isMissing(b) && isMissing(a) {
			continue // most schemas have neither: the text is not written
		}
		d.subschema(loc, fmt.Sprintf("`%s` of %s", keyword, d.subject(loc)), b, a, keyword)
	}
}

// subschema compares a schema that is one more condition on the value at
// loc: it accepts more as that schema does, and one that appears (unless it
// accepts anything) accepts less. tokens lead from loc to the schema.
func (d *schemaDiff) subschema(loc location, what string, before, after any, tokens ...string) {
	pointer := loc.pointer
	for _, token := range tokens {
		pointer += "/" + pointerToken(token)
	}
	switch {
	case d.sameMeaning(before, after):
	case isMissing(before) && !acceptsAnything(d.after, after):
		d.note(pointer, d.classify(narrowing), "%s added: accepts less", what)
	case isMissing(after) && !acceptsAnything(d.before, before):
		d.note(pointer, d.classify(widening), "%s removed: accepts more", what)
	default:
		d.compare(location{pointer, loc.name}, orAnything(before), orAnything(after))
	}
}

// acceptsAnything reports whether s is missing or a schema that asserts
// nothing.
func acceptsAnything(doc, s any) bool {
	if isMissing(s) {
		return true
	}
	m := normalized(doc, s, maxNormalDepth)
	return m != nil && len(assertions(m)) == 0
}

// keywordObjects returns the objects keyword holds before and after (empty
// where it is missing). ok is false when either is not an object; a
// change between such values that does not keep their meaning is then
// reported as one that can't be classified, naming what (of the schema).
func (d *schemaDiff) keywordObjects(loc location, before, after map[string]any, keyword, what string) (b, a map[string]any, ok bool) {
	b, okBefore := objectOrEmpty(member(before, keyword))
	a, okAfter := objectOrEmpty(member(after, keyword))
	if okBefore && okAfter {
		return b, a, true
	}
	if !d.sameMeaning(member(before, keyword), member(after, keyword)) {
		d.unclassifiable(loc.keyword(keyword), what+" of "+d.subject(loc))
	}
	return nil, nil, false
}
