package generator

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/generator/pages/browsertest"
	"github.com/wellknown-dev/wellknown/internal/gittest"
	"github.com/wellknown-dev/wellknown/internal/prereq"
)

// hostileTool is an uncommitted tool whose description and parameter name
// try to run a script.
const hostileTool = `{
  "name": "find_places",
  "description": "Finds places. <script>document.title = 'pwned'</script>",
  "inputSchema": {
    "type": "object",
    "properties": {"<script>document.title = 'pwned'</script>": {"type": "string"}}
  }
}
`

// The example site, with one more commit and an uncommitted change, served
// on loopback and loaded in headless Chromium: what a reader sees (the
// rendered text, not the HTML source), no console errors and no failed
// requests, the style sheet applied, hostile text shown and not run, and
// screenshots at desktop and phone widths, light and dark.
func TestPagesInBrowser(t *testing.T) {
	binary := browsertest.Find()
	if binary == "" {
		prereq.Missing(t, "no Chromium on PATH (looked for %s); install Debian's: apt-get install chromium", strings.Join(browsertest.Binaries, ", "))
	}
	g := gittest.ExampleRepo(t)
	g.When = time.Date(2026, 4, 20, 9, 0, 0, 0, time.UTC)
	dir := g.Dir
	config := filepath.Join(dir, "site.toml")
	forecast := filepath.Join(dir, "content", "servers", "forecast", "tools", "get_forecast.json")
	editFile(t, forecast, `"days": {`, `"units": {"type": "string", "enum": ["metric", "imperial"], "description": "Unit system."},
      "days": {`)
	g.Commit("get_forecast: units")
	editFile(t, filepath.Join(dir, "content", "servers", "alerts", "tools", "active", "list_alerts.json"), `"region"`, `"area"`)
	g.Write("content/servers/forecast/tools/find_places.json", hostileTool)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	origin := "http://" + ln.Addr().String()
	res := build(t, config, "base_url="+origin+"/")
	srv := &http.Server{Handler: bundleHandler(res)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	b, err := browsertest.Start(binary, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("closing the browser: %v", err)
		}
	})
	page, err := b.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	shots, err := os.MkdirTemp("", "wellknown-screenshots-")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", shots)

	for _, c := range []struct {
		name, path string
		text       []string // lines of the rendered text
		styled     string   // an element the style sheet must have styled
	}{
		{"home", "/", []string{"Example Weather Co.", "MCP servers", "Weather Forecast", "Tools: find_places, get_current_conditions, get_forecast", "Connecting an agent"}, ".card"},
		{"server", "/servers/forecast/", []string{"Home › Weather Forecast", "How to connect", "streamable-http https://weather.example.com/mcp", "MCP protocol versions: 2025-06-18, 2025-11-25", "Coverage"}, ".tag"},
		{"tool", "/servers/forecast/tools/get_forecast/", []string{"Home › Weather Forecast › get_forecast", "units\tstring\toptional\tUnit system.", "1.1.0 2026-04-20 compatible schema 1.1.0", "new optional parameter units"}, ".badge-compatible"},
		{"changelog", "/changelog/", []string{"Changelog", "2026-04-20 compatible get_forecast 1.0.0 → 1.1.0"}, ".badge-compatible"},
		{"preview", "/servers/alerts/tools/list_alerts/", []string{"Unpublished changes", "The working tree changes this tool. The next commit adds version 2.0.0 (after 1.0.0) to the change feed: breaking"}, ".notice-unpublished"},
		{"hostile", "/servers/forecast/tools/find_places/", []string{"Finds places. <script>document.title = 'pwned'</script>", "<script>document.title = 'pwned'</script>\tstring\toptional"}, ".badge-unpublished"},
		{"verify", "/verify/", []string{"wellknown verify " + origin, "did:web:127.0.0.1%3A"}, "pre"},
		// The feed, opened in a browser, is a page by its XSLT style sheet.
		// Browsers apply XSLT only to a generic XML type, so the feed's
		// bytes are served as application/xml here, as GitHub Pages serves
		// them: what it tests is the style sheet.
		{"feed", "/.well-known/agent-feed.xml?as=xml", []string{"Example Weather Co. changes", "This is a signed change feed", "get_forecast 1.1.0: new optional parameter “units” (compatible)", "schema-change · 2026-04-20T10:00:00Z"}, ".about"},
	} {
		t.Run(c.name, func(t *testing.T) {
			view(t, page, "light", 1280)
			if err := page.Navigate(origin + c.path); err != nil {
				t.Fatal(err)
			}
			if p := page.Problems(); len(p) > 0 {
				t.Errorf("problems loading %s:\n%s", c.path, strings.Join(p, "\n"))
			}
			text, err := page.Text()
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range c.text {
				if !strings.Contains(text, want) {
					t.Errorf("%s does not show %q; it shows:\n%s", c.path, want, text)
				}
			}
			var title string
			if err := page.Eval("document.title", &title); err != nil || strings.Contains(title, "pwned") {
				t.Errorf("document.title = %q, %v: a script from the data ran", title, err)
			}
			var background string
			if err := page.Eval(fmt.Sprintf("getComputedStyle(document.querySelector(%q)).backgroundColor", c.styled), &background); err != nil {
				t.Fatal(err)
			}
			if background == "rgba(0, 0, 0, 0)" {
				t.Errorf("%s is not styled: the style sheet did not apply", c.styled)
			}
			if c.name == "hostile" || c.name == "verify" {
				return
			}
			for _, v := range []struct {
				name, scheme string
				width        int
			}{{"desktop", "light", 1280}, {"phone", "light", 390}, {"phone-dark", "dark", 390}} {
				screenshot(t, page, filepath.Join(shots, c.name+"-"+v.name+".png"), v.scheme, v.width)
			}
		})
	}

	// On a phone, a long path wraps after a "/", never inside a segment.
	t.Run("paths wrap at slashes", func(t *testing.T) {
		view(t, page, "light", 390)
		if err := page.Navigate(origin + "/servers/forecast/tools/get_forecast/"); err != nil {
			t.Fatal(err)
		}
		var wrap struct {
			Lines  int      // of the archived schema's path
			Broken []string // segments split across lines
		}
		js := `(() => {
			const codes = Array.from(document.querySelectorAll("code")).filter(c => c.querySelector("wbr"));
			const schema = codes.find(c => c.textContent.startsWith("/.well-known/mcp/schemas/"));
			const broken = codes.flatMap(c => Array.from(c.childNodes)).filter(n => n.nodeType === Node.TEXT_NODE).filter(n => {
				const r = document.createRange(); r.selectNodeContents(n); return r.getClientRects().length > 1;
			}).map(n => n.textContent);
			return {lines: schema ? schema.getClientRects().length : 0, broken};
		})()`
		if err := page.Eval(js, &wrap); err != nil {
			t.Fatal(err)
		}
		if wrap.Lines < 2 || len(wrap.Broken) > 0 {
			t.Errorf("at 390 px the schema path takes %d lines (want it wrapped), and these segments break inside: %q", wrap.Lines, wrap.Broken)
		}
	})

	t.Run("copy buttons", func(t *testing.T) {
		view(t, page, "light", 1280)
		if err := page.Navigate(origin + "/verify/"); err != nil {
			t.Fatal(err)
		}
		if err := page.AllowClipboard(origin); err != nil {
			t.Fatal(err)
		}
		var counts struct{ Marked, Buttons int }
		if err := page.Eval(`({marked: document.querySelectorAll("[data-copy]").length, buttons: document.querySelectorAll("button.copy").length})`, &counts); err != nil {
			t.Fatal(err)
		}
		if counts.Marked < 6 || counts.Buttons != counts.Marked {
			t.Errorf("%d copy buttons for %d things to copy, want one each (and at least 6)", counts.Buttons, counts.Marked)
		}
		var didURL string
		if err := page.Eval(`document.querySelector('a[data-copy="the DID document\'s URL"]').href`, &didURL); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ marked, want string }{
			{`pre[data-copy="the verify command"]`, "wellknown verify " + origin},
			{`a[data-copy="the DID document's URL"]`, didURL},
		} {
			button := c.marked + " + button.copy"
			if err := page.Click(button); err != nil {
				t.Fatal(err)
			}
			var state, label string
			waitState := fmt.Sprintf(`new Promise(done => { const b = document.querySelector(%q); const check = () => b.dataset.state ? done(b.dataset.state) : setTimeout(check, 10); check(); })`, button)
			if err := page.Eval(waitState, &state); err != nil {
				t.Fatal(err)
			}
			if err := page.Eval(fmt.Sprintf(`document.querySelector(%q).textContent`, button), &label); err != nil {
				t.Fatal(err)
			}
			var copied string
			if err := page.Eval(`navigator.clipboard.readText()`, &copied); err != nil {
				t.Fatal(err)
			}
			if state != "copied" || label != "Copied" || copied != c.want {
				t.Errorf("after a click on %s the button is %q (%q) and the clipboard holds %q, want copied and %q", button, state, label, copied, c.want)
			}
		}
		if p := page.Problems(); len(p) > 0 {
			t.Errorf("problems copying:\n%s", strings.Join(p, "\n"))
		}
	})

	// The schema diff of get_forecast 1.1.0 (units added) is marked by
	// more than color, and its colors follow the scheme, readable in both.
	t.Run("diff light and dark", func(t *testing.T) {
		if err := page.Navigate(origin + "/servers/forecast/tools/get_forecast/"); err != nil {
			t.Fatal(err)
		}
		var added string
		if err := page.Eval(`document.querySelector("details.diff[open] .d-added").textContent`, &added); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(added, "+ ") {
			t.Errorf("an added line reads %q, want it marked with +", added)
		}
		colors := map[string]diffColors{}
		for _, scheme := range []string{"light", "dark"} {
			view(t, page, scheme, 1280)
			var c diffColors
			if err := page.Eval(contrastOf(".d-added"), &c); err != nil {
				t.Fatal(err)
			}
			if c.Contrast < 4.5 {
				t.Errorf("in %s mode an added line is %s on %s: contrast %.1f, want at least 4.5", scheme, c.Color, c.Background, c.Contrast)
			}
			colors[scheme] = c
			screenshot(t, page, filepath.Join(shots, "tool-diff-"+scheme+".png"), scheme, 1280)
		}
		if colors["light"].Background == colors["dark"].Background || colors["light"].Color == colors["dark"].Color {
			t.Errorf("an added line has the same colors in light and dark mode: %+v", colors)
		}
	})

	// Without JavaScript the pages lose the copy buttons and nothing else:
	// the diff is there, open, and shows its lines.
	t.Run("without JavaScript", func(t *testing.T) {
		if err := page.Scripts(false); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := page.Scripts(true); err != nil {
				t.Fatal(err)
			}
		}()
		view(t, page, "light", 1280)
		if err := page.Navigate(origin + "/servers/forecast/tools/get_forecast/"); err != nil {
			t.Fatal(err)
		}
		var seen struct {
			Buttons    int
			AddedShown bool
		}
		if err := page.Eval(`({buttons: document.querySelectorAll("button.copy").length, addedShown: document.querySelector("details.diff[open] .d-added").offsetHeight > 0})`, &seen); err != nil {
			t.Fatal(err)
		}
		if seen.Buttons != 0 || !seen.AddedShown {
			t.Errorf("without JavaScript: %d copy buttons, added lines shown: %v; want none, and shown", seen.Buttons, seen.AddedShown)
		}
		if p := page.Problems(); len(p) > 0 {
			t.Errorf("problems without JavaScript:\n%s", strings.Join(p, "\n"))
		}
	})

	// A browser without the Clipboard API gets no copy buttons, and no
	// error.
	t.Run("without a clipboard", func(t *testing.T) {
		stop, err := page.BeforeScripts(`delete Navigator.prototype.clipboard`)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := stop(); err != nil {
				t.Fatal(err)
			}
		}()
		if err := page.Navigate(origin + "/servers/forecast/tools/get_forecast/"); err != nil {
			t.Fatal(err)
		}
		var seen struct{ Clipboard, Buttons int }
		if err := page.Eval(`({clipboard: navigator.clipboard ? 1 : 0, buttons: document.querySelectorAll("button.copy").length})`, &seen); err != nil {
			t.Fatal(err)
		}
		if seen.Clipboard != 0 || seen.Buttons != 0 {
			t.Errorf("without a clipboard: clipboard present %d, %d copy buttons; want neither", seen.Clipboard, seen.Buttons)
		}
		if p := page.Problems(); len(p) > 0 {
			t.Errorf("problems without a clipboard:\n%s", strings.Join(p, "\n"))
		}
	})

	t.Run("404", func(t *testing.T) {
		if err := page.Navigate(origin + "/no/such/page/"); err != nil {
			t.Fatal(err)
		}
		for _, p := range page.Problems() {
			if !strings.HasPrefix(p, "HTTP 404: "+origin+"/no/such/page/") && !strings.Contains(p, "404 (Not Found)") {
				t.Errorf("problem loading the 404 page: %s", p)
			}
		}
		text, err := page.Text()
		if err != nil || !strings.Contains(text, "Page not found") {
			t.Errorf("the 404 page shows %q, %v", text, err)
		}
		var linked string
		if err := page.Eval(`document.querySelector("main a").href`, &linked); err != nil || linked != origin+"/" {
			t.Errorf("the 404 page's home link is %q, %v", linked, err)
		}
	})
}

// diffColors are an element's computed colors and their contrast ratio
// (WCAG 2).
type diffColors struct {
	Color, Background string
	Contrast          float64
}

// contrastOf is an expression giving the diffColors of the first element
// matching selector.
func contrastOf(selector string) string {
	return fmt.Sprintf(`(() => {
		const s = getComputedStyle(document.querySelector(%q));
		const luminance = c => {
			const [r, g, b] = c.match(/[\d.]+/g).slice(0, 3).map(v => {
				v /= 255;
				return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
			});
			return 0.2126 * r + 0.7152 * g + 0.0722 * b;
		};
		const a = luminance(s.color), b = luminance(s.backgroundColor);
		return {color: s.color, background: s.backgroundColor, contrast: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)};
	})()`, selector)
}

// view lays the page out in a color scheme at a width (under 600 pixels, as
// a phone).
func view(t *testing.T, page *browsertest.Page, scheme string, width int) {
	t.Helper()
	if err := page.ColorScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := page.Viewport(width, width < 600); err != nil {
		t.Fatal(err)
	}
}

func screenshot(t *testing.T, page *browsertest.Page, file, scheme string, width int) {
	t.Helper()
	view(t, page, scheme, width)
	png, err := page.Screenshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", file)
}

// bundleHandler serves a bundle as a static host does: a directory's
// index.html, and the 404 page with status 404 for anything missing.
func bundleHandler(res *Result) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if strings.HasSuffix(p, "/") {
			p += "index.html"
		}
		status := http.StatusOK
		f, ok := res.Bundle.Get(p)
		if !ok {
			f, _ = res.Bundle.Get("/404.html")
			status = http.StatusNotFound
		}
		w.Header().Set("Content-Type", f.ContentType)
		if r.URL.Query().Get("as") == "xml" {
			w.Header().Set("Content-Type", "application/xml")
		}
		w.WriteHeader(status)
		w.Write(f.Body)
	})
}

// editFile replaces old with new in a file, which must contain old.
func editFile(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}
