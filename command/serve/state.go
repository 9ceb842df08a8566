package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"mime"
	"strings"
	"sync"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/deploy"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// state is what the server answers from. It is never changed once made, so
// a request that loads it once gets the headers and body of one build.
type state struct {
	files     map[string]*entry
	redirects []site.Redirect
	// redirectsFirst applies the redirect rules before the files, as
	// Cloudflare Pages does when it is the configured host.
	redirectsFirst bool
	// rules is the header table, made when a 200 rewrite first needs the
	// headers of a path that is not a file.
	rules func() []deploy.Rule
	// version identifies what pages show: the files, and the errors of a
	// failed rebuild.
	version string
}

// entry is one file as it is sent.
type entry struct {
	file *bundle.File
	sum  [sha256.Size]byte // of file.Body
	// snippet is the live-reload snippet an HTML page is sent with; nil
	// for any other file.
	snippet []byte
	once    sync.Once
	out     sent // see sent
}

type sent struct {
	body []byte
	etag string
}

// sent returns the body sent and its ETag, made at the file's first
// request: for a page, with the snippet, which holds the state's version,
// new with every rebuild, while a browser asks for few of the pages.
func (e *entry) sent() sent {
	e.once.Do(func() {
		if e.snippet == nil {
			e.out = sent{body: e.file.Body, etag: etag(e.sum)}
			return
		}
		body := inject(e.file.Body, e.snippet)
		e.out = sent{body: body, etag: etag(sha256.Sum256(body))}
	})
	return e.out
}

// newState prepares a build's files for serving; failure is the error of a
// rebuild that came after it, shown on every page. A file whose body is
// the one a file of prev had (a stage reused it) is not hashed again. The
// entries are made in one allocation: a rebuild that changed one page
// makes thousands.
func newState(prev *state, good *generator.Result, failure error) *state {
	files := good.Bundle.Files()
	entries := make([]entry, len(files))
	v := sha256.New()
	for i, f := range files {
		e := &entries[i]
		e.file = f
		if p, ok := prev.reusable(f); ok {
			e.sum = p.sum
		} else {
			e.sum = sha256.Sum256(f.Body)
		}
		v.Write([]byte(f.Path))
		v.Write([]byte{0})
		v.Write(e.sum[:])
	}
	if failure != nil {
		v.Write([]byte(failure.Error()))
	}
	cfg := good.Config
	st := &state{
		files:          make(map[string]*entry, len(files)),
		redirects:      cfg.Deploy.Redirects,
		redirectsFirst: deploy.RedirectHost(cfg) == site.HostCloudflarePages,
		rules: sync.OnceValue(func() []deploy.Rule {
			return deploy.Rules(good.Bundle, strings.TrimSuffix(cfg.Base().Path, "/"))
		}),
		version: hex.EncodeToString(v.Sum(nil)),
	}
	snippet := renderSnippet(st.version, problemsOf(failure))
	html := map[string]bool{} // by content type
	for i := range entries {
		e := &entries[i]
		st.files[e.file.Path] = e
		isPage, known := html[e.file.ContentType]
		if !known {
			isPage = isHTML(e.file)
			html[e.file.ContentType] = isPage
		}
		if isPage {
			e.snippet = snippet
		}
	}
	return st
}

// reusable returns the entry of prev whose file has the very body of f, the
// same bytes in the same memory; prev may be nil.
func (prev *state) reusable(f *bundle.File) (*entry, bool) {
	if prev == nil {
		return nil, false
	}
	p, ok := prev.files[f.Path]
	if !ok || len(p.file.Body) != len(f.Body) || len(f.Body) == 0 || &p.file.Body[0] != &f.Body[0] {
		return nil, false
	}
	return p, true
}

func etag(sum [sha256.Size]byte) string {
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

func isHTML(f *bundle.File) bool {
	t, _, _ := mime.ParseMediaType(f.ContentType)
	return t == "text/html"
}

// inject inserts snippet before the closing body tag, or at the end of a
// page that has none.
func inject(page, snippet []byte) []byte {
	at := closingBody(page)
	if at < 0 {
		at = len(page)
	}
	out := make([]byte, 0, len(page)+len(snippet))
	out = append(out, page[:at]...)
	out = append(out, snippet...)
	return append(out, page[at:]...)
}

// closingBody returns where the last </body> tag (in any case) starts, or -1.
func closingBody(page []byte) int {
	tag := []byte("</body>")
	for i := len(page) - len(tag); i >= 0; i-- {
		if bytes.EqualFold(page[i:i+len(tag)], tag) {
			return i
		}
	}
	return -1
}

// problem is one error of a failed rebuild, as the overlay shows it.
type problem struct {
	Text string // "site.toml:12: …"
	Hint string
}

func problemsOf(err error) []problem {
	var out []problem
	for _, e := range diag.List(err) {
		out = append(out, problem{Text: e.Error(), Hint: diag.Hint(e)})
	}
	return out
}
