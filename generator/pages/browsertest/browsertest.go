// Package browsertest drives a headless Chromium for tests: load a page,
// read its rendered text, collect what went wrong while loading it (console
// errors, uncaught exceptions, failed requests), take screenshots.
//
// It speaks the Chrome DevTools Protocol over the pipe transport
// (--remote-debugging-pipe): the browser reads commands from its file
// descriptor 3 and writes replies and events to descriptor 4, each message
// a JSON object followed by a NUL byte. That needs no WebSocket and no
// port. Each Page is a target attached in flat mode, so its messages carry
// its session id.
package browsertest

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Binaries are the names a Chromium is found under, in order.
var Binaries = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns the path of a Chromium on PATH, or "".
func Find() string {
	for _, name := range Binaries {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Timeout bounds every command and page load.
const Timeout = 30 * time.Second

// flags start a headless browser that stays off the network except for
// what a page asks for, with no state from earlier runs.
var flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-extensions", "--disable-dev-shm-usage", "--no-default-browser-check",
	"--hide-scrollbars", "--mute-audio", "--remote-debugging-pipe",
}

// Browser is a running browser.
type Browser struct {
	cmd  *exec.Cmd
	send *os.File // the browser's descriptor 3
	done chan struct{}

	mu      sync.Mutex
	nextID  int
	replies map[int]chan message
	pages   map[string]*Page // by session id
	err     error            // why reading stopped
}

// message is a reply (ID set) or an event (Method set).
type message struct {
	ID        int             `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Start starts the browser binary with a fresh profile in userDataDir.
func Start(binary, userDataDir string) (*Browser, error) {
	toBrowser, send, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	receive, fromBrowser, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, append(flags, "--user-data-dir="+userDataDir, "about:blank")...)
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %v", binary, err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	b := &Browser{cmd: cmd, send: send, done: make(chan struct{}), replies: map[int]chan message{}, pages: map[string]*Page{}}
	go b.read(bufio.NewReader(receive))
	return b, nil
}

// read dispatches the browser's messages until the pipe closes.
func (b *Browser) read(r *bufio.Reader) {
	defer close(b.done)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.err = fmt.Errorf("the browser closed its pipe: %v", err)
			b.mu.Unlock()
			return
		}
		var m message
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch := b.replies[m.ID]; ch != nil {
				delete(b.replies, m.ID)
				ch <- m
			}
		} else if p := b.pages[m.SessionID]; p != nil {
			p.event(m)
		}
		b.mu.Unlock()
	}
}

// call sends a command (in a page's session, or to the browser when
// session is "") and decodes its result into out (unless nil).
func (b *Browser) call(session, method string, params, out any) error {
	b.mu.Lock()
	if b.err != nil {
		defer b.mu.Unlock()
		return b.err
	}
	b.nextID++
	id := b.nextID
	reply := make(chan message, 1)
	b.replies[id] = reply
	b.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	msg, err := json.Marshal(message{ID: id, SessionID: session, Method: method, Params: p})
	if err != nil {
		return err
	}
	if _, err := b.send.Write(append(msg, 0)); err != nil {
		return fmt.Errorf("%s: %v", method, err)
	}
	select {
	case m := <-reply:
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if out == nil {
			return nil
		}
		return json.Unmarshal(m.Result, out)
	case <-b.done:
		return fmt.Errorf("%s: %v", method, b.readErr())
	case <-time.After(Timeout):
		return fmt.Errorf("%s: no reply in %s", method, Timeout)
	}
}

func (b *Browser) readErr() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// Close closes the browser and waits for it to exit.
func (b *Browser) Close() error {
	err := b.call("", "Browser.close", nil, nil)
	b.send.Close()
	select {
	case <-b.done:
	case <-time.After(Timeout):
		b.cmd.Process.Kill()
	}
	if werr := b.cmd.Wait(); err == nil && werr != nil && !isSignal(werr) {
		err = werr
	}
	return err
}

func isSignal(err error) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && !exit.Exited()
}

// Page is a browser tab.
type Page struct {
	b       *Browser
	session string

	// Guarded by b.mu.
	loaded   chan struct{} // closed by the next load event
	problems []string
}

// NewPage opens a tab and starts collecting its problems.
func (b *Browser) NewPage() (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: attached.SessionID}
	b.mu.Lock()
	b.pages[p.session] = p
	b.mu.Unlock()
	for _, domain := range []string{"Page", "Runtime", "Log", "Network"} {
		if err := p.call(domain+".enable", nil, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *Page) call(method string, params, out any) error {
	return p.b.call(p.session, method, params, out)
}

// event records a page's events; b.mu is held.
func (p *Page) event(m message) {
	var e struct {
		// Runtime.consoleAPICalled
		Type string `json:"type"`
		Args []struct {
			Value       any    `json:"value"`
			Description string `json:"description"`
		} `json:"args"`
		// Runtime.exceptionThrown
		ExceptionDetails struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
		// Log.entryAdded
		Entry struct {
			Level, Text, URL string
		} `json:"entry"`
		// Network.loadingFailed
		ErrorText string `json:"errorText"`
		Canceled  bool   `json:"canceled"`
		// Network.responseReceived
		Response struct {
			URL    string `json:"url"`
			Status int    `json:"status"`
		} `json:"response"`
	}
	json.Unmarshal(m.Params, &e)
	switch m.Method {
	case "Page.loadEventFired":
		if p.loaded != nil {
			close(p.loaded)
			p.loaded = nil
		}
	case "Runtime.consoleAPICalled":
		if e.Type == "error" || e.Type == "assert" {
			p.problems = append(p.problems, fmt.Sprintf("console.%s: %v", e.Type, e.Args))
		}
	case "Runtime.exceptionThrown":
		p.problems = append(p.problems, "uncaught exception: "+e.ExceptionDetails.Text+" "+e.ExceptionDetails.Exception.Description)
	case "Log.entryAdded":
		if e.Entry.Level == "error" {
			p.problems = append(p.problems, "log error: "+e.Entry.Text+" "+e.Entry.URL)
		}
	case "Network.loadingFailed":
		if !e.Canceled {
			p.problems = append(p.problems, "request failed: "+e.ErrorText)
		}
	case "Network.responseReceived":
		if e.Response.Status >= 400 {
			p.problems = append(p.problems, fmt.Sprintf("HTTP %d: %s", e.Response.Status, e.Response.URL))
		}
	}
}

// Navigate loads url and waits for its load event. It forgets the
// problems of the page before.
func (p *Page) Navigate(url string) error {
	loaded := make(chan struct{})
	p.b.mu.Lock()
	p.loaded, p.problems = loaded, nil
	p.b.mu.Unlock()
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.call("Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("loading %s: %s", url, nav.ErrorText)
	}
	select {
	case <-loaded:
		return nil
	case <-time.After(Timeout):
		return fmt.Errorf("loading %s: no load event in %s", url, Timeout)
	}
}

// Problems returns what went wrong since the last Navigate: console errors,
// uncaught exceptions, error log entries, failed requests and HTTP errors.
func (p *Page) Problems() []string {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// Eval evaluates a JavaScript expression in the page and decodes its value
// (which must be JSON) into out; a promise is awaited.
func (p *Page) Eval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := p.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("evaluating %s: %s", expr, r.ExceptionDetails.Text)
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Click clicks the middle of the first element that matches a CSS
// selector, as a person does with a mouse: the page sees a trusted click,
// with the user activation that, say, the clipboard asks for.
func (p *Page) Click(selector string) error {
	var at struct{ X, Y float64 }
	expr := fmt.Sprintf(`(() => { const el = document.querySelector(%q); el.scrollIntoView({block: "center"}); const r = el.getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()`, selector)
	if err := p.Eval(expr, &at); err != nil {
		return err
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		event := map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "clickCount": 1}
		if err := p.call("Input.dispatchMouseEvent", event, nil); err != nil {
			return err
		}
	}
	return nil
}

// Scripts turns the page's JavaScript on or off, as a reader who blocks
// scripts has it; Eval still works.
func (p *Page) Scripts(enabled bool) error {
	return p.call("Emulation.setScriptExecutionDisabled", map[string]any{"value": !enabled}, nil)
}

// BeforeScripts runs src in every document the page loads from now on,
// before the document's own scripts (to take away an API a browser may
// lack, say); the returned function stops it.
func (p *Page) BeforeScripts(src string) (stop func() error, err error) {
	var added struct {
		Identifier string `json:"identifier"`
	}
	if err := p.call("Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": src}, &added); err != nil {
		return nil, err
	}
	return func() error {
		return p.call("Page.removeScriptToEvaluateOnNewDocument", map[string]any{"identifier": added.Identifier}, nil)
	}, nil
}

// AllowClipboard lets the pages of origin read and write the clipboard,
// and makes the page act as a focused window, which the clipboard needs.
func (p *Page) AllowClipboard(origin string) error {
	grant := map[string]any{"origin": origin, "permissions": []string{"clipboardReadWrite", "clipboardSanitizedWrite"}}
	if err := p.b.call("", "Browser.grantPermissions", grant, nil); err != nil {
		return err
	}
	return p.call("Emulation.setFocusEmulationEnabled", map[string]any{"enabled": true}, nil)
}

// Text returns the page's rendered text (document.body.innerText): what a
// reader sees, not the HTML source.
func (p *Page) Text() (string, error) {
	var s string
	err := p.Eval("document.body.innerText", &s)
	return s, err
}

// ColorScheme makes the page prefer a "light" or "dark" color scheme.
func (p *Page) ColorScheme(scheme string) error {
	features := []map[string]string{{"name": "prefers-color-scheme", "value": scheme}}
	return p.call("Emulation.setEmulatedMedia", map[string]any{"features": features}, nil)
}

// Viewport lays the page out width CSS pixels wide; mobile emulates a
// phone (touch, mobile viewport rules).
func (p *Page) Viewport(width int, mobile bool) error {
	metrics := map[string]any{"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": mobile}
	return p.call("Emulation.setDeviceMetricsOverride", metrics, nil)
}

// Screenshot returns a PNG of the whole page, as wide as the viewport.
func (p *Page) Screenshot() ([]byte, error) {
	var size struct{ Width, Height float64 }
	if err := p.Eval("({width: document.documentElement.clientWidth, height: document.documentElement.scrollHeight})", &size); err != nil {
		return nil, err
	}
	var shot struct {
		Data string `json:"data"`
	}
	clip := map[string]any{"x": 0, "y": 0, "width": size.Width, "height": size.Height, "scale": 1}
	if err := p.call("Page.captureScreenshot", map[string]any{"format": "png", "clip": clip, "captureBeyondViewport": true}, &shot); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(shot.Data)
}
