package browsertest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/prereq"
)

const brokenPage = `<!doctype html>
<html><head><meta name="viewport" content="width=device-width"><link rel="stylesheet" href="/missing.css"><link rel="icon" href="data:,"></head>
<body><p>Hello, <b>reader</b>.</p>
<script>console.error("boom"); throw new Error("bad script")</script>
</body></html>`

// What a page shows, and everything that went wrong while loading it.
func TestProblemsAndText(t *testing.T) {
	binary := Find()
	if binary == "" {
		prereq.Missing(t, "no Chromium on PATH (looked for %s); install Debian's: apt-get install chromium", strings.Join(Binaries, ", "))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(brokenPage))
	}))
	defer srv.Close()
	b, err := Start(binary, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	p, err := b.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	problems := strings.Join(p.Problems(), "\n")
	for _, want := range []string{"console.error", "boom", "uncaught exception", "bad script", "/missing.css"} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems lack %q:\n%s", want, problems)
		}
	}
	if text, err := p.Text(); err != nil || text != "Hello, reader." {
		t.Errorf("Text = %q, %v", text, err)
	}
	if err := p.ColorScheme("dark"); err != nil {
		t.Fatal(err)
	}
	var dark bool
	if err := p.Eval(`matchMedia("(prefers-color-scheme: dark)").matches`, &dark); err != nil || !dark {
		t.Errorf("dark scheme: %v, %v", dark, err)
	}
	if err := p.Viewport(390, true); err != nil {
		t.Fatal(err)
	}
	var width int
	if err := p.Eval("innerWidth", &width); err != nil || width != 390 {
		t.Errorf("innerWidth = %d, %v", width, err)
	}
	png, err := p.Screenshot()
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("Screenshot: %d bytes, %v", len(png), err)
	}
	if err := p.Navigate(srv.URL + "/"); err != nil || len(p.Problems()) == 0 {
		t.Errorf("a second load: %v, problems %q", err, p.Problems())
	}
}
