package schemadiff

import (
	"encoding/json"
	"reflect"
	"testing"
)

// fuzzSeeds are realistic tools/list objects and edits of them.
var fuzzSeeds = [][2]string{
	{
		`{"name":"get_forecast","title":"Forecast","description":"Weather forecast for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string","minLength":1},"days":{"type":"integer","minimum":1,"maximum":7,"default":3},"units":{"type":"string","enum":["metric","imperial"]}},"required":["city"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"temp":{"type":"number"},"sky":{"enum":["clear","cloudy"]}},"required":["temp"]},"annotations":{"readOnlyHint":true,"openWorldHint":true}}`,
		`{"name":"get_forecast","title":"Forecast","description":"Weather forecast for a place","inputSchema":{"type":"object","properties":{"location":{"type":"string","minLength":1},"days":{"type":["integer","null"],"minimum":1,"maximum":14},"units":{"type":"string","enum":["metric","imperial","kelvin"]}},"required":["location","days"]},"outputSchema":{"type":"object","properties":{"temp":{"type":"number"},"humidity":{"type":"number"}}},"annotations":{"readOnlyHint":true},"_meta":{"io.example/tier":"free"}}`,
	},
	{
		`{"name":"create_issue","description":"Create an issue","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"repo":{"$ref":"#/$defs/repo"},"labels":{"type":"array","items":{"type":"string"},"uniqueItems":true},"assignee":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["repo"],"$defs":{"repo":{"type":"object","properties":{"owner":{"type":"string"},"name":{"type":"string"}},"required":["owner","name"]}}}}`,
		`{"name":"create_issue","description":"Create an issue","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"repo":{"$ref":"#/$defs/repo"},"labels":{"type":"array","items":{"$ref":"#/$defs/label"}},"assignee":{"type":"string","nullable":true}},"required":["repo"],"$defs":{"repo":{"type":"object","properties":{"owner":{"type":"string"},"name":{"type":"string","pattern":"^[a-z-]+$"}},"required":["owner","name"]},"label":{"type":"string","maxLength":50}}}}`,
	},
	{
		`{"name":"tree","inputSchema":{"type":"object","properties":{"node":{"$ref":"#/definitions/node"}},"definitions":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/definitions/node"}}}}}}}`,
		`{"name":"tree","inputSchema":{"type":"object","properties":{"node":{"$ref":"#"},"kids":{"items":{"$ref":"#/definitions/x"}}},"definitions":{"x":{"$ref":"#/definitions/x"}}}}`,
	},
	{`{"name":"odd","inputSchema":{"type":7,"properties":[1,2],"required":"a"}}`, `{"name":"odd","inputSchema":true}`},
}

func FuzzCompare(f *testing.F) {
	for _, seed := range fuzzSeeds {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	for _, tc := range compareCases {
		f.Add([]byte(tc.before), []byte(tc.after))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var before, after map[string]any
		if json.Unmarshal(a, &before) != nil || json.Unmarshal(b, &after) != nil {
			return
		}
		checkInvariants(t, before, after)
		if got := Compare(before, before); !reflect.DeepEqual(got, Result{}) {
			t.Fatalf("Compare(x, x) = %+v for %s", got, a)
		}
		if first, again := Compare(before, after), Compare(before, after); !reflect.DeepEqual(first, again) {
			t.Fatalf("Compare is not deterministic: %+v, then %+v", first, again)
		}
	})
}
