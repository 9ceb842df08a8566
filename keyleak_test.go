package main

import (
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/internal/leaktest"
)

// The key pasted in any encoding into any input directory whose files
// reach the output (a page, a template, an asset, a tool file), or shown
// through a template's field, fails the build, naming the encoding, and
// leaves public/ as it was.
func TestKeyLeakEveryEncoding(t *testing.T) {
	pemKey := string(didweb.MarshalPEM(leaktest.Key))
	places := []struct {
		name  string
		write func(enc string) func(*testing.T, string)
	}{
		{"content", func(enc string) func(*testing.T, string) {
			return writeFile("content/pages/notes.md", "# Notes\n\n```\n"+enc+"\n```\n")
		}},
		{"templates", func(enc string) func(*testing.T, string) {
			return edits(mkdir("templates"), writeFile("templates/404.html", "{{define \"main\"}}<pre>"+enc+"</pre>{{end}}"))
		}},
		{"a template field", func(enc string) func(*testing.T, string) {
			// html/template writes '+' as &#43;, which only a scan that
			// decodes character references finds.
			return edits(mkdir("templates"), writeFile("templates/404.html", "{{define \"main\"}}<pre>{{`"+enc+"`}}</pre>{{end}}"))
		}},
		{"templates/assets", func(enc string) func(*testing.T, string) {
			return edits(mkdir("templates/assets"), writeFile("templates/assets/notes.txt", enc))
		}},
		{"tool file", func(enc string) func(*testing.T, string) {
			quoted := strings.NewReplacer("\\", `\\`, "\n", `\n`, "\r", `\r`, `"`, `\"`).Replace(enc)
			return edits(replace("content/servers/forecast/tools/get_forecast.json",
				`"Daily forecast for a place, up to 14 days ahead."`, `"`+quoted+`"`), commitAll)
		}},
	}
	for name, enc := range leaktest.Text(leaktest.Key) {
		for _, place := range places {
			t.Run(name+" in "+place.name, badCase{
				edit: edits(writeFile("leak.key", pemKey), place.write(enc)),
				args: []string{"--key-file", "leak.key"},
				want: `^the signing key \((hex|base64|base64url)\) would be published in /`,
			}.run)
		}
	}
}
