package pages

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash"
	"html/template"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
	"github.com/wellknown-dev/wellknown/templates"
)

// Cache keeps what one rendering made for the next (a development server's
// rebuilds): Markdown converted to HTML, by its bytes and where it is shown,
// and every page's bytes, by what they are made from. A page is made from
// the templates, the Site and its own Markdown, and a page's template may
// show anything of the Site; so a page is reused only when the templates
// and everything renderBuild makes the Site from, but other pages' Markdown,
// are what they were (see newFrames), except that the default templates
// of some kinds of page are known to show little of the tools and the
// history (see reach). A Markdown edit that keeps the page's title
// re-renders that page alone; a tool edit or a commit the pages of the
// tools it changed, their servers' and the pages that list every tool and
// change (the home page, the changelog); a new title (the navigation on
// every page) every page, with the Markdown converted before. A Cache
// serves one rendering at a time.
type Cache struct {
	mu       sync.Mutex
	timeline *timeline.Timeline // the last rendering's; nil for a Cache used once
	history  int                // counts the timelines rendered from: identifies one in keys
	markdown map[[sha256.Size]byte]converted
	pages    map[string]renderedPage // by file
	// models are the keys of tool and server models (see frameOf) by the
	// key of what they are made from.
	models map[[sha256.Size]byte][sha256.Size]byte
	// The current rendering's, which replace the above when it ends: what
	// a rendering did not use is dropped.
	nextMarkdown map[[sha256.Size]byte]converted
	nextPages    map[string]renderedPage
	nextModels   map[[sha256.Size]byte][sha256.Size]byte
	rendered     int
	files        *inputfile.Files // what the Markdown and templates are read through
	// templates are the last rendering's, parsed from the files whose
	// bytes templatesKey identifies.
	templates    *templateSet
	templatesKey [sha256.Size]byte
	// once says no rendering follows (NewCacheOnce): a page is rendered
	// without the key that would find it again, whose encoding of the
	// page's model would cost a one-off build memory and time for nothing.
	once bool
	last *rendering // the last rendering, when it succeeded and another may follow
}

// rendering is what a rendering rendered with, which Rerender renders
// with again.
type rendering struct {
	renderer   *renderer
	root       string                   // the repository the content is read within
	contentDir string                   // absolute
	keyFile    inputfile.Secret         // which no Markdown file may be
	byFile     map[string]*MarkdownPage // the Markdown pages, by the absolute path of their file
	children   map[string][]*MarkdownPage
}

// converted is Markdown converted for a page.
type converted struct {
	html  template.HTML
	title string            // its first level-1 heading's text
	key   [sha256.Size]byte // of the Markdown and its place
}

type renderedPage struct {
	key  [sha256.Size]byte
	body []byte
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{markdown: map[[sha256.Size]byte]converted{}, pages: map[string]renderedPage{}, models: map[[sha256.Size]byte][sha256.Size]byte{},
		files: inputfile.NewFiles()}
}

// NewCacheOnce returns a Cache for a rendering no other follows, which
// renders every page and keeps none.
func NewCacheOnce() *Cache {
	c := NewCache()
	c.once = true
	return c
}

// Rendered returns how many pages the last rendering rendered; the others
// were reused.
func (c *Cache) Rendered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rendered
}

// begin starts a rendering with the timeline the Site shows.
func (c *Cache) begin(tl *timeline.Timeline) {
	c.last = nil // until the rendering succeeds
	if tl != c.timeline {
		c.history++
	}
	if !c.once {
		c.timeline = tl
	}
	c.nextMarkdown, c.nextPages, c.nextModels, c.rendered = map[[sha256.Size]byte]converted{}, map[string]renderedPage{}, map[[sha256.Size]byte][sha256.Size]byte{}, 0
}

// end keeps what the rendering used, for the next.
func (c *Cache) end() {
	c.markdown, c.pages, c.models = c.nextMarkdown, c.nextPages, c.nextModels
	c.nextMarkdown, c.nextPages, c.nextModels = nil, nil, nil
	c.files.Sweep()
}

// keep keeps what the rendering by r of in, whose content is in
// contentDir, rendered with, for Rerender.
func (c *Cache) keep(r *renderer, in BuildInput, contentDir string) {
	dir, err := filepath.Abs(contentDir)
	if c.once || err != nil || !singleNames(dir) {
		return
	}
	l := &rendering{renderer: r, root: in.Config.Root, contentDir: dir, keyFile: in.KeyFile,
		byFile: map[string]*MarkdownPage{}, children: childrenOf(r.site.Content.Pages)}
	for _, m := range r.site.Content.Pages {
		l.byFile[filepath.Join(dir, filepath.FromSlash(m.file))] = m
	}
	c.last = l
}

// singleNames reports whether every file under dir has one name there: no
// symlink, no file with another name (a hard link). Otherwise a change
// the watcher reports at one name may change a page read at another
// (another page, the home page, a server's README), which Rerender, going
// by the name, would leave as it was.
func singleNames(dir string) bool {
	single := true
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeSymlink == 0 {
			if !d.Type().IsRegular() {
				return nil
			}
			if info, err := d.Info(); err == nil && inputfile.OneName(info) {
				return nil
			}
		}
		single = false
		return fs.SkipAll
	})
	return single
}

// Rerender renders again the Markdown pages whose files are at the
// absolute paths changed, when the caller knows (from a watcher) that no
// other input changed since the last rendering, and when each is the file
// of a page of that rendering that keeps its title: no other page shows a
// page's Markdown (see Cache), so a full rendering would make only these
// pages anew. It returns them, or ok false when a full rendering is
// needed: another path, a page added or removed, a new title, or an error
// (which the full rendering reports).
func (c *Cache) Rerender(changed []string) (files []File, ok bool) {
	l := c.last
	c.last = nil // until every page is rendered again
	if l == nil || len(changed) == 0 {
		return nil, false
	}
	// The page and Markdown caches are added to in place: new ones would
	// keep only what this rendering uses, the changed pages.
	c.nextMarkdown, c.nextPages, c.nextModels, c.rendered = c.markdown, c.pages, c.models, 0
	defer func() { c.nextMarkdown, c.nextPages, c.nextModels = nil, nil, nil }()
	fsys := c.files.FS(l.root, l.contentDir, inputfile.MaxSize, l.keyFile)
	md := newMarkdown()
	read := make([]*MarkdownPage, len(changed))
	for i, p := range changed {
		m, ok := l.byFile[p]
		// Still a plain file of one name: one that became a symlink or a
		// hard link may now be another page's text too (see singleNames).
		if info, err := os.Lstat(p); !ok || err != nil || !info.Mode().IsRegular() || !inputfile.OneName(info) {
			return nil, false
		}
		c.mu.Lock()
		delete(c.markdown, m.converted.key) // its conversion is used no more, unless it is the new one
		c.mu.Unlock()
		updated, readErr, err := readPage(fsys, m, displayIn(l.contentDir), md, c)
		if readErr != nil || err != nil || updated.Title != m.Title {
			return nil, false
		}
		read[i] = updated
	}
	r := l.renderer
	r.templates.renderer = r
	for i, p := range changed {
		m := l.byFile[p]
		*m = *read[i] // the Site's page, which the pages listing it point to
		f, err := r.run(r.markdownJob(m, l.children[m.Name]))
		if err != nil {
			return nil, false
		}
		files = append(files, f)
	}
	c.last = l
	return files, true
}

// parsed returns the templates in tfs, parsed, or parsed by an earlier
// rendering from the same bytes: html/template parses them and checks
// their escaping once, not at every rebuild.
func (c *Cache) parsed(tfs fs.FS) (*templateSet, error) {
	h := sha256.New()
	var names []string
	for _, kind := range kinds {
		names = append(names, templateFiles(kind)...)
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		body, err := fs.ReadFile(tfs, name)
		if err != nil {
			c.templates = nil
			return parseTemplates(tfs) // which says what is wrong
		}
		writeBytes(h, name, body)
	}
	key := [sha256.Size]byte(h.Sum(nil))
	if c.templates != nil && c.templatesKey == key {
		return c.templates, nil
	}
	set, err := parseTemplates(tfs)
	if err != nil {
		c.templates = nil
		return nil, err
	}
	c.templates, c.templatesKey = set, key
	return set, nil
}

// convert converts Markdown for a page (see markdown.parse), or returns what
// an earlier conversion of the same bytes for the same place made.
func (c *Cache) convert(md *markdown, src []byte, root string, reserved []string, top int) (converted, error) {
	h := sha256.New()
	place := strconv.AppendQuote(nil, root) // fmt costs more than the rest for thousands of pages
	for _, id := range reserved {
		place = strconv.AppendQuote(append(place, ' '), id)
	}
	h.Write(append(strconv.AppendInt(append(place, ' '), int64(top), 10), 0))
	sum := c.files.Sum(src)
	h.Write(sum[:])
	key := [sha256.Size]byte(h.Sum(nil))
	c.mu.Lock()
	cv, ok := c.markdown[key]
	c.mu.Unlock()
	if ok {
		c.keepMarkdown(key, cv)
		return cv, nil
	}
	doc := md.parse(src, root, reserved, top)
	html, err := md.render(doc, src)
	if err != nil {
		return converted{}, err
	}
	cv = converted{html: html, title: firstHeading(doc, src), key: key}
	c.keepMarkdown(key, cv)
	return cv, nil
}

func (c *Cache) keepMarkdown(key [sha256.Size]byte, cv converted) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextMarkdown[key] = cv
}

// page returns the page of job j, made from what f identifies for it and
// its own Markdown, rendering it when the cache has not.
func (c *Cache) page(f *frames, j job, render func() ([]byte, error)) ([]byte, error) {
	if c.once {
		c.mu.Lock()
		c.rendered++
		c.mu.Unlock()
		return render()
	}
	frame := c.frameOf(f, j.page)
	h := sha256.New()
	h.Write(frame[:])
	h.Write(append(strconv.AppendQuote(nil, j.file), 0))
	if j.converted != nil {
		h.Write(j.converted.key[:]) // the Markdown's, hashed once
	} else {
		writeBytes(h, "markdown", j.src)
	}
	key := [sha256.Size]byte(h.Sum(nil))
	c.mu.Lock()
	page, ok := c.pages[j.file]
	c.mu.Unlock()
	if !ok || page.key != key {
		body, err := render()
		if err != nil {
			return nil, err
		}
		page = renderedPage{key: key, body: body}
		c.mu.Lock()
		c.rendered++
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextPages[j.file] = page
	return page.body, nil
}

// frames are the keys of what pages are made from, but for each page's
// own path and Markdown (which Cache.page adds).
type frames struct {
	all     [sha256.Size]byte            // every input, the timeline as the cache counts it (Cache.history)
	site    [sha256.Size]byte            // every input but the timeline and the working tree's tool files
	history [sha256.Size]byte            // site and the timeline
	servers map[string][sha256.Size]byte // by server page path: history and its server's tool files
	tools   map[string][sha256.Size]byte // by tool page path: history and its tool's file
	narrow  map[string]bool              // the kinds of page rendered with the default templates
}

// Reaches of a kind of page into the tools and the history.
const (
	reachNone   = iota // neither
	reachTool          // its own tool: its file and history, as Page.Tool holds them
	reachServer        // its own server, as Page.Server holds it
)

// reach is how far a page of each kind reaches into the tools and the
// history when rendered with the default templates (TestReach checks it).
// A kind not listed, or rendered with a template of the site's own, may
// show any tool and any of the history.
var reach = map[string]int{KindTool: reachTool, KindServer: reachServer, KindPage: reachNone, KindVerify: reachNone, KindNotFound: reachNone}

// frameOf returns the key of what page p is made from: for a tool's or a
// server's page, the site and the page's model of its tool or server,
// which is all a template can reach of it (exported fields, and methods
// made from them). A model is encoded only when what it is made from (the
// history and its tool files) changed since the last rendering.
func (c *Cache) frameOf(f *frames, p *Page) [sha256.Size]byte {
	if !f.narrow[p.Kind] {
		return f.all
	}
	var model any
	var from [sha256.Size]byte
	switch reach[p.Kind] {
	case reachTool:
		model, from = p.Tool, cmp.Or(f.tools[p.Path], f.history)
	case reachServer:
		model, from = p.Server, cmp.Or(f.servers[p.Path], f.history)
	default:
		return f.site
	}
	from = sha256.Sum256(strconv.AppendQuote(from[:], p.Path))
	c.mu.Lock()
	key, ok := c.models[from]
	c.mu.Unlock()
	if !ok {
		h := sha256.New()
		h.Write(f.site[:])
		if err := json.NewEncoder(h).Encode(model); err != nil {
			return f.all
		}
		key = [sha256.Size]byte(h.Sum(nil))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextModels[from] = key
	return key
}

// newFrames identifies what the pages are made from: the build's input to
// the pages, with the timeline as the cache counts it (Cache.history), the
// site's Markdown but the pages' bodies (their names and titles, which the
// navigation and directory pages show, and the home page's and servers'
// docs), and every template and asset.
func newFrames(in BuildInput, content Content, tfs fs.FS, history int) (*frames, error) {
	h := sha256.New()
	cfg := in.Config.Fingerprint()
	h.Write(cfg[:])
	for _, s := range in.Servers {
		fmt.Fprintf(h, "server %q %q\x00", s.Config.Name, s.ReservedCards)
	}
	fmt.Fprintf(h, "repos %q\x00key %x\x00", in.CommitRepos, in.Key)
	var line []byte // what fmt.Fprintf would write, without its cost per call: thousands of lines
	for _, f := range in.Files {
		line = strconv.AppendQuote(append(line[:0], "file "...), f.Path)
		line = append(strconv.AppendQuote(append(line, ' '), f.ContentType), 0)
		h.Write(line)
	}
	if err := json.NewEncoder(h).Encode(in.Attestations); err != nil {
		return nil, err
	}
	writeBytes(h, "home", content.Home)
	for _, slug := range slices.Sorted(maps.Keys(content.ServerDocs)) {
		writeBytes(h, "docs "+slug, content.ServerDocs[slug])
	}
	for _, m := range content.Pages {
		line = strconv.AppendQuote(append(line[:0], "page "...), m.Name)
		line = append(strconv.AppendQuote(append(line, ' '), m.Title), 0)
		h.Write(line)
	}
	var hashTemplate fs.WalkDirFunc
	hashTemplate = func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && isOutput(tfs, p):
			return fs.SkipDir
		case d.IsDir():
			return nil
		case p == "assets" && d.Type()&fs.ModeSymlink != 0:
			// The rendering walks a symlinked assets directory, starting
			// there; so does the hash, which reads its files the same way.
			return fs.WalkDir(tfs, p, hashTemplate)
		}
		body, err := fs.ReadFile(tfs, p)
		writeBytes(h, "template "+p, body)
		return err
	}
	err := fs.WalkDir(tfs, ".", hashTemplate)
	if err != nil {
		return nil, err
	}
	f := &frames{site: [sha256.Size]byte(h.Sum(nil)), servers: map[string][sha256.Size]byte{},
		tools: map[string][sha256.Size]byte{}, narrow: map[string]bool{}}
	f.history = sha256.Sum256(fmt.Appendf(f.site[:], "history %d", history))
	all := sha256.New()
	all.Write(f.history[:])
	for _, s := range in.Servers {
		server := sha256.New()
		server.Write(f.history[:])
		for _, t := range s.Tools {
			// The file's name and the hash of its canonical bytes, which
			// tools.Parse made: a thousand tools are not hashed again.
			line = append(strconv.AppendQuote(line[:0], t.File), ' ')
			line = append(line, t.SHA256...)
			f.tools[ToolPath(s.Config.Slug, t.Name)] = sha256.Sum256(append(f.history[:], line...))
			server.Write(line)
			all.Write(line)
		}
		f.servers[ServerPath(s.Config.Slug)] = [sha256.Size]byte(server.Sum(nil))
	}
	f.all = [sha256.Size]byte(all.Sum(nil))
	for kind := range reach {
		f.narrow[kind] = defaultTemplates(tfs, templateFiles(kind)...)
	}
	return f, nil
}

// defaultTemplates reports whether the named templates are the defaults.
func defaultTemplates(tfs fs.FS, names ...string) bool {
	for _, name := range names {
		got, err := fs.ReadFile(tfs, name)
		if err != nil {
			return false
		}
		want, err := fs.ReadFile(templates.FS, name)
		if err != nil || !bytes.Equal(got, want) {
			return false
		}
	}
	return true
}

// writeBytes writes a named run of bytes, its length first so that no two
// runs read alike.
func writeBytes(h hash.Hash, name string, b []byte) {
	fmt.Fprintf(h, "%q %d\x00", name, len(b))
	h.Write(b)
}
