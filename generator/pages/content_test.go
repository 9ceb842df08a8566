package pages

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wellknown-dev/wellknown/internal/diag"
)

func display(rel string) string { return "content/" + rel }

func TestReadContent(t *testing.T) {
	fsys := fstest.MapFS{
		"index.md":                      {Data: []byte("Hello.\n")},
		"servers/forecast/README.md":    {Data: []byte("## Coverage\n")},
		"servers/forecast/tools/x.json": {Data: []byte("{}")},
		"servers/alerts/tools/y.json":   {Data: []byte("{}")},
		"pages/b-about.md":              {Data: []byte("Intro\n\n# About *us*\n\n# Second\n")},
		"pages/a-guide.md":              {Data: []byte("No heading.\n")},
		"pages/notes.txt":               {Data: []byte("not Markdown")},
		"pages/.drafts/hidden.md":       {Data: []byte("# Hidden\n")},
		"pages/.#b-about.md":            {Data: []byte("an editor's lock file")},
		"pages/guides/index.md":         {Data: []byte("# Guides\n")},
		"pages/guides/install.md":       {Data: []byte("# Installing\n")},
	}
	c, err := readContent(fsys, display, newRendering())
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Home) != "Hello.\n" {
		t.Errorf("Home = %q", c.Home)
	}
	if len(c.ServerDocs) != 1 || string(c.ServerDocs["forecast"]) != "## Coverage\n" {
		t.Errorf("ServerDocs = %q", c.ServerDocs)
	}
	var got []string
	for _, p := range c.Pages {
		got = append(got, p.Name+"="+p.Title+"@"+p.Path())
	}
	want := "a-guide=a-guide@a-guide/ b-about=About us@b-about/ guides=Guides@guides/ guides/install=Installing@guides/install/"
	if strings.Join(got, " ") != want {
		t.Errorf("pages = %s, want %s", strings.Join(got, " "), want)
	}
}

func TestReadContentEmpty(t *testing.T) {
	c, err := readContent(fstest.MapFS{}, display, newRendering())
	if err != nil || c.Home != nil || len(c.ServerDocs) != 0 || len(c.Pages) != 0 {
		t.Errorf("readContent of nothing = %+v, %v", c, err)
	}
}

// A page may not take a path of the site's own, nor need escaping; each
// problem names its file.
func TestReadContentPageNames(t *testing.T) {
	fsys := fstest.MapFS{
		"pages/servers.md":     {Data: []byte("# Servers\n")},
		"pages/Changelog.md":   {Data: []byte("# Changes\n")},
		"pages/my page.md":     {Data: []byte("# Mine\n")},
		"pages/a/_b.md":        {Data: []byte("# B\n")},
		"pages/index.md":       {Data: []byte("# Home\n")},
		"pages/twice.md":       {Data: []byte("# Twice\n")},
		"pages/twice/index.md": {Data: []byte("# Twice again\n")},
		"pages/fine.md":        {Data: []byte("# Fine\n")},
		"pages/fine/too.md":    {Data: []byte("# Fine too\n")},
	}
	_, err := readContent(fsys, display, newRendering())
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`content/pages/servers.md: page name "servers" is taken`,
		`content/pages/Changelog.md: page name "Changelog" is taken`,
		`content/pages/my page.md: page name "my page" must be`,
		`content/pages/a/_b.md: page name "a/_b" must be`,
		`content/pages/index.md: pages/index.md would be the home page`,
		`page /twice/ is also written by`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "fine.md") {
		t.Errorf("a good name is reported: %v", err)
	}
	var d *diag.Error
	if !errors.As(err, &d) {
		t.Errorf("%T is not a located error", err)
	}
}

// Markdown: GFM tables, heading ids, no raw HTML, no javascript: links,
// root links made relative to the page.
func TestMarkdown(t *testing.T) {
	md := newMarkdown()
	src := []byte(strings.Join([]string{
		"# Main title",
		"",
		"| a | b |",
		"|---|---|",
		"| 1 | 2 |",
		"",
		`<script>alert(1)</script> <b onclick="x()">bold</b>`,
		"",
		"[root](/servers/x/) [rel](other/) [abs](https://example.com/) [proto](//cdn.example/x) [bad](javascript:alert(1))",
		"![img](/assets/logo.svg)",
	}, "\n"))
	html, err := md.render(md.parse(src, "../../", []string{"main-title"}, 0), src)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<h1 id="main-title-1">Main title</h1>`,
		"<table>",
		"<!-- raw HTML omitted -->",
		`<a href="../../servers/x/">root</a>`,
		`<a href="other/">rel</a>`,
		`<a href="https://example.com/">abs</a>`,
		`<a href="//cdn.example/x">proto</a>`,
		`<a href="">bad</a>`,
		`<img src="../../assets/logo.svg" alt="img">`,
	} {
		if !strings.Contains(string(html), want) {
			t.Errorf("rendered Markdown lacks %s:\n%s", want, html)
		}
	}
	if strings.Contains(string(html), "<script") || strings.Contains(string(html), "onclick") {
		t.Errorf("raw HTML came through:\n%s", html)
	}
}

// Headings move down so that the highest is at the requested level.
func TestMarkdownHeadingLevels(t *testing.T) {
	md := newMarkdown()
	for _, c := range []struct {
		src  string
		top  int
		want string
	}{
		{"# A\n## B\n", 0, "<h1 id=\"a\">A</h1>\n<h2 id=\"b\">B</h2>\n"},
		{"# A\n## B\n", 3, "<h3 id=\"a\">A</h3>\n<h4 id=\"b\">B</h4>\n"},
		{"## A\n###### B\n", 3, "<h3 id=\"a\">A</h3>\n<h6 id=\"b\">B</h6>\n"},
		{"#### A\n", 3, "<h4 id=\"a\">A</h4>\n"},
	} {
		html, err := md.render(md.parse([]byte(c.src), "./", nil, c.top), []byte(c.src))
		if err != nil || string(html) != c.want {
			t.Errorf("%q at top %d = %q, %v; want %q", c.src, c.top, html, err, c.want)
		}
	}
}
