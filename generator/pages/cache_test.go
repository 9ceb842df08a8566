package pages

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/templates"
)

// A page of a kind in reach, rendered with the default templates, shows no
// more of the tools and the history than reach says: changing what is out
// of its reach leaves it byte for byte as it was. The page cache relies on
// it.
func TestReach(t *testing.T) {
	before := render(t, fixtureSite(t), templates.FS)
	unreached := map[int][]string{
		reachNone: {"/guide/index.html", "/verify/index.html", "/404.html"},
		reachTool: {"/servers/forecast/tools/get_forecast/index.html"},
	}
	// Every tool but get_forecast changes.
	after := render(t, changeTools(fixtureSite(t), func(s *Server, tool *Tool) bool { return tool.Name != "get_forecast" }), templates.FS)
	checkUnchanged(t, before, after, append(unreached[reachNone], unreached[reachTool]...))
	// Only the alerts server's tools change.
	after = render(t, changeTools(fixtureSite(t), func(s *Server, _ *Tool) bool { return s.Slug == "alerts" }), templates.FS)
	checkUnchanged(t, before, after, []string{"/servers/forecast/index.html"})
	// The history but get_forecast's changes: no change, no version,
	// nothing removed.
	history := fixtureSite(t)
	history.Changes = nil
	for _, srv := range history.Servers {
		srv.Removed = nil
		for _, tool := range srv.Tools {
			if tool.Name != "get_forecast" {
				tool.Versions, tool.Removed, tool.Gaps = nil, nil, nil
			}
		}
	}
	checkUnchanged(t, before, render(t, history, templates.FS), append(unreached[reachNone], unreached[reachTool]...))
	for kind, r := range reach {
		if r != reachServer && len(unreached[r]) == 0 {
			t.Errorf("no page of kind %s is checked", kind)
		}
	}
}

// changeTools changes the description of each tool that change selects.
func changeTools(s *Site, change func(*Server, *Tool) bool) *Site {
	for _, srv := range s.Servers {
		for _, tool := range srv.Tools {
			if change(srv, tool) {
				tool.Description += " Changed."
				obj := map[string]any{}
				for k, v := range tool.Object {
					obj[k] = v
				}
				obj["description"] = tool.Description
				tool.Object = obj
			}
		}
	}
	return s
}

// checkUnchanged checks that the pages named are the same in both, and
// that some other page changed, so that the change was one pages show.
func checkUnchanged(t *testing.T, before, after map[string]string, unchanged []string) {
	t.Helper()
	for _, p := range unchanged {
		if before[p] == "" || before[p] != after[p] {
			t.Errorf("%s changed, or is missing", p)
		}
	}
	changed := 0
	for p := range before {
		if before[p] != after[p] {
			changed++
		}
	}
	if changed == 0 {
		t.Error("no page changed")
	}
}

// A Cache parses the templates once for as long as the bytes of the files
// they are parsed from stay the same, and again when one changes, site
// template or default; a template error is reported every time.
func TestCacheKeepsParsedTemplates(t *testing.T) {
	site := fstest.MapFS{"tool.html": {Data: []byte(`{{define "main"}}<h1>{{.Tool.Name}}</h1>{{end}}`)}}
	tfs := Templates(site, templates.FS)
	c := NewCache()
	parsed := func() *templateSet {
		t.Helper()
		set, err := c.parsed(tfs)
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	first := parsed()
	if parsed() != first {
		t.Error("the templates were parsed again, though none changed")
	}
	site["tool.html"] = &fstest.MapFile{Data: []byte(`{{define "main"}}<h2>{{.Tool.Name}}</h2>{{end}}`)}
	second := parsed()
	if second == first {
		t.Error("a changed template of the site's own was not parsed again")
	}
	delete(site, "tool.html")
	if parsed() == second {
		t.Error("the default template, back in place of the site's, was not parsed again")
	}
	site["layout.html"] = &fstest.MapFile{Data: []byte(`{{define "layout"}}{{end`)}
	for range 2 {
		if _, err := c.parsed(tfs); err == nil || !strings.Contains(err.Error(), "layout.html") {
			t.Errorf("err = %v, want the unparsable layout.html named", err)
		}
	}
}

// A diff keeps its two schemas' bytes alone, not their decoded objects,
// and encodes them, as a page's key in the cache is made of what its
// template can reach (see frameOf).
func TestSchemaChangesKeepAndEncodeTheirSchemas(t *testing.T) {
	key := func(after string) string {
		c := newSchemaChange(tools.Tool{Canonical: []byte(`{"a":1}`)}, tools.Tool{Object: map[string]any{"a": 2}, Canonical: []byte(after)})
		if c.new.Object != nil {
			t.Error("a diff keeps the decoded schema")
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if key(`{"a":2}`) == key(`{"a":3}`) {
		t.Errorf("two diffs encode alike: %s", key(`{"a":2}`))
	}
}
