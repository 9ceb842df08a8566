package schemadiff

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// in returns a tool whose input schema is schema.
func in(schema string) string {
	return `{"name":"weather","description":"Get the weather","inputSchema":` + schema + `}`
}

// out returns a tool whose output schema is schema.
func out(schema string) string {
	return `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object"},"outputSchema":` + schema + `}`
}

// object returns an object schema with the given properties and required names.
func object(properties string, required ...string) string {
	r, _ := json.Marshal(required)
	if len(required) == 0 {
		return `{"type":"object","properties":{` + properties + `}}`
	}
	return `{"type":"object","properties":{` + properties + `},"required":` + string(r) + `}`
}

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("test JSON %s: %v", s, err)
	}
	return m
}

type compareCase struct {
	name          string
	before, after string
	class         Class
	migration     Migration
	changes       []Change
}

const city = `"city":{"type":"string","description":"City name"}`

var compareCases = []compareCase{
	// Tool level.
	{
		name:   "equal objects",
		before: in(object(city, "city")),
		after:  in(object(city, "city")),
	},
	{
		name:   "member order and spacing are not changes",
		before: `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`,
		after:  `{ "inputSchema": { "properties": { "a": { "type": "string" } }, "type": "object" }, "name": "t" }`,
	},
	{
		name:    "description changed",
		before:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object"}}`,
		after:   `{"name":"weather","description":"Get the forecast","inputSchema":{"type":"object"}}`,
		class:   Cosmetic,
		changes: []Change{{"/description", Cosmetic, "description changed"}},
	},
	{
		name:    "title added",
		before:  `{"name":"weather","inputSchema":{"type":"object"}}`,
		after:   `{"name":"weather","title":"Weather","inputSchema":{"type":"object"}}`,
		class:   Cosmetic,
		changes: []Change{{"/title", Cosmetic, "title added"}},
	},
	{
		name:   "annotation hints and title",
		before: `{"name":"w","inputSchema":{"type":"object"},"annotations":{"title":"W","readOnlyHint":false,"openWorldHint":true}}`,
		after:  `{"name":"w","inputSchema":{"type":"object"},"annotations":{"title":"Weather","readOnlyHint":true,"idempotentHint":true}}`,
		class:  Compatible,
		changes: []Change{
			{"/annotations/readOnlyHint", Compatible, "tool is now read-only"},
			{"/annotations/title", Cosmetic, "annotation title changed"},
		},
	},
	{
		name:    "empty annotations object added",
		before:  `{"name":"w","inputSchema":{"type":"object"}}`,
		after:   `{"name":"w","inputSchema":{"type":"object"},"annotations":{}}`,
		class:   Cosmetic,
		changes: []Change{{"/annotations", Cosmetic, "annotations added"}},
	},
	{
		name:    "_meta entry changed",
		before:  `{"name":"w","inputSchema":{"type":"object"},"_meta":{"io.example/v":1}}`,
		after:   `{"name":"w","inputSchema":{"type":"object"},"_meta":{"io.example/v":2}}`,
		class:   Cosmetic,
		changes: []Change{{"/_meta/io.example~1v", Cosmetic, "`_meta` entry `io.example/v` changed"}},
	},
	{
		name:    "unknown tool member",
		before:  `{"name":"w","inputSchema":{"type":"object"}}`,
		after:   `{"name":"w","inputSchema":{"type":"object"},"icons":[{"src":"w.png"}]}`,
		class:   Cosmetic,
		changes: []Change{{"/icons", Cosmetic, "`icons` added"}},
	},
	{
		name:    "tool name changed",
		before:  `{"name":"weather","inputSchema":{"type":"object"}}`,
		after:   `{"name":"forecast","inputSchema":{"type":"object"}}`,
		class:   Breaking,
		changes: []Change{{"/name", Breaking, "tool name changed from `weather` to `forecast`"}},
	},

	// Properties.
	{
		name:      "new optional parameter",
		before:    in(object(city, "city")),
		after:     in(object(city+`,"units":{"type":"string"}`, "city")),
		class:     Compatible,
		migration: Migration{Add: []string{"/inputSchema/properties/units"}},
		changes:   []Change{{"/inputSchema/properties/units", Compatible, "new optional parameter `units`"}},
	},
	{
		name:      "new required parameter",
		before:    in(object(city, "city")),
		after:     in(object(city+`,"days":{"type":"integer"}`, "city", "days")),
		class:     Breaking,
		migration: Migration{Add: []string{"/inputSchema/properties/days"}},
		changes:   []Change{{"/inputSchema/properties/days", Breaking, "new required parameter `days`"}},
	},
	{
		name:      "parameter removed",
		before:    in(object(city+`,"units":{"type":"string"}`, "city")),
		after:     in(object(city, "city")),
		class:     Breaking,
		migration: Migration{Remove: []string{"/inputSchema/properties/units"}},
		changes:   []Change{{"/inputSchema/properties/units", Breaking, "parameter `units` removed"}},
	},
	{
		name:      "parameter renamed",
		before:    in(object(city, "city")),
		after:     in(object(`"location":{"type":"string","description":"City name"}`, "location")),
		class:     Breaking,
		migration: Migration{Rename: map[string]string{"/inputSchema/properties/city": "/inputSchema/properties/location"}},
		changes:   []Change{{"/inputSchema/properties/city", Breaking, "parameter `city` renamed to `location`"}},
	},
	{
		name:      "renamed and made optional",
		before:    in(object(city, "city")),
		after:     in(object(`"location":{"type":"string","description":"City name"}`)),
		class:     Breaking,
		migration: Migration{Rename: map[string]string{"/inputSchema/properties/city": "/inputSchema/properties/location"}},
		changes: []Change{
			{"/inputSchema/properties/city", Breaking, "parameter `city` renamed to `location`"},
			{"/inputSchema/properties/location", Compatible, "parameter `location` is now optional"},
		},
	},
	{
		name:   "ambiguous rename falls back to remove and add",
		before: in(object(`"a":{"type":"string"},"b":{"type":"string"}`)),
		after:  in(object(`"c":{"type":"string"},"d":{"type":"string"}`)),
		class:  Breaking,
		migration: Migration{
			Add:    []string{"/inputSchema/properties/c", "/inputSchema/properties/d"},
			Remove: []string{"/inputSchema/properties/a", "/inputSchema/properties/b"},
		},
		changes: []Change{
			{"/inputSchema/properties/a", Breaking, "parameter `a` removed"},
			{"/inputSchema/properties/b", Breaking, "parameter `b` removed"},
			{"/inputSchema/properties/c", Compatible, "new optional parameter `c`"},
			{"/inputSchema/properties/d", Compatible, "new optional parameter `d`"},
		},
	},
	{
		name:   "one vanished property, two identical newcomers: no rename",
		before: in(object(`"a":{"type":"string"}`)),
		after:  in(object(`"b":{"type":"string"},"c":{"type":"string"}`)),
		class:  Breaking,
		migration: Migration{
			Add:    []string{"/inputSchema/properties/b", "/inputSchema/properties/c"},
			Remove: []string{"/inputSchema/properties/a"},
		},
		changes: []Change{
			{"/inputSchema/properties/a", Breaking, "parameter `a` removed"},
			{"/inputSchema/properties/b", Compatible, "new optional parameter `b`"},
			{"/inputSchema/properties/c", Compatible, "new optional parameter `c`"},
		},
	},
	{
		name:   "rename among unrelated additions",
		before: in(object(`"a":{"type":"string"}`)),
		after:  in(object(`"b":{"type":"string"},"c":{"type":"number"}`)),
		class:  Breaking,
		migration: Migration{
			Add:    []string{"/inputSchema/properties/c"},
			Rename: map[string]string{"/inputSchema/properties/a": "/inputSchema/properties/b"},
		},
		changes: []Change{
			{"/inputSchema/properties/a", Breaking, "parameter `a` renamed to `b`"},
			{"/inputSchema/properties/c", Compatible, "new optional parameter `c`"},
		},
	},
	{
		name:    "parameter becomes required",
		before:  in(object(city+`,"days":{"type":"integer"}`, "city")),
		after:   in(object(city+`,"days":{"type":"integer"}`, "city", "days")),
		class:   Breaking,
		changes: []Change{{"/inputSchema/properties/days", Breaking, "parameter `days` is now required"}},
	},
	{
		name:    "parameter becomes optional",
		before:  in(object(city+`,"days":{"type":"integer"}`, "city", "days")),
		after:   in(object(city+`,"days":{"type":"integer"}`, "city")),
		class:   Compatible,
		changes: []Change{{"/inputSchema/properties/days", Compatible, "parameter `days` is now optional"}},
	},
	{
		name:    "required name without a schema",
		before:  in(`{"type":"object"}`),
		after:   in(`{"type":"object","required":["token"]}`),
		class:   Breaking,
		changes: []Change{{"/inputSchema/properties/token", Breaking, "parameter `token` is now required"}},
	},
	{
		name:      "nested object",
		before:    in(object(`"address":` + object(`"street":{"type":"string"}`))),
		after:     in(object(`"address":` + object(`"street":{"type":"string"},"zip":{"type":"string"}`, "zip"))),
		class:     Breaking,
		migration: Migration{Add: []string{"/inputSchema/properties/address/properties/zip"}},
		changes:   []Change{{"/inputSchema/properties/address/properties/zip", Breaking, "new required parameter `address.zip`"}},
	},
	{
		name:      "nested rename",
		before:    in(object(`"address":` + object(`"zip":{"type":"string"}`))),
		after:     in(object(`"address":` + object(`"postcode":{"type":"string"}`))),
		class:     Breaking,
		migration: Migration{Rename: map[string]string{"/inputSchema/properties/address/properties/zip": "/inputSchema/properties/address/properties/postcode"}},
		changes:   []Change{{"/inputSchema/properties/address/properties/zip", Breaking, "parameter `address.zip` renamed to `address.postcode`"}},
	},
	{
		name:      "array of objects",
		before:    in(object(`"tags":{"type":"array","items":` + object(`"label":{"type":"string"},"weight":{"type":"number"}`) + `}`)),
		after:     in(object(`"tags":{"type":"array","items":` + object(`"weight":{"type":"string"}`) + `}`)),
		class:     Breaking,
		migration: Migration{Remove: []string{"/inputSchema/properties/tags/items/properties/label"}, Retype: map[string]Retype{"/inputSchema/properties/tags/items/properties/weight": {"number", "string"}}},
		changes: []Change{
			{"/inputSchema/properties/tags/items/properties/label", Breaking, "parameter `tags[].label` removed"},
			{"/inputSchema/properties/tags/items/properties/weight", Breaking, "`type` of `tags[].weight` changed from number to string"},
		},
	},
	{
		name:      "item type of an array",
		before:    in(object(`"ids":{"type":"array","items":{"type":"integer"}}`)),
		after:     in(object(`"ids":{"type":"array","items":{"type":"string"}}`)),
		class:     Breaking,
		migration: Migration{Retype: map[string]Retype{"/inputSchema/properties/ids/items": {"number", "string"}}},
		changes: []Change{
			{"/inputSchema/properties/ids/items", Breaking, "`type` of items of `ids` changed from integer to string"},
		},
	},
	{
		name:      "pointer escaping",
		before:    in(object(``)),
		after:     in(object(`"a/b~c":{"type":"string"}`)),
		class:     Compatible,
		migration: Migration{Add: []string{"/inputSchema/properties/a~1b~0c"}},
		changes:   []Change{{"/inputSchema/properties/a~1b~0c", Compatible, "new optional parameter `a/b~c`"}},
	},

	// Types.
	{
		name:      "retype string to number",
		before:    in(object(`"count":{"type":"string"}`)),
		after:     in(object(`"count":{"type":"number"}`)),
		class:     Breaking,
		migration: Migration{Retype: map[string]Retype{"/inputSchema/properties/count": {"string", "number"}}},
		changes: []Change{
			{"/inputSchema/properties/count", Breaking, "`type` of `count` changed from string to number"},
		},
	},
	{
		name:   "integer widens to number with the same token",
		before: in(object(`"count":{"type":"integer"}`)),
		after:  in(object(`"count":{"type":"number"}`)),
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/count", Compatible, "`type` of `count` now also accepts a non-integer number"},
		},
	},
	{
		name:   "number narrows to integer",
		before: in(object(`"count":{"type":"number"}`)),
		after:  in(object(`"count":{"type":"integer"}`)),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/count", Breaking, "`type` of `count` no longer accepts a non-integer number"},
		},
	},
	{
		name:      "type array adds null",
		before:    in(object(`"note":{"type":"string"}`)),
		after:     in(object(`"note":{"type":["string","null"]}`)),
		class:     Compatible,
		migration: Migration{Retype: map[string]Retype{"/inputSchema/properties/note": {"string", "nullable<string>"}}},
		changes: []Change{
			{"/inputSchema/properties/note", Compatible, "`type` of `note` now also accepts null"},
		},
	},
	{
		name:      "OpenAPI nullable",
		before:    in(object(`"count":{"type":"integer","nullable":true}`)),
		after:     in(object(`"count":{"type":"integer"}`)),
		class:     Breaking,
		migration: Migration{Retype: map[string]Retype{"/inputSchema/properties/count": {"nullable<number>", "number"}}},
		changes: []Change{
			{"/inputSchema/properties/count", Breaking, "`type` of `count` no longer accepts null"},
		},
	},
	{
		name:    "nullable spelled two ways means the same",
		before:  in(object(`"note":{"type":["null","string"]}`)),
		after:   in(object(`"note":{"type":"string","nullable":true}`)),
		class:   Cosmetic,
		changes: []Change{{"/inputSchema/properties/note", Cosmetic, "schema of `note` rewritten without a change in meaning"}},
	},
	{
		name:   "union of types widens without a token",
		before: in(object(`"id":{"type":["string","integer"]}`)),
		after:  in(object(`"id":{"type":["string","integer","boolean"]}`)),
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/id", Compatible, "`type` of `id` now also accepts a boolean"},
		},
	},
	{
		name:   "union of types narrows to one type",
		before: in(object(`"id":{"type":["string","integer"]}`)),
		after:  in(object(`"id":{"type":"string"}`)),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/id", Breaking, "`type` of `id` no longer accepts an integer"},
		},
	},
	{
		name:   "type added where any was allowed",
		before: in(object(`"value":{}`)),
		after:  in(object(`"value":{"type":"string"}`)),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/value", Breaking, "`type` of `value` now accepts only a string"},
		},
	},
	{
		name:   "type removed",
		before: in(object(`"value":{"type":"string"}`)),
		after:  in(object(`"value":{}`)),
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/value", Compatible, "`type` of `value` now accepts any value"},
		},
	},

	// enum and const.
	{
		name:    "enum value removed",
		before:  in(object(`"units":{"type":"string","enum":["celsius","fahrenheit","kelvin"]}`)),
		after:   in(object(`"units":{"type":"string","enum":["celsius","fahrenheit"]}`)),
		class:   Breaking,
		changes: []Change{{"/inputSchema/properties/units/enum", Breaking, "enum value `kelvin` removed from `units`"}},
	},
	{
		name:    "enum value added",
		before:  in(object(`"units":{"enum":["celsius",1]}`)),
		after:   in(object(`"units":{"enum":["celsius",1,null]}`)),
		class:   Compatible,
		changes: []Change{{"/inputSchema/properties/units/enum", Compatible, "enum value `null` added to `units`"}},
	},
	{
		name:    "enum introduced",
		before:  in(object(`"units":{"type":"string"}`)),
		after:   in(object(`"units":{"type":"string","enum":["celsius","kelvin"]}`)),
		class:   Breaking,
		changes: []Change{{"/inputSchema/properties/units/enum", Breaking, "`units` now restricted to the values `celsius`, `kelvin`"}},
	},
	{
		name:   "enum dropped",
		before: in(object(`"units":{"type":"string","enum":["celsius"]}`)),
		after:  in(object(`"units":{"type":"string"}`)),
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/units/enum", Compatible, "`units` no longer fixed to `celsius`"},
		},
	},
	{
		name:    "enum reordered",
		before:  in(object(`"units":{"enum":["a","b"]}`)),
		after:   in(object(`"units":{"enum":["b","a"]}`)),
		class:   Cosmetic,
		changes: []Change{{"/inputSchema/properties/units", Cosmetic, "schema of `units` rewritten without a change in meaning"}},
	},
	{
		name:   "const changed",
		before: in(object(`"kind":{"const":"v1"}`)),
		after:  in(object(`"kind":{"const":"v2"}`)),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/kind/const", Breaking, "value of `kind` changed from `v1` to `v2`"},
		},
	},
	{
		name:   "const removed",
		before: in(object(`"kind":{"type":"string","const":"v1"}`)),
		after:  in(object(`"kind":{"type":"string"}`)),
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/kind/const", Compatible, "`kind` no longer fixed to `v1`"},
		},
	},

	// additionalProperties.
	{
		name:    "additionalProperties closes",
		before:  in(object(city)),
		after:   in(`{"type":"object","properties":{` + city + `},"additionalProperties":false}`),
		class:   Breaking,
		changes: []Change{{"/inputSchema/additionalProperties", Breaking, "additional properties no longer allowed in input schema"}},
	},
	{
		name:    "additionalProperties opens",
		before:  in(object(`"address":{"type":"object","additionalProperties":false}`)),
		after:   in(object(`"address":{"type":"object","additionalProperties":{"type":"string"}}`)),
		class:   Compatible,
		changes: []Change{{"/inputSchema/properties/address/additionalProperties", Compatible, "additional properties now allowed in `address`"}},
	},
	{
		name:      "additionalProperties schema compared like a property",
		before:    in(object(`"labels":{"type":"object","additionalProperties":{"type":"string"}}`)),
		after:     in(object(`"labels":{"type":"object","additionalProperties":{"type":"number"}}`)),
		class:     Breaking,
		migration: Migration{Retype: map[string]Retype{"/inputSchema/properties/labels/additionalProperties": {"string", "number"}}},
		changes: []Change{
			{"/inputSchema/properties/labels/additionalProperties", Breaking, "`type` of `labels.*` changed from string to number"},
		},
	},
	{
		name:    "additionalProperties true spelled out",
		before:  in(`{"type":"object"}`),
		after:   in(`{"type":"object","additionalProperties":true}`),
		class:   Cosmetic,
		changes: []Change{{"/inputSchema", Cosmetic, "input schema rewritten without a change in meaning"}},
	},

	// Constraints, default and annotations.
	{
		name:   "bounds",
		before: in(object(`"city":{"type":"string","maxLength":100},"days":{"type":"integer","maximum":7,"minimum":1},"ids":{"type":"array","maxItems":10}`)),
		after:  in(object(`"city":{"type":"string","maxLength":50},"days":{"type":"integer","maximum":14,"minimum":1,"exclusiveMinimum":0},"ids":{"type":"array","minItems":1}`)),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/city/maxLength", Breaking, "`maxLength` of `city` lowered from 100 to 50"},
			{"/inputSchema/properties/days/maximum", Compatible, "`maximum` of `days` raised from 7 to 14"},
			{"/inputSchema/properties/days/exclusiveMinimum", Breaking, "`exclusiveMinimum` of `days` set to 0"},
			{"/inputSchema/properties/ids/minItems", Breaking, "`minItems` of `ids` set to 1"},
			{"/inputSchema/properties/ids/maxItems", Compatible, "`maxItems` of `ids` removed"},
		},
	},
	{
		name:    "bound loosened",
		before:  in(object(`"days":{"type":"integer","minimum":1}`)),
		after:   in(object(`"days":{"type":"integer","minimum":0}`)),
		class:   Compatible,
		changes: []Change{{"/inputSchema/properties/days/minimum", Compatible, "`minimum` of `days` lowered from 1 to 0"}},
	},
	{
		name:    "draft-04 boolean exclusiveMinimum",
		before:  in(object(`"days":{"type":"integer","minimum":1}`)),
		after:   in(object(`"days":{"type":"integer","minimum":1,"exclusiveMinimum":true}`)),
		class:   Breaking,
		changes: []Change{{"/inputSchema/properties/days/exclusiveMinimum", Breaking, "`exclusiveMinimum` of `days` changed in a way that can't be classified automatically"}},
	},
	{
		name:   "pattern and format",
		before: in(object(`"code":{"type":"string","pattern":"^[A-Z]+$"},"day":{"type":"string"},"at":{"type":"string","format":"date-time"}`)),
		after:  in(object(`"code":{"type":"string","pattern":"^[A-Z0-9]+$"},"day":{"type":"string","format":"date"},"at":{"type":"string"}`)),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/at/format", Compatible, "`format` of `at` removed"},
			{"/inputSchema/properties/code/pattern", Breaking, "`pattern` of `code` changed from `^[A-Z]+$` to `^[A-Z0-9]+$`: whether one admits all the other does can't be decided"},
			{"/inputSchema/properties/day/format", Breaking, "`format` of `day` set to `date`"},
		},
	},
	{
		name:   "multipleOf and uniqueItems",
		before: in(object(`"step":{"type":"number","multipleOf":2},"fine":{"type":"number","multipleOf":0.5},"odd":{"type":"number","multipleOf":2},"ids":{"type":"array","uniqueItems":true}`)),
		after:  in(object(`"step":{"type":"number","multipleOf":4},"fine":{"type":"number","multipleOf":0.25},"odd":{"type":"number","multipleOf":3},"ids":{"type":"array"}`)),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/fine/multipleOf", Compatible, "`multipleOf` of `fine` changed from 0.5 to 0.25"},
			{"/inputSchema/properties/ids/uniqueItems", Compatible, "items of `ids` no longer need to be unique"},
			{"/inputSchema/properties/odd/multipleOf", Breaking, "`multipleOf` of `odd` changed from 2 to 3"},
			{"/inputSchema/properties/step/multipleOf", Breaking, "`multipleOf` of `step` changed from 2 to 4"},
		},
	},
	{
		name:   "default changes",
		before: in(object(`"units":{"type":"string","default":"metric"},"days":{"type":"integer"}`)),
		after:  in(object(`"units":{"type":"string","default":"imperial"},"days":{"type":"integer","default":3}`)),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/days/default", Compatible, "default of `days` set to `3`"},
			{"/inputSchema/properties/units/default", Breaking, "default of `units` changed from `metric` to `imperial`: a call that omits it now behaves differently"},
		},
	},
	{
		name:   "annotations of a schema",
		before: in(`{"type":"object","description":"in","properties":{"city":{"type":"string","description":"City","examples":["Paris"]}}}`),
		after:  in(`{"type":"object","description":"input","properties":{"city":{"type":"string","description":"City name","title":"City","$comment":"from geo","deprecated":true}}}`),
		class:  Cosmetic,
		changes: []Change{
			{"/inputSchema/properties/city/title", Cosmetic, "title of `city` added"},
			{"/inputSchema/properties/city/description", Cosmetic, "description of `city` changed"},
			{"/inputSchema/properties/city/examples", Cosmetic, "examples of `city` removed"},
			{"/inputSchema/properties/city/$comment", Cosmetic, "comment of `city` added"},
			{"/inputSchema/properties/city/deprecated", Cosmetic, "`city` marked deprecated"},
			{"/inputSchema/description", Cosmetic, "description of input schema changed"},
		},
	},

	// $ref and $defs.
	{
		name:      "change inside a definition is reported where it is used",
		before:    in(`{"type":"object","properties":{"home":{"$ref":"#/$defs/address"},"office":{"$ref":"#/$defs/address"}},"$defs":{"address":` + object(`"zip":{"type":"string"}`) + `}}`),
		after:     in(`{"type":"object","properties":{"home":{"$ref":"#/$defs/address"},"office":{"$ref":"#/$defs/address"}},"$defs":{"address":` + object(`"zip":{"type":"integer"}`) + `}}`),
		class:     Breaking,
		migration: Migration{Retype: map[string]Retype{"/inputSchema/properties/home/properties/zip": {"string", "number"}, "/inputSchema/properties/office/properties/zip": {"string", "number"}}},
		changes: []Change{
			{"/inputSchema/properties/home/properties/zip", Breaking, "`type` of `home.zip` changed from string to integer"},
			{"/inputSchema/properties/office/properties/zip", Breaking, "`type` of `office.zip` changed from string to integer"},
		},
	},
	{
		name:    "unused definition changed",
		before:  in(`{"type":"object","properties":{"a":{"$ref":"#/definitions/a"}},"definitions":{"a":{"type":"string"},"old":{"type":"string"}}}`),
		after:   in(`{"type":"object","properties":{"a":{"$ref":"#/definitions/a"}},"definitions":{"a":{"type":"string"},"old":{"type":"number"},"new":{}}}`),
		class:   Cosmetic,
		changes: []Change{{"/inputSchema/definitions/new", Cosmetic, "unused definition `new` added"}, {"/inputSchema/definitions/old", Cosmetic, "unused definition `old` changed"}},
	},
	{
		name:    "inline schema moved into a definition",
		before:  in(object(`"a":{"type":"string","description":"A"}`)),
		after:   in(`{"type":"object","properties":{"a":{"$ref":"#/$defs/text","description":"A"}},"$defs":{"text":{"type":"string"}}}`),
		class:   Cosmetic,
		changes: []Change{{"/inputSchema/properties/a", Cosmetic, "schema of `a` rewritten without a change in meaning"}},
	},
	{
		name:   "definition name escaped in the reference",
		before: in(`{"type":"object","properties":{"a":{"$ref":"#/$defs/x~1y"}},"$defs":{"x/y":{"type":"string"}}}`),
		after:  in(`{"type":"object","properties":{"a":{"$ref":"#/$defs/x~1y"}},"$defs":{"x/y":{"type":"string","maxLength":3}}}`),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/a/maxLength", Breaking, "`maxLength` of `a` set to 3"},
		},
	},
	{
		name:      "recursive definition",
		before:    in(`{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`),
		after:     in(`{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}},"label":{"type":"string"}}}}}`),
		class:     Compatible,
		migration: Migration{Add: []string{"/inputSchema/properties/root/properties/children/items/properties/label", "/inputSchema/properties/root/properties/label"}},
		changes: []Change{
			{"/inputSchema/properties/root/properties/children/items/properties/label", Compatible, "new optional parameter `root.children[].label`"},
			{"/inputSchema/properties/root/properties/label", Compatible, "new optional parameter `root.label`"},
		},
	},
	{
		name:      "reference to the root",
		before:    in(object(`"next":{"$ref":"#"}`)),
		after:     in(object(`"next":{"$ref":"#"},"value":{"type":"string"}`)),
		class:     Compatible,
		migration: Migration{Add: []string{"/inputSchema/properties/next/properties/value", "/inputSchema/properties/value"}},
		changes: []Change{
			{"/inputSchema/properties/next/properties/value", Compatible, "new optional parameter `next.value`"},
			{"/inputSchema/properties/value", Compatible, "new optional parameter `value`"},
		},
	},
	{
		name:    "loop of bare references",
		before:  in(`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`),
		after:   in(`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x","type":"string"}}}`),
		class:   Breaking,
		changes: []Change{{"/inputSchema/properties/a", Breaking, "schema of `a` changed in a way that can't be classified automatically"}},
	},
	{
		name:    "reference to another document",
		before:  in(object(`"a":{"$ref":"https://example.com/a.json"}`)),
		after:   in(object(`"a":{"$ref":"https://example.com/b.json"}`)),
		class:   Breaking,
		changes: []Change{{"/inputSchema/properties/a", Breaking, "schema of `a` changed in a way that can't be classified automatically"}},
	},

	// Combinators and the other keywords, by accepted values.
	{
		name:   "anyOf one branch equals its branch",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`,
		class:  Cosmetic,
		changes: []Change{
			{"/inputSchema/properties/a", Cosmetic, "schema of `a` rewritten without a change in meaning"},
		},
	},
	{
		name:   "anyOf reordered",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"string","maxLength":3},{"type":"array"}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"array"},{"type":"string","maxLength":3}]}}}}`,
		class:  Cosmetic,
		changes: []Change{
			{"/inputSchema/properties/a", Cosmetic, "schema of `a` rewritten without a change in meaning"},
		},
	},
	{
		name:   "minimum dropped into one-branch anyOf",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"integer","minimum":1}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"integer"}]}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/a/minimum", Compatible, "`minimum` of `a` removed"},
		},
	},
	{
		name:   "const to type",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"const":"hello"}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/a/const", Compatible, "`a` no longer fixed to `hello`"},
		},
	},
	{
		name:   "type to const",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"const":"hello"}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/a/const", Breaking, "`a` now fixed to `hello`"},
		},
	},
	{
		name:   "items widened to oneOf",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"labels":{"type":"array","items":{"type":"string"}}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"labels":{"type":"array","items":{"oneOf":[{"type":"string"},{"type":"object","properties":{"name":{"type":"string"}}}]}}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/labels/items", Compatible, "items of `labels` now also accept an object"},
		},
	},
	{
		name:   "items narrowed from oneOf",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"labels":{"type":"array","items":{"oneOf":[{"type":"string"},{"type":"object","properties":{"name":{"type":"string"}}}]}}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"labels":{"type":"array","items":{"type":"string"}}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/labels/items", Breaking, "items of `labels` no longer accept an object"},
		},
	},
	{
		name:      "optional field in oneOf branch",
		before:    `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"p":{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"}},"required":["kind"]}]}}}}`,
		after:     `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"p":{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"},"note":{"type":"string"}},"required":["kind"]}]}}}}`,
		class:     Compatible,
		migration: Migration{Add: []string{"/inputSchema/properties/p/oneOf/1/properties/note"}},
		changes: []Change{
			{"/inputSchema/properties/p/oneOf/1/properties/note", Compatible, "new optional parameter `p.note`"},
		},
	},
	{
		name:   "anyOf constraint removed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"body":{"type":"string"},"file":{"type":"string"}},"anyOf":[{"required":["body"]},{"required":["file"]}]}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"body":{"type":"string"},"file":{"type":"string"}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/anyOf", Compatible, "`anyOf` of input schema removed: accepts more"},
		},
	},
	{
		name:   "anyOf constraint added",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"body":{"type":"string"},"file":{"type":"string"}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"body":{"type":"string"},"file":{"type":"string"}},"anyOf":[{"required":["body"]},{"required":["file"]}]}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/anyOf", Breaking, "`anyOf` of input schema added: accepts less"},
		},
	},
	{
		name:   "nullable three ways a",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"t":{"type":["string","null"]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"t":{"anyOf":[{"type":"string"},{"type":"null"}]}}}}`,
		class:  Cosmetic,
		changes: []Change{
			{"/inputSchema/properties/t", Cosmetic, "schema of `t` rewritten without a change in meaning"},
		},
	},
	{
		name:   "nullable three ways b",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"t":{"anyOf":[{"type":"string"},{"type":"null"}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"t":{"type":"string","nullable":true}}}}`,
		class:  Cosmetic,
		changes: []Change{
			{"/inputSchema/properties/t", Cosmetic, "schema of `t` rewritten without a change in meaning"},
		},
	},
	{
		name:      "nullable anyOf added",
		before:    `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"issue_type":{"type":"string","enum":["bug","task"]}}}}`,
		after:     `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"issue_type":{"anyOf":[{"type":"string","enum":["bug","task"]},{"type":"null"}]}}}}`,
		class:     Compatible,
		migration: Migration{Retype: map[string]Retype{"/inputSchema/properties/issue_type": {"string", "nullable<string>"}}},
		changes: []Change{
			{"/inputSchema/properties/issue_type/anyOf/1", Compatible, "`issue_type` now also accepts null"},
		},
	},
	{
		name:   "anyOf branch removed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"object"},{"type":"number"}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"object"}]}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/a", Breaking, "`a` no longer accepts a number"},
		},
	},
	{
		name:   "anyOf branch narrowed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"object","properties":{"x":{"type":"string"}}}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}]}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/a/properties/x", Breaking, "parameter `a.x` is now required"},
		},
	},
	{
		name:   "anyOf to oneOf",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"string","maxLength":2}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"string","maxLength":2}]}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/a/oneOf", Breaking, "`anyOf` of `a` became `oneOf`: a value matching several branches is now rejected"},
		},
	},
	{
		name:   "subsumed branch removed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"string","maxLength":2},{"type":"null"}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}}}}`,
		class:  Cosmetic,
		changes: []Change{
			{"/inputSchema/properties/a", Cosmetic, "schema of `a` rewritten without a change in meaning"},
		},
	},
	{
		name:   "allOf condition added",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{"properties":{"a":{"maxLength":3}}}]}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/allOf", Breaking, "`allOf` of input schema added: accepts less"},
		},
	},
	{
		name:   "allOf clashing conditions",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"type":["string","null"],"maxLength":5}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"type":["string","null"]}]}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/a/allOf/1/maxLength", Compatible, "`maxLength` of `a` removed"},
		},
	},
	{
		name:   "not added",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string","not":{"const":"x"}}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/a/not", Breaking, "`not` of `a` added: accepts less"},
		},
	},
	{
		name:   "not narrowed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string","not":{"enum":["x","y"]}}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string","not":{"enum":["x"]}}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/a/not/enum", Compatible, "enum value `y` removed from `a`"},
		},
	},
	{
		name:   "not widened",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string","not":{"enum":["x"]}}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string","not":{"enum":["x","y"]}}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/a/not/enum", Breaking, "enum value `y` added to `a`"},
		},
	},
	{
		name:   "if then added",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{},"b":{}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{},"b":{}},"if":{"required":["a"]},"then":{"required":["b"]}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/then", Breaking, "`then` of input schema added: accepts less"},
		},
	},
	{
		name:   "if then removed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{},"b":{}},"if":{"required":["a"]},"then":{"required":["b"]}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{},"b":{}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/then", Compatible, "`then` of input schema removed: accepts more"},
		},
	},
	{
		name:   "if changed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","if":{"required":["c"]},"then":{"required":["b"]}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/if", Breaking, "condition `if` of input schema changed: which values `then` and `else` apply to can't be compared"},
		},
	},
	{
		name:   "else loosened",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","if":{"required":["a"]},"else":{"maxProperties":1}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","if":{"required":["a"]},"else":{"maxProperties":2}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/else/maxProperties", Compatible, "`maxProperties` of input schema raised from 1 to 2"},
		},
	},
	{
		name:   "dependentRequired",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","dependentRequired":{"a":["b"]}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","dependentRequired":{"a":["b","c"],"d":["e"]}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/dependentRequired/a", Breaking, "`c` now required in input schema whenever `a` is present"},
			{"/inputSchema/dependentRequired/d", Breaking, "`e` now required in input schema whenever `d` is present"},
		},
	},
	{
		name:   "dependentRequired dropped",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","dependentRequired":{"a":["b","c"]}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object"}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/dependentRequired/a", Compatible, "`b` no longer required in input schema whenever `a` is present"},
			{"/inputSchema/dependentRequired/a", Compatible, "`c` no longer required in input schema whenever `a` is present"},
		},
	},
	{
		name:   "dependencies draft7 same",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","dependencies":{"a":["b"]}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","dependentRequired":{"a":["b"]}}}`,
		class:  Cosmetic,
		changes: []Change{
			{"/inputSchema", Cosmetic, "input schema rewritten without a change in meaning"},
		},
	},
	{
		name:   "dependentSchemas added",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object"}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/dependentSchemas/a", Breaking, "`dependentSchemas` entry `a` of input schema added: accepts less"},
		},
	},
	{
		name:   "dependentSchemas loosened",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","dependentSchemas":{"a":{"properties":{"b":{"maxLength":1}}}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","dependentSchemas":{"a":{"properties":{"b":{"maxLength":2}}}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/dependentSchemas/a/properties/b/maxLength", Compatible, "`maxLength` of `b` raised from 1 to 2"},
		},
	},
	{
		name:   "patternProperties added open",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object"}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object","patternProperties":{"^x-":{"type":"string"}}}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/m/patternProperties/^x-", Breaking, "`type` of `m./^x-/` now accepts only a string"},
		},
	},
	{
		name:   "patternProperties added closed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object","additionalProperties":false}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object","additionalProperties":false,"patternProperties":{"^x-":{"type":"string"}}}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/m/patternProperties/^x-", Compatible, "`m./^x-/` now accepts values (it accepted none)"},
		},
	},
	{
		name:   "patternProperties widened",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object","patternProperties":{"^x-":{"type":"string"}}}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object","patternProperties":{"^x-":{"type":["string","number"]}}}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/m/patternProperties/^x-", Compatible, "`type` of `m./^x-/` now also accepts a number"},
		},
	},
	{
		name:   "pattern regex changed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object","additionalProperties":false,"patternProperties":{"^x-":{"type":"string"}}}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object","additionalProperties":false,"patternProperties":{"^y-":{"type":"string"}}}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/m/patternProperties", Breaking, "property name patterns of `m` changed from `^x-` to `^y-`: whether one matches the names the other does can't be decided"},
		},
	},
	{
		name:   "prefixItems longer",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"}],"items":false}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"},{"type":"number"}],"items":false}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/p/prefixItems/1", Compatible, "`p[1]` now accepts values (it accepted none)"},
		},
	},
	{
		name:   "prefixItems narrowed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"},{"type":"number"}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/p/prefixItems/1", Breaking, "`type` of `p[1]` no longer accepts a non-integer number"},
		},
	},
	{
		name:   "ref into defs widened",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"anyOf":[{"type":"string"}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/a", Compatible, "`a` now also accepts an integer"},
		},
	},
	{
		name:   "ref into definitions narrowed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/definitions/a"}},"definitions":{"a":{"type":["string","integer"]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/definitions/a"}},"definitions":{"a":{"type":"string"}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/a", Breaking, "`type` of `a` no longer accepts an integer"},
		},
	},
	{
		name:   "anyOf of types narrows to a type",
		before: in(object(`"id":{"anyOf":[{"type":"string"},{"type":"integer"}]}`)),
		after:  in(object(`"id":{"type":"string"}`)),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/id", Breaking, "`id` no longer accepts an integer"},
		},
	},
	{
		name:   "ref replaced by its target",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/definitions/a"}},"definitions":{"a":{"type":"string"}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`,
		class:  Cosmetic,
		changes: []Change{
			{"/inputSchema/properties/a", Cosmetic, "schema of `a` rewritten without a change in meaning"},
		},
	},
	{
		name:   "readOnly flip",
		before: `{"name":"w","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
		after:  `{"name":"w","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false}}`,
		class:  Breaking,
		changes: []Change{
			{"/annotations/readOnlyHint", Breaking, "tool is no longer read-only"},
		},
	},
	{
		name:   "defaults written",
		before: `{"name":"w","inputSchema":{"type":"object"}}`,
		after:  `{"name":"w","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}}`,
		class:  Cosmetic,
		changes: []Change{
			{"/annotations", Cosmetic, "annotations `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint` written differently without a change in meaning"},
		},
	},
	{
		name:   "destructive",
		before: `{"name":"w","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false,"openWorldHint":false}}`,
		after:  `{"name":"w","inputSchema":{"type":"object"},"annotations":{"openWorldHint":true}}`,
		class:  Breaking,
		changes: []Change{
			{"/annotations/destructiveHint", Breaking, "tool may now be destructive"},
			{"/annotations/openWorldHint", Breaking, "tool may now reach outside its own domain"},
		},
	},
	{
		name:   "readonly idempotent noise",
		before: `{"name":"w","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
		after:  `{"name":"w","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true, "destructiveHint":true}}`,
		class:  Cosmetic,
		changes: []Change{
			{"/annotations", Cosmetic, "annotations `destructiveHint` written differently without a change in meaning"},
		},
	},
	{
		name:      "output anyOf branch added",
		before:    `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"r":{"anyOf":[{"type":"string"}]}}}}`,
		after:     `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"r":{"anyOf":[{"type":"string"},{"type":"null"}]}}}}`,
		class:     Breaking,
		migration: Migration{Retype: map[string]Retype{"/outputSchema/properties/r": {"string", "nullable<string>"}}},
		changes: []Change{
			{"/outputSchema/properties/r", Breaking, "`r` now also accepts null"},
		},
	},
	{
		name:   "contains",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"array"}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"array","contains":{"const":1}}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/a/contains", Breaking, "`contains` of `a` added: accepts less"},
		},
	},
	{
		name:   "not removed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string","not":{"const":"x"}}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/a/not", Compatible, "`not` of `a` removed: accepts more"},
		},
	},
	{
		name:   "allOf condition removed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{"properties":{"a":{"maxLength":3}}}]}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/allOf", Compatible, "`allOf` of input schema removed: accepts more"},
		},
	},
	{
		name:   "dependentSchemas removed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object"}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/dependentSchemas/a", Compatible, "`dependentSchemas` entry `a` of input schema removed: accepts more"},
		},
	},
	{
		name:   "patternProperties removed open",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object","patternProperties":{"^x-":{"type":"string"}}}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object"}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/m/patternProperties/^x-", Compatible, "`type` of `m./^x-/` now accepts any value"},
		},
	},
	{
		name:   "oneOf branch added",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"object","properties":{"id":{"type":"string"}}}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"object","properties":{"id":{"type":"string"}}},{"type":"array","items":{"type":"string"}}]}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/a", Compatible, "`a` now also accepts an array"},
		},
	},
	{
		name:   "oneOf branch of the same type added",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"oneOf":[{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"oneOf":[{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}]}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/a/oneOf/1", Compatible, "`a` now also accepts an object matching branch 2 of `oneOf`"},
		},
	},
	{
		name:   "propertyNames removed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object","propertyNames":{"maxLength":8}}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object"}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/m/propertyNames", Compatible, "`propertyNames` of `m` removed: accepts more"},
		},
	},
	{
		name:   "output default changed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"r":{"type":"string","default":"a"}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"r":{"type":"string","default":"b"}}}}`,
		class:  Cosmetic,
		changes: []Change{
			{"/outputSchema/properties/r/default", Cosmetic, "default of `r` changed from `a` to `b`"},
		},
	},
	{
		name:   "default removed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"r":{"type":"string","default":"a"}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"r":{"type":"string"}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/r/default", Breaking, "default of `r` removed: a call that omits it may now behave differently"},
		},
	},
	{
		name:   "idempotent lost",
		before: `{"name":"w","inputSchema":{"type":"object"},"annotations":{"idempotentHint":true}}`,
		after:  `{"name":"w","inputSchema":{"type":"object"}}`,
		class:  Breaking,
		changes: []Change{
			{"/annotations/idempotentHint", Breaking, "tool is no longer idempotent"},
		},
	},
	{
		name:   "safer",
		before: `{"name":"w","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true}}`,
		after:  `{"name":"w","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false,"idempotentHint":true}}`,
		class:  Compatible,
		changes: []Change{
			{"/annotations/destructiveHint", Compatible, "tool is no longer destructive"},
			{"/annotations/idempotentHint", Compatible, "tool is now idempotent"},
		},
	},
	{
		name:   "now read-only",
		before: `{"name":"w","inputSchema":{"type":"object"}}`,
		after:  `{"name":"w","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
		class:  Compatible,
		changes: []Change{
			{"/annotations/readOnlyHint", Compatible, "tool is now read-only"},
		},
	},
	{
		name:   "closed world",
		before: `{"name":"w","inputSchema":{"type":"object"}}`,
		after:  `{"name":"w","inputSchema":{"type":"object"},"annotations":{"openWorldHint":false}}`,
		class:  Compatible,
		changes: []Change{
			{"/annotations/openWorldHint", Compatible, "tool no longer reaches outside its own domain"},
		},
	},
	{
		name:   "false",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":false}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/a", Compatible, "`a` now accepts values (it accepted none)"},
		},
	},
	{
		name:   "anyOf changed",
		before: in(object(`"when":{"anyOf":[{"type":"string"},{"type":"number"}]}`)),
		after:  in(object(`"when":{"anyOf":[{"type":"string"},{"type":"boolean"}]}`)),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/when", Breaking, "`when` now also accepts a boolean and no longer accepts a number"},
		},
	},
	{
		name:      "anyOf whose referenced definition changed",
		before:    in(`{"type":"object","properties":{"a":{"oneOf":[{"$ref":"#/$defs/d"},{"type":"null"}]}},"$defs":{"d":{"type":"string"}}}`),
		after:     in(`{"type":"object","properties":{"a":{"oneOf":[{"$ref":"#/$defs/d"},{"type":"null"}]}},"$defs":{"d":{"type":"number"}}}`),
		class:     Breaking,
		migration: Migration{Retype: map[string]Retype{"/inputSchema/properties/a": {"nullable<string>", "nullable<number>"}}},
		changes: []Change{
			{"/inputSchema/properties/a", Breaking, "`a` now also accepts a number and no longer accepts a string"},
		},
	},
	{
		name:   "if then else at the root",
		before: in(`{"type":"object","if":{"required":["a"]},"then":{"required":["b"]}}`),
		after:  in(`{"type":"object","if":{"required":["a"]},"then":{"required":["c"]}}`),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/then/properties/b", Compatible, "parameter `b` is now optional"},
			{"/inputSchema/then/properties/c", Breaking, "parameter `c` is now required"},
		},
	},
	{
		name:   "tuple items",
		before: in(object(`"pair":{"type":"array","items":[{"type":"string"},{"type":"number"}]}`)),
		after:  in(object(`"pair":{"type":"array","items":[{"type":"string"}]}`)),
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/pair/items/1", Compatible, "`type` of `pair[1]` now accepts any value"},
		},
	},

	{
		name:   "oneOf to anyOf",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"string","maxLength":2}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"string","maxLength":2}]}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/a/anyOf", Compatible, "`oneOf` of `a` became `anyOf`: a value matching several branches is now accepted"},
		},
	},
	{
		name:   "else tightened",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","if":{"required":["a"]},"else":{"maxProperties":2}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","if":{"required":["a"]},"else":{"maxProperties":1}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/else/maxProperties", Breaking, "`maxProperties` of input schema lowered from 2 to 1"},
		},
	},
	{
		name:   "patternProperties narrowed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object","patternProperties":{"^x-":{"type":["string","number"]}}}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object","patternProperties":{"^x-":{"type":"string"}}}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/m/patternProperties/^x-", Breaking, "`type` of `m./^x-/` no longer accepts a number"},
		},
	},
	{
		name:   "allOf written out",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"maxLength":3}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"type":"string","maxLength":3}}}}`,
		class:  Cosmetic,
		changes: []Change{
			{"/inputSchema/properties/a", Cosmetic, "schema of `a` rewritten without a change in meaning"},
		},
	},
	{
		name:   "prefixItems shorter",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"},{"type":"number"}],"items":false}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"}],"items":false}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/p/prefixItems/1", Breaking, "`p[1]` no longer accepts any value"},
		},
	},
	{
		name:   "ref into defs narrowed",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"anyOf":[{"type":"string"}]}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/a", Breaking, "`a` no longer accepts an integer"},
		},
	},
	{
		name:   "propertyNames added",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object"}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"m":{"type":"object","propertyNames":{"maxLength":8}}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/m/propertyNames", Breaking, "`propertyNames` of `m` added: accepts less"},
		},
	},

	{
		name:   "null added to a second oneOf branch",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"oneOf":[{"type":["string","null"]},{"type":"object"}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"oneOf":[{"type":["string","null"]},{"type":["object","null"]}]}}}}`,
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/a/oneOf", Breaking, "`a`: null now matches several branches of `oneOf`, which rejects it"},
		},
	},
	{
		name:   "null removed from a second oneOf branch",
		before: `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"oneOf":[{"type":["string","null"]},{"type":["object","null"]}]}}}}`,
		after:  `{"name":"weather","description":"Get the weather","inputSchema":{"type":"object","properties":{"a":{"oneOf":[{"type":["string","null"]},{"type":"object"}]}}}}`,
		class:  Compatible,
		changes: []Change{
			{"/inputSchema/properties/a/oneOf", Compatible, "`a`: null no longer matches several branches of `oneOf`, which rejected it"},
		},
	},

	// Output schema.
	{
		name:      "output schema appears",
		before:    in(`{"type":"object"}`),
		after:     out(object(`"temp":{"type":"number"}`)),
		class:     Compatible,
		migration: Migration{Add: []string{"/outputSchema"}},
		changes:   []Change{{"/outputSchema", Compatible, "output schema added"}},
	},
	{
		name:      "output schema disappears",
		before:    out(object(`"temp":{"type":"number"}`)),
		after:     in(`{"type":"object"}`),
		class:     Breaking,
		migration: Migration{Remove: []string{"/outputSchema"}},
		changes:   []Change{{"/outputSchema", Breaking, "output schema removed"}},
	},
	{
		name:      "output field added, even a required one",
		before:    out(object(`"temp":{"type":"number"}`, "temp")),
		after:     out(object(`"temp":{"type":"number"},"humidity":{"type":"number"}`, "temp", "humidity")),
		class:     Compatible,
		migration: Migration{Add: []string{"/outputSchema/properties/humidity"}},
		changes:   []Change{{"/outputSchema/properties/humidity", Compatible, "output field `humidity` added"}},
	},
	{
		name:      "output field removed",
		before:    out(object(`"temp":{"type":"number"},"humidity":{"type":"number"}`)),
		after:     out(object(`"temp":{"type":"number"}`)),
		class:     Breaking,
		migration: Migration{Remove: []string{"/outputSchema/properties/humidity"}},
		changes:   []Change{{"/outputSchema/properties/humidity", Breaking, "output field `humidity` removed"}},
	},
	{
		name:      "output field renamed",
		before:    out(object(`"temp":{"type":"number"}`)),
		after:     out(object(`"temperature":{"type":"number"}`)),
		class:     Breaking,
		migration: Migration{Rename: map[string]string{"/outputSchema/properties/temp": "/outputSchema/properties/temperature"}},
		changes:   []Change{{"/outputSchema/properties/temp", Breaking, "output field `temp` renamed to `temperature`"}},
	},
	{
		name:      "output field narrowed to another token is still breaking",
		before:    out(object(`"temp":{"type":["number","null"]}`)),
		after:     out(object(`"temp":{"type":"number"}`)),
		class:     Breaking,
		migration: Migration{Retype: map[string]Retype{"/outputSchema/properties/temp": {"nullable<number>", "number"}}},
		changes: []Change{
			{"/outputSchema/properties/temp", Breaking, "`type` of `temp` no longer accepts null"},
		},
	},
	{
		name:   "output integer widens to number",
		before: out(object(`"count":{"type":"integer"}`)),
		after:  out(object(`"count":{"type":"number"}`)),
		class:  Breaking,
		changes: []Change{
			{"/outputSchema/properties/count", Breaking, "`type` of `count` now also accepts a non-integer number"},
		},
	},
	{
		name:   "output number narrows to integer",
		before: out(object(`"count":{"type":"number"}`)),
		after:  out(object(`"count":{"type":"integer"}`)),
		class:  Compatible,
		changes: []Change{
			{"/outputSchema/properties/count", Compatible, "`type` of `count` no longer accepts a non-integer number"},
		},
	},
	{
		name:   "output enum values",
		before: out(object(`"sky":{"enum":["clear","cloudy"]}`)),
		after:  out(object(`"sky":{"enum":["cloudy","rain"]}`)),
		class:  Breaking,
		changes: []Change{
			{"/outputSchema/properties/sky/enum", Compatible, "enum value `clear` removed from `sky`"},
			{"/outputSchema/properties/sky/enum", Breaking, "enum value `rain` added to `sky`"},
		},
	},
	{
		name:   "output requiredness",
		before: out(object(`"temp":{"type":"number"},"wind":{"type":"number"}`, "temp")),
		after:  out(object(`"temp":{"type":"number"},"wind":{"type":"number"}`, "wind")),
		class:  Breaking,
		changes: []Change{
			{"/outputSchema/properties/temp", Breaking, "output field `temp` is now optional"},
			{"/outputSchema/properties/wind", Compatible, "output field `wind` is now required"},
		},
	},
	{
		name:   "output constraints and additionalProperties tighten",
		before: out(object(`"summary":{"type":"string","maxLength":200}`)),
		after:  out(`{"type":"object","properties":{"summary":{"type":"string","maxLength":100}},"additionalProperties":false}`),
		class:  Compatible,
		changes: []Change{
			{"/outputSchema/properties/summary/maxLength", Compatible, "`maxLength` of `summary` lowered from 200 to 100"},
			{"/outputSchema/additionalProperties", Compatible, "additional properties no longer allowed in output schema"},
		},
	},

	// Malformed input.
	{
		name:    "input schema that is not an object",
		before:  in(`{"type":"object"}`),
		after:   in(`"object"`),
		class:   Breaking,
		changes: []Change{{"/inputSchema", Breaking, "input schema changed in a way that can't be classified automatically"}},
	},
	{
		name:    "input schema missing",
		before:  in(`{"type":"object"}`),
		after:   `{"name":"weather","description":"Get the weather"}`,
		class:   Breaking,
		changes: []Change{{"/inputSchema", Breaking, "input schema changed in a way that can't be classified automatically"}},
	},
	{
		name:    "properties that is an array",
		before:  in(`{"type":"object","properties":[{"type":"string"}]}`),
		after:   in(`{"type":"object","properties":[{"type":"number"}]}`),
		class:   Breaking,
		changes: []Change{{"/inputSchema/properties", Breaking, "properties of input schema changed in a way that can't be classified automatically"}},
	},
	{
		name:      "required that is not a list of names",
		before:    in(`{"type":"object","properties":{"a":{}},"required":"a"}`),
		after:     in(`{"type":"object","properties":{"a":{},"b":{}},"required":["a",1]}`),
		class:     Breaking,
		migration: Migration{Add: []string{"/inputSchema/properties/b"}},
		changes: []Change{
			{"/inputSchema/required", Breaking, "required properties of input schema changed in a way that can't be classified automatically"},
			{"/inputSchema/properties/b", Compatible, "new optional parameter `b`"},
		},
	},
	{
		name:    "type that is a number",
		before:  in(object(`"a":{"type":"string"}`)),
		after:   in(object(`"a":{"type":7}`)),
		class:   Breaking,
		changes: []Change{{"/inputSchema/properties/a/type", Breaking, "type of `a` changed in a way that can't be classified automatically"}},
	},
	{
		name:    "enum that is not a list",
		before:  in(object(`"a":{"enum":["x"]}`)),
		after:   in(object(`"a":{"enum":"x"}`)),
		class:   Breaking,
		changes: []Change{{"/inputSchema/properties/a/enum", Breaking, "enum of `a` changed in a way that can't be classified automatically"}},
	},
	{
		name:   "boolean property schemas",
		before: in(object(`"a":true`)),
		after:  in(object(`"a":false`)),
		class:  Breaking,
		changes: []Change{
			{"/inputSchema/properties/a", Breaking, "`a` no longer accepts any value"},
		},
	},
	{
		name:    "annotations that are not an object",
		before:  `{"name":"w","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
		after:   `{"name":"w","inputSchema":{"type":"object"},"annotations":[true]}`,
		class:   Cosmetic,
		changes: []Change{{"/annotations", Cosmetic, "annotations changed"}},
	},
}

func TestCompare(t *testing.T) {
	for _, tc := range compareCases {
		t.Run(tc.name, func(t *testing.T) {
			got := Compare(decode(t, tc.before), decode(t, tc.after))
			if got.Class != tc.class {
				t.Errorf("Class = %q, want %q", got.Class, tc.class)
			}
			if !reflect.DeepEqual(got.Migration, tc.migration) {
				t.Errorf("Migration = %s, want %s", jsonText(got.Migration), jsonText(tc.migration))
			}
			if !reflect.DeepEqual(got.Changes, tc.changes) {
				t.Errorf("Changes:\n%s\nwant:\n%s", changeLines(got.Changes), changeLines(tc.changes))
			}
		})
	}
}

// TestEveryKeywordBothWays checks that the table has, for every keyword
// the classification reads, a case where the keyword makes the schema
// accept less (breaking) and one where it makes it accept more or the same
// (not breaking), each of which mentions the keyword.
func TestEveryKeywordBothWays(t *testing.T) {
	cases := map[string]compareCase{}
	for _, tc := range compareCases {
		cases[tc.name] = tc
	}
	for _, k := range []struct{ keyword, less, more string }{
		{"anyOf", "anyOf branch removed", "anyOf constraint removed"},
		{"anyOf", "anyOf constraint added", "anyOf one branch equals its branch"},
		{"anyOf", "anyOf branch narrowed", "anyOf reordered"},
		{"oneOf", "items narrowed from oneOf", "items widened to oneOf"},
		{"oneOf", "null added to a second oneOf branch", "null removed from a second oneOf branch"},
		{"oneOf", "anyOf to oneOf", "oneOf to anyOf"},
		{"allOf", "allOf condition added", "allOf condition removed"},
		{"anyOf", "anyOf of types narrows to a type", "nullable three ways a"},
		{"const", "type to const", "const to type"},
		{"enum", "enum introduced", "enum dropped"},
		{"not", "not added", "not removed"},
		{"not", "not widened", "not narrowed"},
		{"if", "if then added", "if then removed"},
		{"else", "else tightened", "else loosened"},
		{"dependentSchemas", "dependentSchemas added", "dependentSchemas loosened"},
		{"dependentRequired", "dependentRequired", "dependentRequired dropped"},
		{"patternProperties", "patternProperties narrowed", "patternProperties widened"},
		{"prefixItems", "prefixItems narrowed", "prefixItems longer"},
		{"$ref", "ref into defs narrowed", "ref into defs widened"},
		{"$defs", "change inside a definition is reported where it is used", "inline schema moved into a definition"},
		{"definitions", "ref into definitions narrowed", "ref replaced by its target"},
		{"default", "default changes", "default changes"},
		{"readOnlyHint", "readOnly flip", "now read-only"},
		{"destructiveHint", "destructive", "safer"},
		{"idempotentHint", "idempotent lost", "safer"},
		{"openWorldHint", "destructive", "closed world"},
	} {
		less, ok1 := cases[k.less]
		more, ok2 := cases[k.more]
		if !ok1 || !ok2 {
			t.Errorf("%s: no case %q or %q in the table", k.keyword, k.less, k.more)
			continue
		}
		if less.class != Breaking || !strings.Contains(less.before+less.after, k.keyword) {
			t.Errorf("%s: case %q is %s, want a breaking case that uses the keyword", k.keyword, k.less, less.class)
		}
		if k.less == k.more {
			continue // one case holds both directions, a change each way
		}
		if more.class == Breaking || !strings.Contains(more.before+more.after, k.keyword) {
			t.Errorf("%s: case %q is %s, want a case that is not breaking and uses the keyword", k.keyword, k.more, more.class)
		}
	}
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func changeLines(changes []Change) string {
	var s string
	for _, c := range changes {
		s += "\t" + c.Pointer + " " + string(c.Class) + " " + c.Text + "\n"
	}
	return s
}

// TestCompareStopsOnExponentialReferences builds definitions that each use
// the next one twice, so that a change in the last is used 2^40 times.
func TestCompareStopsOnExponentialReferences(t *testing.T) {
	const depth = 40
	defs := func(last string) string {
		var s string
		for i := range depth {
			s += fmt.Sprintf(`"d%d":{"type":"object","properties":{"l":{"$ref":"#/$defs/d%d"},"r":{"$ref":"#/$defs/d%d"}}},`, i, i+1, i+1)
		}
		return in(fmt.Sprintf(`{"$ref":"#/$defs/d0","$defs":{%s"d%d":%s}}`, s, depth, last))
	}
	got := Compare(decode(t, defs(`{"type":"string"}`)), decode(t, defs(`{"type":"number"}`)))
	if got.Class != Breaking {
		t.Errorf("Class = %q, want breaking", got.Class)
	}
	if n := len(got.Changes); n == 0 || n > maxSchemaVisits {
		t.Fatalf("%d changes, want between 1 and %d", n, maxSchemaVisits)
	}
	last := got.Changes[len(got.Changes)-1]
	if last.Class != Breaking || !strings.Contains(last.Text, "not compared: the schemas are too large or too deeply recursive") {
		t.Errorf("last change = %+v, want the breaking cut-off", last)
	}
}
