package main

import (
	"strings"
	"testing"
)

// Hostile input: what anyone who can commit to the repository (or a server,
// through sync) can put there. Each case is a build that must fail with one
// located error line and leave public/ as it was (see badCase). The cases are
// grouped by what they attack.
func TestHostileInput(t *testing.T) {
	for _, tc := range []badCase{
		// The signing key and the file system: symlinks, devices, FIFOs, key
		// files in published or output directories.

		// Output paths: symlinked parents, the output directory as an input.

		// Tool files beyond the limits: size, nesting, properties, encodings.
		{"tool file over 1 MiB", writeFile("content/servers/forecast/tools/big.json", `{"name": "big", "description": "`+strings.Repeat("x", 1<<20)+`", "inputSchema": {"type": "object"}}`), nil,
			`^content/servers/forecast/tools/big\.json: tool file is 1048645 bytes; the limit is 1048576$`},
		{"tool file nested 1,000 deep", writeFile("content/servers/forecast/tools/deep.json", `{"name": "deep", "inputSchema": {"type": "object", "x": `+strings.Repeat(`{"a":`, 1000)+"1"+strings.Repeat("}", 1000)+`}}`), nil,
			`^content/servers/forecast/tools/deep\.json:1: objects and arrays nest more than 64 deep \(the limit\)$`},
		{"tool file with 12,000 properties", writeFile("content/servers/forecast/tools/wide.json", "{\"name\": \"wide\",\n\"inputSchema\": {\"type\": \"object\"},\n\"x\": ["+strings.Repeat(`{"a":1,"b":2,"c":3,"d":4},`, 3000)+"{}]}"), nil,
			`^content/servers/forecast/tools/wide\.json:3: more than 10000 properties \(the limit\)$`},
		{"tool file with a duplicate key", replace("content/servers/forecast/tools/get_forecast.json", `"title": "Get forecast",`, "\"title\": \"Get forecast\",\n  \"title\": \"Get a forecast\","), nil,
			`^content/servers/forecast/tools/get_forecast\.json:4: duplicate key "title"$`},
		{"tool file with a lone surrogate", replace("content/servers/forecast/tools/get_forecast.json", `"Daily forecast for a place, up to 14 days ahead."`, `"Daily forecast \ud83d for a place."`), nil,
			`^content/servers/forecast/tools/get_forecast\.json:4: string holds a lone UTF-16 surrogate \\ud83d, which is not a character$`},
		{"tool file with a byte-order mark", replace("content/servers/forecast/tools/get_forecast.json", "{\n  \"name\": \"get_forecast\"", "\ufeff{\n  \"name\": \"get_forecast\""), nil,
			`^content/servers/forecast/tools/get_forecast\.json: starts with a UTF-8 byte-order mark; save it without one$`},
		{"tool file holding an array", writeFile("content/servers/forecast/tools/list.json", `[{"name": "a", "inputSchema": {"type": "object"}}]`), nil,
			`^content/servers/forecast/tools/list\.json: a tool file holds one JSON object \(found an array\)$`},
		{"tool file with a number out of range", replace("content/servers/forecast/tools/get_forecast.json", `"maximum": 14,`, `"maximum": 1e400,`), nil,
			`^content/servers/forecast/tools/get_forecast\.json:16: number 1e400 is too large for a 64-bit floating-point number$`},

		// Configuration values: base_url, --set, remote URLs.
	} {
		t.Run(tc.name, tc.run)
	}
}
