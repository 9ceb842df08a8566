// Package schemadiff compares two versions of one MCP tool object (the JSON
// a server returns for the tool in tools/list) and says what changed, how
// serious each change is, and which agent-feed migration describes it. Its
// classification decides a tool's semantic versions, and its texts describe
// the changes on changelog pages.
//
// # Classes
//
// Every change has one of three classes. A comparison's class is the most
// serious class among its changes, and NextVersion turns it into a version:
//
//   - breaking (major bump): something that worked before may fail now;
//   - compatible (minor bump): everything that worked still works;
//   - cosmetic (patch bump): only text for people changed, or the object
//     was rewritten without a change in meaning.
//
// # Input schema
//
// The rule is by accepted values: an input schema that accepts less than
// before is breaking, one that accepts more is compatible, and one that
// accepts the same is no change in meaning. Two conventions of API practice
// win over the set logic: a new optional parameter is compatible, and a
// declared parameter that is removed is breaking (a caller that sends it
// was relying on it, even where the schema would still let it through).
//
// Before comparing, each schema is brought to one spelling of its meaning,
// so that equivalent spellings compare equal:
//
//   - const is the enum of its one value;
//   - draft-07 dependencies are dependentRequired (lists of names) and
//     dependentSchemas (schemas);
//   - the branches of allOf, and the one branch of an anyOf or oneOf, are
//     merged into the schema when no keyword clashes; {"anyOf":[{"type":
//     "string"}]} is {"type":"string"};
//   - an anyOf or oneOf whose branches each admit their own type families
//     (string, number with integer, boolean, object, array, null) and
//     constrain only values of those families is one schema with a type
//     list; {"anyOf":[{"type":"string"},{"type":"null"}]}, {"type":
//     ["string","null"]} and {"type":"string","nullable":true} are the same;
//   - a repeated branch of anyOf counts once.
//
// Then:
//
//   - Properties. A new optional property is compatible and a new required
//     property is breaking (migration add). A removed property is breaking
//     (migration remove). A property that becomes required is breaking, one
//     that becomes optional compatible.
//   - Renames. A rename is recognised when, at one level, a property
//     disappears and another appears with an identical schema: the same
//     canonical JSON, in which every local $ref names the same schema in
//     both versions. It is breaking (migration rename). It is only
//     recognised when the pairing is unique: if the vanished property has
//     several identical newcomers, or the newcomer several identical
//     predecessors, the properties are reported as removed and added,
//     because a guessed rename would point readers at the wrong field.
//   - Types. "type" (one name or a list) with OpenAPI's "nullable": true
//     gives the set of admitted types. A missing "type" admits every type,
//     and "number" admits every "integer". When only one side has an enum
//     (or const), the types of its values count as its types, so
//     {"const":"hello"} → {"type":"string"} is only the enum dropped
//     (compatible). A set that grows is compatible, one that shrinks or
//     changes otherwise breaking. Keywords for a type family that one side
//     does not admit at all are not compared: the type change says it.
//     Migration retype records the change as tokens (string, number,
//     boolean, null, object, array, nullable<T>; "integer" is number) when
//     both sets have a token and the tokens differ. A set of several
//     non-null type families has no token.
//   - enum: values added are compatible, values removed breaking.
//     Introducing an enum is breaking and dropping it compatible.
//   - additionalProperties: closing it (false) is breaking and opening it
//     compatible. A schema for additional properties is compared like a
//     property schema, named "name.*".
//   - patternProperties: the schemas of a pattern present on both sides are
//     compared. A pattern that appears takes the properties it matches away
//     from additionalProperties, so its schema is compared with that one;
//     a pattern that goes hands them back. Patterns that go while others
//     come are breaking, and the text says why: whether two regular
//     expressions match the same names is not decided here.
//   - dependentRequired: a name that must now come along with a property is
//     breaking, one that no longer must compatible. dependentSchemas: each
//     is a condition, compared as below.
//   - Arrays: positional items (prefixItems, or draft-07's items list with
//     additionalItems) are compared position by position; a position one
//     side lacks is held to that side's schema for the remaining items.
//     Then the remaining items are compared ("tags[]").
//   - anyOf and oneOf are compared branch by branch; their order does not
//     matter. Old and new branches are paired: first those with the same
//     meaning, in order; then by likeness (the same types, then overlapping
//     types, then shared property names), most alike first, ties in order.
//     A paired branch is compared like any schema, unless the comparison
//     would mislead: when the new branches together still accept what the
//     old one did, it is not a narrowing, and when what the new one adds the
//     old branches together accepted, it is not a widening. A branch added
//     is compatible and a branch removed breaking, unless the branches of
//     the other side together already accept what it accepts. A schema
//     that is nothing but a union is compared with one that is not as the
//     union of that schema's type families, so {"type":"string"} →
//     {"oneOf":[{"type":"string"},{"type":"object"}]} is an object branch
//     added. anyOf becoming oneOf is breaking (a value matching two
//     branches is now rejected), and back compatible. oneOf rejects a value that matches two branches: when
//     every value of a type (null, say) comes to match two branches that
//     accept it in full, as when null is added to a second branch, it is
//     breaking, and the other way round compatible. Whether branches with
//     further conditions overlap is not decided: they are taken as the
//     disjoint alternatives they are written as, so an added branch that
//     overlaps another in part is still compatible.
//   - A union, allOf, not, contains or propertyNames next to other
//     keywords is one more condition: one that appears (and accepts less
//     than everything) is breaking, one that goes compatible. allOf
//     branches that stay are paired like union branches and compared; an
//     allOf branch added is breaking, one removed compatible.
//   - not: its schema is compared the other way round, since the value must
//     not match it: a not that accepts less lets more through.
//   - if/then/else: with the same if, then and else are compared like any
//     condition. A changed if is breaking ("which values then and else apply
//     to can't be compared"), unless then and else accept everything on one
//     side, where the if decides nothing.
//   - The constraints minimum, maximum, exclusiveMinimum, exclusiveMaximum,
//     minLength, maxLength, minItems, maxItems, minProperties,
//     maxProperties, minContains, maxContains, multipleOf, uniqueItems,
//     pattern and format: tightening one, which includes adding it, is
//     breaking. Loosening one, which includes removing it (whatever it
//     said), is compatible. A changed pattern or format is breaking, and
//     the text says why: whether one admits all the other does can't be
//     decided. So is a value this package cannot read, such as draft-04's
//     boolean exclusiveMinimum.
//   - A schema that is or becomes false accepts nothing: becoming false is
//     breaking, and a false schema that accepts something now compatible.
//   - default: a changed or removed default is breaking, since a call that
//     omits the value now gets another one. Setting a default where there
//     was none documents what such a call gets, and is compatible.
//   - Changes to description, title, examples, $comment and deprecated are
//     cosmetic.
//   - Any other keyword that changed ($schema too) is breaking, and its
//     text says it "can't be classified automatically". A schema this
//     package cannot read at all (a string, a $ref it cannot follow on
//     either side) is treated the same way.
//
// # Output schema
//
// For the outputSchema the rule of thumb is reversed: a consumer is hurt
// when the tool may produce more than before. Every rule above applies
// with widening and narrowing swapped, with these differences:
//
//   - A new property is compatible, whether or not it is required.
//   - A removed property is breaking, and so is a renamed one.
//   - A change of type that changes the retype token is always breaking.
//   - A default is only documentation: its changes are cosmetic.
//
// An outputSchema that appears is compatible (migration add /outputSchema).
// One that disappears is breaking (migration remove /outputSchema).
//
// # References
//
// Local references are resolved on comparison. They can be "#",
// "#/$defs/X", "#/definitions/X" or any other JSON Pointer into the same
// schema document. So a change inside a definition is reported at the
// pointer of each place that uses it. If a $ref has sibling keywords, they
// are laid over the target. This is exact for the usual description next to
// a $ref, and it approximates the conjunction for assertions. A change to an
// entry of the root's $defs or definitions that no applied $ref uses is
// cosmetic. Nested $defs are only reached through the references into them.
// A $ref that cannot be followed on one side only is compared as written,
// so wrapping it in a one-branch anyOf is no change.
//
// Recursive references are followed until the same pair of schemas comes
// round again. A recursive definition therefore reports its changes where it
// is first used and at its first recursion. A comparison that would visit
// more than 10,000 schema pairs is cut short with a breaking change.
//
// # Tool level
//
// A changed name is breaking, because callers use it to call the tool.
// Changes to title, description, the annotation title, other annotation
// members and _meta entries are cosmetic. So is any other member of the
// tool object.
//
// The MCP hints readOnlyHint, destructiveHint, idempotentHint and
// openWorldHint are compared by the value a client acts on. An absent hint
// has the specification's default (readOnlyHint false, destructiveHint
// true, idempotentHint false, openWorldHint true). destructiveHint and
// idempotentHint only mean something for a tool that is not read-only: a
// read-only tool changes nothing, so it counts as not destructive and
// idempotent, and when readOnlyHint changes, that is the one change
// reported for the three. Clients decide on these hints whether to ask
// before a call, so a tool that becomes less safe (no longer read-only,
// now destructive, no longer idempotent, now open-world) is breaking, and
// one that becomes safer is compatible. A hint that is not a boolean is
// compared as text, cosmetic.
//
// # Completeness
//
// If the JSON of two tool objects differs, the comparison yields at least
// one change. A schema rewritten without changing what it admits yields a
// cosmetic one ("schema of `x` rewritten without a change in meaning"), and
// so do hints written out with the value they already had ("annotations
// `readOnlyHint` written differently without a change in meaning"): one
// change for the tool, whatever the number of hints. It stays a change,
// and the version a patch, because a version names exact bytes: the
// archived tool file and the SHA-256 in signed entries are those of the
// new object, and a version that did not move would claim bytes the tool
// no longer has. Equal objects yield an empty Result, and the same inputs
// always yield the same Result, in the same order.
//
// # Pointers and texts
//
// Pointers are RFC 6901 JSON Pointers with a leading "/", relative to the
// tool object, with "~" and "/" in names escaped as "~0" and "~1". They
// point at schemas, as a reader checking a live tool definition needs (a
// change inside a union branch points at the branch, /anyOf/1):
//
//	/inputSchema/properties/city
//	/inputSchema/properties/address/properties/zip
//	/inputSchema/properties/tags/items
//	/outputSchema/properties/temp
//
// Changes to properties and types point at the property's schema. A change
// to another keyword points at the keyword
// (/inputSchema/properties/units/enum), as the file writes it: a change to
// a const points at const, though it is compared as an enum. Texts name
// schemas by dotted path ("address.zip", "tags[].label", "labels.*") in
// backticks, for example "parameter `city` renamed to `location`" or "enum
// value `kelvin` removed from `units`".
package schemadiff
