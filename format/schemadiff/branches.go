package schemadiff

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// branch is one schema of a combinator (or a whole schema standing in for
// the one branch of a union it is compared with).
type branch struct {
	pointer string
	schema  any            // as written, for comparing
	norm    map[string]any // resolved and normalized, nil when unreadable
	index   int            // position in the combinator, 1-based for texts; 0 for a whole schema
}

func (d *schemaDiff) branchesOf(doc any, loc location, keyword string, m map[string]any) []branch {
	list, _ := m[keyword].([]any)
	out := make([]branch, len(list))
	for i, s := range list {
		out[i] = branch{pointer: loc.keyword(keyword) + "/" + strconv.Itoa(i), schema: s, norm: normalized(doc, s, maxNormalDepth), index: i + 1}
	}
	return out
}

// normalized resolves s inside doc and normalizes it, following branches
// depth levels deep; nil when it is not an object schema.
func normalized(doc, s any, depth int) map[string]any {
	r, ok := deref(doc, s)
	m, isObject := r.(map[string]any)
	if !ok || !isObject {
		return nil
	}
	return normalize(doc, m, depth)
}

// unionKeyword returns "anyOf" or "oneOf" when the schema is nothing but
// that union (and keywords that assert nothing), so that it can be compared
// branch by branch with a schema written without one.
func unionKeyword(m map[string]any) string {
	keyword := ""
	for k, v := range m {
		switch {
		case k == "anyOf" || k == "oneOf":
			if _, ok := v.([]any); !ok || keyword != "" {
				return ""
			}
			keyword = k
		case !metaKeywords[k]:
			return ""
		}
	}
	return keyword
}

// wholeUnion compares two schemas of which at least one is nothing but an
// anyOf or oneOf, branch by branch; a schema without a union is its own one
// branch. It reports whether it did.
func (d *schemaDiff) wholeUnion(loc location, before, after map[string]any) bool {
	kb, ka := unionKeyword(before), unionKeyword(after)
	if kb == "" && ka == "" {
		return false
	}
	side := func(doc any, k string, m map[string]any) []branch {
		if k != "" {
			return d.branchesOf(doc, loc, k, m)
		}
		var out []branch
		for _, b := range splitByKind(assertions(m)) {
			lifted := d.lift(b)
			out = append(out, branch{pointer: loc.pointer, schema: lifted, norm: lifted})
		}
		return out
	}
	d.annotations(loc, before, after)
	d.defaultValue(loc, before, after)
	keyword := cmp.Or(ka, kb)
	if kb != "" && ka != "" && kb != ka {
		d.unionKind(loc, kb, ka)
	}
	branchesBefore, branchesAfter := side(d.before, kb, before), side(d.after, ka, after)
	from, hasFrom := typeToken(unionTypes(branchesBefore))
	to, hasTo := typeToken(unionTypes(branchesAfter))
	if hasFrom && hasTo && from != to {
		d.retype(loc.pointer, from, to)
	}
	d.oneOfOverlaps(loc, kb, ka, branchesBefore, branchesAfter)
	d.pairBranches(loc, keyword, branchesBefore, branchesAfter, true)
	return true
}

// unionTypes returns the types the branches admit together; nil (every
// type) when one of them admits every type or cannot be read.
func unionTypes(branches []branch) []string {
	var types []string
	for _, b := range branches {
		if b.norm == nil {
			return nil
		}
		t, ok := effectiveTypes(b.norm)
		if !ok || t == nil {
			return nil
		}
		types = append(types, t...)
	}
	slices.SortFunc(types, compareTypeNames)
	return slices.Compact(types)
}

// lift returns one map for each schema value it is given, so that a
// recursive $ref that brings the same lifted schema round again meets the
// very same map, which ends the recursion.
func (d *schemaDiff) lift(m map[string]any) map[string]any {
	key := canonical(m)
	if lifted, ok := d.lifted[key]; ok {
		return lifted
	}
	d.lifted[key] = m
	return m
}

// splitByKind writes a schema that admits several type families as the
// union of one schema per family, each with the keywords for its family
// and all the others: a value of a family meets the schema exactly when it
// meets that family's branch.
func splitByKind(m map[string]any) []map[string]any {
	types, ok := admittedTypes(m)
	if !ok || types == nil {
		return []map[string]any{m}
	}
	var kinds []string
	byKind := map[string][]any{}
	for _, t := range types {
		k := kindOf(t)
		if byKind[k] == nil {
			kinds = append(kinds, k)
		}
		byKind[k] = append(byKind[k], t)
	}
	if len(kinds) < 2 {
		return []map[string]any{m}
	}
	out := make([]map[string]any, len(kinds))
	for i, k := range kinds {
		b := map[string]any{"type": byKind[k]}
		if len(byKind[k]) == 1 {
			b["type"] = byKind[k][0]
		}
		for key, v := range m {
			if kind, specific := keywordKind[key]; key != "type" && key != "nullable" && (!specific || kind == k) {
				b[key] = v
			}
		}
		out[i] = b
	}
	return out
}

// assertions returns m without the keywords that assert nothing.
func assertions(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if !metaKeywords[k] {
			out[k] = v
		}
	}
	return out
}

// unionKind reports an anyOf that became a oneOf or back: a value matching
// several branches is accepted by anyOf only.
func (d *schemaDiff) unionKind(loc location, from, to string) {
	e := narrowing
	if to == "anyOf" {
		e = widening
	}
	d.note(loc.keyword(to), d.classify(e), "`%s` of %s became `%s`: a value matching several branches is %s", from, d.subject(loc), to,
		map[effect]string{widening: "now accepted", narrowing: "now rejected"}[e])
}

// unions compares anyOf and oneOf that sit next to other assertions, where
// each is one more condition: adding one accepts less, removing one more.
func (d *schemaDiff) unions(loc location, before, after map[string]any) {
	for _, keyword := range []string{"anyOf", "oneOf"} {
		d.combinator(loc, keyword, before, after, true)
	}
}

// combinator compares one anyOf, oneOf (union) or allOf (not union) of a
// schema. Present on one side only, it is a condition added or removed.
func (d *schemaDiff) combinator(loc location, keyword string, before, after map[string]any, union bool) {
	b, a := member(before, keyword), member(after, keyword)
	if d.sameMeaning(b, a) {
		return
	}
	_, listBefore := b.([]any)
	_, listAfter := a.([]any)
	pointer, subject := loc.keyword(keyword), d.subject(loc)
	switch {
	case isMissing(b) && listAfter:
		d.note(pointer, d.classify(narrowing), "`%s` of %s added: accepts less", keyword, subject)
	case listBefore && isMissing(a):
		d.note(pointer, d.classify(widening), "`%s` of %s removed: accepts more", keyword, subject)
	case listBefore && listAfter:
		branchesBefore, branchesAfter := d.branchesOf(d.before, loc, keyword, before), d.branchesOf(d.after, loc, keyword, after)
		d.oneOfOverlaps(loc, keyword, keyword, branchesBefore, branchesAfter)
		d.pairBranches(loc, keyword, branchesBefore, branchesAfter, union)
	default:
		d.unclassifiable(pointer, fmt.Sprintf("`%s` of %s", keyword, subject))
	}
}

// pairBranches pairs old and new branches, compares each pair, and reports
// the branches left over. In a union a branch added widens and a branch
// removed narrows, unless another branch already covers it; in allOf it is
// the other way round.
func (d *schemaDiff) pairBranches(loc location, keyword string, before, after []branch, union bool) {
	pairs, leftBefore, leftAfter := d.pair(before, after)
	for _, p := range pairs {
		b, a := before[p[0]], after[p[1]]
		if union && !d.sameMeaning(b.schema, a.schema) {
			inA := d.covered(b, []branch{a}, false)
			switch {
			case inA && d.covered(a, before, true):
				continue // nothing lost, and what a adds the old branches accepted
			case !inA && d.covered(b, after, false):
				leftAfter = append(leftAfter, p[1]) // the new branches still accept b; a stands alone
				continue
			}
		}
		d.compare(location{pointer: a.pointer, name: loc.name}, b.schema, a.schema)
	}
	slices.Sort(leftAfter)
	for _, i := range leftBefore {
		b := before[i]
		if union && d.covered(b, after, false) {
			continue
		}
		if union {
			d.note(b.pointer, d.classify(narrowing), "%s no longer %s %s", d.subject(loc), d.accept(loc), describeBranch(keyword, b))
		} else {
			d.note(b.pointer, d.classify(widening), "condition %d of `allOf` of %s removed: accepts more", b.index, d.subject(loc))
		}
	}
	for _, j := range leftAfter {
		a := after[j]
		if union && d.covered(a, before, true) {
			continue
		}
		if union {
			d.note(a.pointer, d.classify(widening), "%s now also %s %s", d.subject(loc), d.accept(loc), describeBranch(keyword, a))
		} else {
			d.note(a.pointer, d.classify(narrowing), "condition %d added to `allOf` of %s: accepts less", a.index, d.subject(loc))
		}
	}
}

// pair matches old and new branches: first those with the same meaning, in
// order, then by likeness (same types, overlapping types, shared property
// names), most alike first, ties in order. Branches that admit no common
// type stay unpaired.
func (d *schemaDiff) pair(before, after []branch) (pairs [][2]int, leftBefore, leftAfter []int) {
	usedBefore, usedAfter := make([]bool, len(before)), make([]bool, len(after))
	for i, b := range before {
		for j, a := range after {
			if !usedAfter[j] && d.sameMeaning(b.schema, a.schema) {
				usedBefore[i], usedAfter[j] = true, true
				pairs = append(pairs, [2]int{i, j})
				break
			}
		}
	}
	type candidate struct{ i, j, score int }
	var candidates []candidate
	for i, b := range before {
		for j, a := range after {
			if s := likeness(b.norm, a.norm); !usedBefore[i] && !usedAfter[j] && s > 0 {
				candidates = append(candidates, candidate{i, j, s})
			}
		}
	}
	slices.SortStableFunc(candidates, func(x, y candidate) int { return y.score - x.score })
	for _, c := range candidates {
		if !usedBefore[c.i] && !usedAfter[c.j] {
			usedBefore[c.i], usedAfter[c.j] = true, true
			pairs = append(pairs, [2]int{c.i, c.j})
		}
	}
	slices.SortFunc(pairs, func(x, y [2]int) int { return cmp.Or(x[0]-y[0], x[1]-y[1]) })
	for i, used := range usedBefore {
		if !used {
			leftBefore = append(leftBefore, i)
		}
	}
	for j, used := range usedAfter {
		if !used {
			leftAfter = append(leftAfter, j)
		}
	}
	return pairs, leftBefore, leftAfter
}

// likeness scores how alike two branches are; 0 means they share no type.
func likeness(b, a map[string]any) int {
	if b == nil || a == nil {
		return 0
	}
	tb, _ := effectiveTypes(b)
	ta, _ := effectiveTypes(a)
	score := 0
	switch {
	case slices.Equal(tb, ta):
		score = 100
	case admitsAll(tb, ta) || admitsAll(ta, tb) || overlap(tb, ta):
		score = 50
	default:
		return 0
	}
	pb, _ := member(b, "properties").(map[string]any)
	pa, _ := member(a, "properties").(map[string]any)
	for k := range pb {
		if _, ok := pa[k]; ok {
			score++
		}
	}
	return score
}

// overlap reports whether two type sets share a type.
func overlap(x, y []string) bool {
	for _, t := range x {
		if admitsAll(y, []string{t}) || admitsAll([]string{t}, y) {
			return true
		}
	}
	return false
}

// covered reports whether others together accept every value b accepts,
// so that b coming or going changes nothing. inAfter says b belongs to the
// new document. It compares b with the one other, or with the anyOf of
// them all, on a scratch recorder, charging the main budget; a check
// inside a check inside a check answers no, which at worst reports a
// change that is not one.
func (d *schemaDiff) covered(b branch, others []branch, inAfter bool) bool {
	if d.probing >= 2 || d.budget <= 1 || len(others) == 0 {
		return false
	}
	var union any = others[0].schema
	if len(others) > 1 {
		schemas := make([]any, len(others))
		for i, o := range others {
			schemas[i] = o.schema
		}
		union = map[string]any{"anyOf": schemas}
	}
	scratch := &recorder{budget: d.budget}
	probe := &schemaDiff{recorder: scratch, side: input, root: d.root, before: d.before, after: d.after,
		active: d.active, lifted: d.lifted, probing: d.probing + 1}
	if inAfter {
		probe.before, probe.after, probe.active = d.after, d.before, map[[2]string]bool{}
	}
	probe.compare(location{pointer: b.pointer}, b.schema, union)
	d.budget = max(scratch.budget, 1)
	return scratch.result().Class != Breaking
}

// describeBranch names the values a branch admits: "an object", "null",
// "the values `a`, `b`", with the branch named when its type alone does not
// describe it.
func describeBranch(keyword string, b branch) string {
	if b.norm == nil {
		return fmt.Sprintf("the values of branch %d of `%s`", b.index, keyword)
	}
	if list, ok := b.norm["enum"].([]any); ok {
		if len(list) == 1 {
			return "the value `" + literal(list[0]) + "`"
		}
		return "the values " + literals(list)
	}
	types, _ := effectiveTypes(b.norm)
	if b.index == 0 || types != nil && len(assertions(b.norm)) == 1 {
		return describeTypes(types)
	}
	return fmt.Sprintf("%s matching branch %d of `%s`", describeTypes(types), b.index, keyword)
}

// oneOfOverlaps reports the types whose every value matches several
// branches of a oneOf on one side and not on the other, where the other
// side accepts the type: oneOf rejects a value that matches more than one
// branch, so such values come or go.
// Only branches that accept every value of a type are counted; whether
// two branches with more conditions overlap is not decided here.
func (d *schemaDiff) oneOfOverlaps(loc location, kb, ka string, before, after []branch) {
	overlapBefore, overlapAfter := map[string]bool{}, map[string]bool{}
	if kb == "oneOf" {
		overlapBefore = overlapping(before)
	}
	if ka == "oneOf" {
		overlapAfter = overlapping(after)
	}
	typesBefore, typesAfter := unionTypes(before), unionTypes(after)
	for _, t := range typeOrder {
		what := describeTypes([]string{t})
		if t == "number" {
			what = "a non-integer number"
		}
		switch {
		case overlapAfter[t] && !overlapBefore[t] && admitsAll(typesBefore, []string{t}):
			d.note(loc.keyword("oneOf"), d.classify(narrowing), "%s: %s now matches several branches of `oneOf`, which rejects it", d.subject(loc), what)
		case overlapBefore[t] && !overlapAfter[t] && admitsAll(typesAfter, []string{t}):
			d.note(loc.keyword("oneOf"), d.classify(widening), "%s: %s no longer matches several branches of `oneOf`, which rejected it", d.subject(loc), what)
		}
	}
}

// overlapping returns the types (integer and non-integer number apart)
// that at least two of the branches accept in full.
func overlapping(branches []branch) map[string]bool {
	count := map[string]int{}
	for _, b := range branches {
		types := wholeTypes(b.norm)
		slices.Sort(types)
		for _, t := range slices.Compact(types) {
			count[t]++
		}
	}
	out := map[string]bool{}
	for t, n := range count {
		out[t] = n > 1
	}
	return out
}

// wholeTypes returns the types every value of which a schema accepts: its
// types, less those it constrains further, with number split into integer
// and number. A keyword that is not about one type family makes it none.
func wholeTypes(m map[string]any) []string {
	if m == nil {
		return nil
	}
	types, ok := admittedTypes(m)
	if !ok {
		return nil
	}
	if types == nil {
		types = slices.Clone(typeOrder)
	}
	constrained := map[string]bool{}
	for k := range m {
		switch kind, specific := keywordKind[k]; {
		case k == "type" || k == "nullable" || metaKeywords[k]:
		case specific:
			constrained[kind] = true
		default:
			return nil
		}
	}
	var out []string
	for _, t := range types {
		if constrained[kindOf(t)] {
			continue
		}
		out = append(out, t)
		if t == "number" {
			out = append(out, "integer")
		}
	}
	return out
}
