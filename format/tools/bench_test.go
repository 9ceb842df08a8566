package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/canonjson"
)

// limitTool is a tool file whose input schema has n properties in one
// object, each with a description of descLen bytes.
func limitTool(n, descLen int) []byte {
	var b strings.Builder
	b.WriteString(`{"name": "at_limit", "description": "A tool at the limits.", "inputSchema": {"type": "object", "properties": {`)
	desc := strings.Repeat("d", descLen)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `"p%06d": {"description": "%s"}`, i, desc)
	}
	b.WriteString("}}}")
	return []byte(b.String())
}

// BenchmarkCanonicalAtLimits reads a tool file at the limits and writes its
// canonical form (as every build does for every version of every tool): at
// the size limit (1 MiB, with as many properties as allowed) and at the
// property limit with short properties.
func BenchmarkCanonicalAtLimits(b *testing.B) {
	// name, description, inputSchema, type and properties are 5 of the
	// members; each listed property is 2: itself and its description.
	n := (MaxProperties - 5) / 2
	short := limitTool(n, 0)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"size limit", limitTool(n, (MaxFileBytes-len(short))/n)},
		{"property limit", short},
	} {
		tool, err := Parse("bench.json", tc.data)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name+"/parse and canonicalise", func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			for b.Loop() {
				if _, err := Parse("bench.json", tc.data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/canonicalise", func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			for b.Loop() {
				if _, err := canonjson.Canonical(tool.Object); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
