package pages

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/parallel"
)

// Content is the site's Markdown (see the package comment for the layout).
type Content struct {
	Home       []byte            // index.md
	ServerDocs map[string][]byte // servers/<slug>/README.md, by slug
	Pages      []*MarkdownPage   // pages/<name>.md, by name
}

// MarkdownPage is a page of the site's own.
type MarkdownPage struct {
	Name  string // its path without slashes around: "about", "guides/install"
	Title string // its first level-1 heading, else the last part of Name

	file string // its Markdown file, under the content directory: "pages/about.md"
	// Its Markdown, which only its own page shows: a page is not made from
	// another's (see Cache).
	source    []byte
	converted *converted // source converted by readContent, so that renderWith does not convert again
}

// Path is the page's path.
func (m *MarkdownPage) Path() string { return m.Name + "/" }

// TopLevel reports whether the page is at the top of the site, where the
// navigation lists it.
func (m *MarkdownPage) TopLevel() bool { return !strings.Contains(m.Name, "/") }

// parent is the name of the page a page is listed on: its directory's.
func (m *MarkdownPage) parent() string {
	if !m.TopLevel() {
		return path.Dir(m.Name)
	}
	return ""
}

// Content file names.
const (
	homeFile      = "index.md"
	serverDocFile = "README.md"
	serversDir    = "servers"
	pagesDir      = "pages"
)

// reserved are the names at the site's root that its own pages, documents
// and deploy files use, which a Markdown page may not take.
var reserved = []string{"servers", "changelog", "verify", "assets", "mcp", "a2a",
	"index.html", "404.html", "did.json", "_headers", "_redirects", "cname"}

// pageName is what each part of a page's name may be: a path segment that
// needs no escaping.
var pageName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// readContent reads the Markdown of a content directory, converting the
// pages' Markdown through cache. A missing file or directory is no
// content; display turns a path of fsys into the name used in errors.
func readContent(fsys fs.FS, display func(rel string) string, cache *Cache) (Content, error) {
	c := Content{ServerDocs: map[string][]byte{}}
	var err error
	if c.Home, err = readMarkdown(fsys, homeFile, display); err != nil {
		return c, err
	}
	servers, err := readDirOptional(fsys, serversDir)
	if err != nil {
		return c, err
	}
	for _, d := range servers {
		if !d.IsDir() {
			continue
		}
		doc, err := readMarkdown(fsys, path.Join(serversDir, d.Name(), serverDocFile), display)
		if err != nil {
			return c, err
		}
		if doc != nil {
			c.ServerDocs[d.Name()] = doc
		}
	}
	c.Pages, err = readPages(fsys, display, cache)
	return c, err
}

// readPages reads every Markdown file under pages/, skipping hidden ones,
// and converts them (on every processor, reading too: most of the time a
// rebuild converts one page and reads them all).
func readPages(fsys fs.FS, display func(rel string) string, cache *Cache) ([]*MarkdownPage, error) {
	var pages []*MarkdownPage
	var problems []error
	files := map[string]string{} // by page name: to find two files for one page
	err := fs.WalkDir(fsys, pagesDir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && p == pagesDir:
			return fs.SkipAll
		case err != nil:
			return err
		case strings.HasPrefix(d.Name(), ".") && p != pagesDir:
			return skip(d)
		case d.IsDir() || !strings.HasSuffix(p, ".md"):
			return nil
		}
		name := pageNameOf(p)
		if err := checkPageName(name); err != nil {
			problems = append(problems, diag.Errorf(display(p), 0, "%v", err))
			return nil
		}
		if first, dup := files[name]; dup {
			problems = append(problems, diag.Errorf(display(p), 0, "page /%s/ is also written by %s", name, display(first)))
			return nil
		}
		files[name] = p
		pages = append(pages, &MarkdownPage{Name: name, file: p})
		return nil
	})
	if err != nil {
		return nil, err
	}
	md := newMarkdown()
	readErrs, errs := make([]error, len(pages)), make([]error, len(pages))
	parallel.For(len(pages), func(i int) {
		pages[i], readErrs[i], errs[i] = readPage(fsys, pages[i], display, md, cache)
	})
	if err := cmp.Or(readErrs...); err != nil {
		return nil, err
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].Name < pages[j].Name })
	return pages, errors.Join(append(problems, errs...)...)
}

// readPage returns m with its Markdown read from its file in fsys and
// converted through cache, and its title; m itself is left as it is. A
// file that cannot be read is the error read, Markdown refused err.
func readPage(fsys fs.FS, m *MarkdownPage, display func(rel string) string, md *markdown, cache *Cache) (_ *MarkdownPage, read, err error) {
	src, err := fs.ReadFile(fsys, m.file)
	if err != nil {
		return m, err, nil
	}
	if err := checkNesting(src, display(m.file)); err != nil {
		return m, nil, err
	}
	cv, err := cache.convert(md, src, rootOf(m.Path()), reservedIDs[KindPage], 0)
	if err != nil {
		return m, nil, diag.Errorf(display(m.file), 0, "rendering the Markdown: %v", err)
	}
	return &MarkdownPage{Name: m.Name, Title: cmp.Or(cv.title, path.Base(m.Name)), file: m.file, source: src, converted: &cv}, nil, nil
}

// skip skips a hidden file or directory.
func skip(d fs.DirEntry) error {
	if d.IsDir() {
		return fs.SkipDir
	}
	return nil
}

// pageNameOf is the name of the page a file under pages/ renders:
// "pages/a/b.md" is "a/b", and a directory's index.md is the directory's page.
func pageNameOf(file string) string {
	name := strings.TrimSuffix(strings.TrimPrefix(file, pagesDir+"/"), ".md")
	if path.Base(name) == "index" {
		name = strings.TrimSuffix(path.Dir(name), ".")
	}
	return strings.TrimSuffix(name, "/")
}

func checkPageName(name string) error {
	if name == "" {
		return fmt.Errorf("pages/index.md would be the home page, whose text is index.md")
	}
	for _, seg := range strings.Split(name, "/") {
		if !pageName.MatchString(seg) {
			return fmt.Errorf("page name %q must be letters, digits, '.', '_' or '-', each part starting with a letter or digit", name)
		}
	}
	first, _, _ := strings.Cut(name, "/")
	if slices.Contains(reserved, strings.ToLower(first)) {
		return fmt.Errorf("page name %q is taken by the site's own pages and documents (reserved: %s)", name, strings.Join(reserved, ", "))
	}
	return nil
}

// readMarkdown reads the Markdown file name, which may be missing (nil),
// refused when it nests too deep (see checkNesting).
func readMarkdown(fsys fs.FS, name string, display func(rel string) string) ([]byte, error) {
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return b, checkNesting(b, display(name))
}

// checkNesting refuses Markdown whose lists and block quotes nest deeper
// than MaxNesting, naming file and the line, before the parser sees it.
func checkNesting(src []byte, file string) error {
	if line := tooDeep(src); line > 0 {
		return diag.Errorf(file, line, "lists and block quotes nest more than %d deep (the limit)", MaxNesting)
	}
	return nil
}

func readDirOptional(fsys fs.FS, name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return entries, err
}

// reservedIDs are the element ids the default templates use on each kind of
// page; a Markdown heading of the same name gets a suffixed id instead.
var reservedIDs = map[string][]string{
	KindHome:   {"main", "servers", "agents", "entity", "documents"},
	KindServer: {"main", "connect", "tools", "removed-tools", "docs", "documents"},
	KindPage:   {"main"},
}

// markdown converts Markdown to HTML: CommonMark with GFM, heading ids, no
// raw HTML (see pageTransformer for the rest).
type markdown struct {
	md goldmark.Markdown
}

func newMarkdown() *markdown {
	return &markdown{md: goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(pageTransformer{}, 100)),
		),
	)}
}

// parse parses src for a page whose way to the root is root, keeping the
// reserved ids for the page's template. A top level above 1 moves the
// headings down so that the highest is of that level, for Markdown shown
// under a heading of the page.
func (m *markdown) parse(src []byte, root string, reserved []string, top int) ast.Node {
	ctx := parser.NewContext()
	ctx.Set(rootKey, root)
	ctx.Set(topKey, top)
	for _, id := range reserved {
		ctx.IDs().Put([]byte(id))
	}
	return m.md.Parser().Parse(text.NewReader(src), parser.WithContext(ctx))
}

// render converts a parsed document to HTML.
func (m *markdown) render(doc ast.Node, src []byte) (template.HTML, error) {
	var b bytes.Buffer
	if err := m.md.Renderer().Render(&b, src, doc); err != nil {
		return "", err
	}
	// Safe: goldmark escapes text and, with raw HTML off, omits HTML and
	// dangerous link schemes.
	return template.HTML(b.String()), nil
}

// Context keys of pageTransformer.
var (
	rootKey = parser.NewContextKey() // the page's way to the root
	topKey  = parser.NewContextKey() // the level of the highest heading
)

// pageTransformer fits a document into its page: links and images to a
// root path ("/servers/x/") become relative to the page, so that they work
// under a base URL's path, and headings move down below the page's own.
type pageTransformer struct{}

func (pageTransformer) Transform(doc *ast.Document, _ text.Reader, pc parser.Context) {
	root, _ := pc.Get(rootKey).(string)
	top, _ := pc.Get(topKey).(int)
	shift := max(top-highestHeading(doc), 0)
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			n.Destination = relativeTo(root, n.Destination)
		case *ast.Image:
			n.Destination = relativeTo(root, n.Destination)
		case *ast.Heading:
			n.Level = min(n.Level+shift, 6)
		}
		return ast.WalkContinue, nil
	})
}

// highestHeading returns the level of the document's highest heading (7
// when it has none).
func highestHeading(doc ast.Node) int {
	highest := 7
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			highest = min(highest, h.Level)
		}
	}
	return highest
}

func relativeTo(root string, dest []byte) []byte {
	if len(dest) == 0 || dest[0] != '/' || bytes.HasPrefix(dest, []byte("//")) {
		return dest
	}
	return append([]byte(root), dest[1:]...)
}

// firstHeading returns the text of the document's first level-1 heading.
func firstHeading(doc ast.Node, src []byte) string {
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level == 1 {
			var b strings.Builder
			plainText(&b, h, src)
			return strings.TrimSpace(b.String())
		}
	}
	return ""
}

func plainText(b *strings.Builder, n ast.Node, src []byte) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		default:
			plainText(b, c, src)
		}
	}
}
