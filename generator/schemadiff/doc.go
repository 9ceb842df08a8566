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
//   - cosmetic (patch bump): only text for people, or hints, changed.
//
// # Input schema
//
// The inputSchema is compared recursively, through the "properties" of
// objects, the "items" of arrays and "additionalProperties". The rule of
// thumb is that accepting more is compatible and accepting less is breaking.
//
//   - A new optional property is compatible and a new required property is
//     breaking (migration add). A removed property is breaking (migration
//     remove).
//   - A rename is recognised when, at one level, a property disappears and
//     another appears with an identical schema: the same canonical JSON, in
//     which every local $ref names the same schema in both versions. It is
//     breaking (migration rename). A rename is only recognised when the
//     pairing is unique: if the vanished property has several identical
//     newcomers, or the newcomer several identical predecessors, the
//     properties are reported as removed and added, because a guessed
//     rename would point readers at the wrong field.
//   - A property that becomes required is breaking. One that becomes
//     optional is compatible.
//   - Types: "type" (one name or an array of names) together with OpenAPI's
//     "nullable": true gives the set of admitted types. A missing "type"
//     admits every type, and "number" admits every "integer". If the set
//     grows, the change is compatible; if it shrinks or changes otherwise,
//     it is breaking. Migration retype records the change as tokens (string,
//     number, boolean, null, object, array, nullable<T>; "integer" is
//     number) when both sets have a token and the tokens differ. A set of
//     several non-null types has no token, so an integer→number widening or
//     a change of such a union is a change with no retype entry.
//   - enum: values that are added are compatible, values that are removed
//     are breaking. Introducing an enum is breaking and dropping it is
//     compatible. const works the same way, and a changed const is breaking.
//   - additionalProperties: closing it (false) is breaking and opening it is
//     compatible. A schema for additional properties is compared like a
//     property schema, named "name.*".
//   - The constraints minimum, maximum, exclusiveMinimum, exclusiveMaximum,
//     minLength, maxLength, minItems, maxItems, minProperties, maxProperties,
//     multipleOf, uniqueItems, pattern and format: tightening one, which
//     includes adding it, is breaking. Loosening one, which includes removing
//     it, is compatible. A changed pattern or format is breaking, and so is
//     a value this package cannot read, such as draft-04's boolean
//     exclusiveMinimum.
//   - A changed default is compatible. Changes to description, title,
//     examples, $comment and deprecated are cosmetic.
//   - Every other keyword (anyOf, oneOf, allOf, not, if/then/else,
//     patternProperties, $schema and the like) is not analysed. If one
//     changed, the change is breaking, and its text says it "can't be
//     classified automatically". A schema this package cannot read at all (a
//     string, false, a $ref it cannot follow) is treated the same way.
//
// # Output schema
//
// For the outputSchema the rule of thumb is reversed: a consumer is hurt
// when the tool may produce more than before.
//
//   - A new property is compatible, whether or not it is required.
//   - A removed property is breaking, and so is a renamed one.
//   - A property that becomes optional is breaking, and one that becomes
//     required is compatible.
//   - enum values that are added are breaking, and removed ones are
//     compatible.
//   - Loosening a constraint or opening additionalProperties is breaking.
//     Tightening or closing is compatible.
//   - A change of type that changes the retype token is always breaking.
//     Without such a change, widening the type set is breaking and narrowing
//     it is compatible.
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
//
// Recursive references are followed until the same pair of schemas comes
// round again. A recursive definition therefore reports its changes where it
// is first used and at its first recursion. A comparison that would visit
// more than 10,000 schema pairs is cut short with a breaking change.
//
// # Tool level
//
// A changed name is breaking, because callers use it to call the tool.
// Changes to title, description, annotations (their title and every hint,
// which are only hints) and _meta entries are cosmetic. So is any other
// member of the tool object.
//
// # Completeness
//
// If the JSON of two tool objects differs, the comparison yields at least
// one change. A schema rewritten without changing what it admits yields a
// cosmetic one ("schema of `x` rewritten without a change in meaning").
// Examples are a reordered enum, or type ["string", "null"] written as
// "nullable": true. Equal objects yield an empty Result, and the same
// inputs always yield the same Result, in the same order.
//
// # Pointers and texts
//
// Pointers are RFC 6901 JSON Pointers with a leading "/", relative to the
// tool object, with "~" and "/" in names escaped as "~0" and "~1". They
// point at schemas, as a reader checking a live tool definition needs:
//
//	/inputSchema/properties/city
//	/inputSchema/properties/address/properties/zip
//	/inputSchema/properties/tags/items
//	/outputSchema/properties/temp
//
// Changes to properties and types point at the property's schema. A change
// to another keyword points at the keyword
// (/inputSchema/properties/units/enum). Texts name schemas by dotted path
// ("address.zip", "tags[].label", "labels.*") in backticks, for example
// "parameter `city` renamed to `location`" or "enum value `kelvin` removed
// from `units`".
package schemadiff
