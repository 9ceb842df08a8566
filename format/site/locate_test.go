package site

import "testing"

func TestLocator(t *testing.T) {
	src := `# comment
base_url = "https://example.com/"
note = """
fake = "not a key"
"""
[[servers]]
name = "a/one"
[servers.repository]
url = "x"
[[servers.remotes]]
url = "r0"
[[servers.remotes]]
url = "r1"

[[servers]]
"name" = "a/two"
remotes = [{type = "sse", url = "y"}]
[[servers.remotes]]
type = "sse"
[entity]
domain = "example.com"
`
	l := newLocator(src)
	for path, want := range map[string]int{
		"base_url":                 2,
		"note":                     3,
		"servers.0":                6,
		"servers.0.name":           7,
		"servers.0.repository.url": 9,
		"servers.0.remotes.0.url":  11,
		"servers.0.remotes.1.url":  13,
		"servers.1.name":           16,
		"servers.1.remotes":        17,
		"servers.1.remotes.3.type": 17, // inline tables: the enclosing key
		"servers.1.remotes.0.type": 19,
		"entity.domain":            21,
		"fake":                     0,
		"servers.7.name":           0,
	} {
		if got := l.line(path); got != want {
			t.Errorf("line(%q) = %d, want %d", path, got, want)
		}
	}
	// Undecoded keys come without indices; successive lookups find successive occurrences.
	line, next := l.lineOfUnindexed("servers.name", 0)
	line2, _ := l.lineOfUnindexed("servers.name", next)
	if line != 7 || line2 != 16 {
		t.Errorf("lineOfUnindexed(servers.name) = %d then %d, want 7 then 16", line, line2)
	}
}
