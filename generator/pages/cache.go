package pages

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash"
	"html/template"
	"io/fs"
	"maps"
	"slices"
	"sync"

	"github.com/wellknown-dev/wellknown/generator/timeline"
)

// Cache keeps what one rendering made for the next (a development server's
// rebuilds): Markdown converted to HTML, by its bytes and where it is shown,
// and every page's bytes, by what they are made from. A page is made from
// the templates, the Site and its own Markdown, and a page's template may
// show anything of the Site; so a page is reused only when the templates
// and everything RenderBuild makes the Site from, but other pages' Markdown,
// are what they were (see frameKey). A Markdown edit that keeps the page's
// title re-renders that page alone; a new title (the navigation on every
// page), a tool edit or a commit re-renders every page, with the Markdown
// converted before. A Cache serves one rendering at a time.
type Cache struct {
	mu       sync.Mutex
	timeline *timeline.Timeline // the last rendering's
	markdown map[[sha256.Size]byte]converted
	pages    map[string]renderedPage // by file
	// The current rendering's, which replace the above when it ends: what
	// a rendering did not use is dropped.
	nextMarkdown map[[sha256.Size]byte]converted
	nextPages    map[string]renderedPage
	rendered     int
}

// converted is Markdown converted for a page.
type converted struct {
	html  template.HTML
	title string // its first level-1 heading's text
}

type renderedPage struct {
	key  [sha256.Size]byte
	body []byte
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{markdown: map[[sha256.Size]byte]converted{}, pages: map[string]renderedPage{}}
}

// Rendered returns how many pages the last rendering rendered; the others
// were reused.
func (c *Cache) Rendered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rendered
}

// begin starts a rendering with the timeline the Site shows: a page made
// from another is not reused.
func (c *Cache) begin(tl *timeline.Timeline) {
	if c == nil {
		return
	}
	if tl != c.timeline {
		c.pages = map[string]renderedPage{}
	}
	c.timeline = tl
	c.nextMarkdown, c.nextPages, c.rendered = map[[sha256.Size]byte]converted{}, map[string]renderedPage{}, 0
}

// end keeps what the rendering used, for the next.
func (c *Cache) end() {
	if c == nil {
		return
	}
	c.markdown, c.pages = c.nextMarkdown, c.nextPages
	c.nextMarkdown, c.nextPages = nil, nil
}

// convert converts Markdown for a page (see markdown.parse), or returns what
// an earlier conversion of the same bytes for the same place made.
func (c *Cache) convert(md *markdown, src []byte, root string, reserved []string, top int) (converted, error) {
	var key [sha256.Size]byte
	if c != nil {
		h := sha256.New()
		fmt.Fprintf(h, "%q %q %d\x00", root, reserved, top)
		h.Write(src)
		key = [sha256.Size]byte(h.Sum(nil))
		c.mu.Lock()
		cv, ok := c.markdown[key]
		c.mu.Unlock()
		if ok {
			c.keepMarkdown(key, cv)
			return cv, nil
		}
	}
	doc := md.parse(src, root, reserved, top)
	html, err := md.render(doc, src)
	if err != nil {
		return converted{}, err
	}
	cv := converted{html: html, title: firstHeading(doc, src)}
	if c != nil {
		c.keepMarkdown(key, cv)
	}
	return cv, nil
}

func (c *Cache) keepMarkdown(key [sha256.Size]byte, cv converted) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextMarkdown[key] = cv
}

// page returns the page at file made from the frame and the page's own
// Markdown, rendering it when the cache has not.
func (c *Cache) page(frame [sha256.Size]byte, file string, src []byte, render func() ([]byte, error)) ([]byte, error) {
	if c == nil {
		return render()
	}
	h := sha256.New()
	h.Write(frame[:])
	fmt.Fprintf(h, "%q\x00", file)
	h.Write(src)
	key := [sha256.Size]byte(h.Sum(nil))
	c.mu.Lock()
	p, ok := c.pages[file]
	c.mu.Unlock()
	if !ok || p.key != key {
		body, err := render()
		if err != nil {
			return nil, err
		}
		p = renderedPage{key: key, body: body}
		c.mu.Lock()
		c.rendered++
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextPages[file] = p
	return p.body, nil
}

// frameKey identifies everything a page is made from but its own Markdown
// and the timeline (see Cache.begin): the build's input to the pages, the
// site's Markdown but the pages' bodies (their names and titles, which the
// navigation and directory pages show, and the home page's and servers'
// docs), and every template and asset.
func frameKey(in BuildInput, content Content, tfs fs.FS) ([sha256.Size]byte, error) {
	h := sha256.New()
	cfg := in.Config.Fingerprint()
	h.Write(cfg[:])
	for _, s := range in.Servers {
		fmt.Fprintf(h, "server %q %q\x00", s.Config.Name, s.ReservedCards)
		for _, t := range s.Tools {
			fmt.Fprintf(h, "tool %q %d\x00", t.File, len(t.Canonical))
			h.Write(t.Canonical)
		}
	}
	fmt.Fprintf(h, "repos %q\x00key %x\x00", in.CommitRepos, in.Key)
	for _, f := range in.Files {
		fmt.Fprintf(h, "file %q %q\x00", f.Path, f.ContentType)
	}
	if err := json.NewEncoder(h).Encode(in.Attestations); err != nil {
		return [sha256.Size]byte{}, err
	}
	writeBytes(h, "home", content.Home)
	for _, slug := range slices.Sorted(maps.Keys(content.ServerDocs)) {
		writeBytes(h, "docs "+slug, content.ServerDocs[slug])
	}
	for _, m := range content.Pages {
		fmt.Fprintf(h, "page %q %q\x00", m.Name, m.Title)
	}
	err := fs.WalkDir(tfs, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && isOutput(tfs, p):
			return fs.SkipDir
		case d.IsDir():
			return nil
		}
		body, err := fs.ReadFile(tfs, p)
		writeBytes(h, "template "+p, body)
		return err
	})
	return [sha256.Size]byte(h.Sum(nil)), err
}

// writeBytes writes a named run of bytes, its length first so that no two
// runs read alike.
func writeBytes(h hash.Hash, name string, b []byte) {
	fmt.Fprintf(h, "%q %d\x00", name, len(b))
	h.Write(b)
}
