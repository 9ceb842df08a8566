package serve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"mime"

	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/diag"
	"github.com/wellknown-dev/wellknown/generator/site"
)

// state is what the server answers from. It is never changed once made, so
// a request that loads it once gets the headers and body of one build.
type state struct {
	files     map[string]*entry
	redirects []site.Redirect
	// version identifies what pages show: the files, and the errors of a
	// failed rebuild.
	version string
}

// entry is one file as it is sent.
type entry struct {
	file *bundle.File
	body []byte // the file's body; for HTML, with the live-reload snippet
	etag string
}

// newState prepares a build's files for serving; failure is the error of a
// rebuild that came after it, shown on every page.
func newState(good *generator.Result, failure error) *state {
	files := good.Bundle.Files()
	sums := make([][sha256.Size]byte, len(files))
	v := sha256.New()
	for i, f := range files {
		sums[i] = sha256.Sum256(f.Body)
		v.Write([]byte(f.Path))
		v.Write([]byte{0})
		v.Write(sums[i][:])
	}
	if failure != nil {
		v.Write([]byte(failure.Error()))
	}
	st := &state{
		files:     make(map[string]*entry, len(files)),
		redirects: good.Config.Deploy.Redirects,
		version:   hex.EncodeToString(v.Sum(nil)),
	}
	snippet := renderSnippet(st.version, problemsOf(failure))
	for i, f := range files {
		e := &entry{file: f, body: f.Body, etag: etag(sums[i])}
		if isHTML(f) {
			e.body = inject(f.Body, snippet)
			e.etag = etag(sha256.Sum256(e.body))
		}
		st.files[f.Path] = e
	}
	return st
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
