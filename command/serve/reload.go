package serve

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"sync"
	"time"
)

// EventsPath is the Server-Sent Events stream open pages listen to. It is
// the server's own path, never a file of the site.
const EventsPath = "/_wellknown/events"

// snippet is inserted into every HTML response: the overlay of a failed
// rebuild's errors, and the script that reloads the page when the server's
// version differs from the one the page was served with. EventSource
// reconnects by itself after a restart of the server. Only a visible page
// keeps a stream open: a browser allows six HTTP/1.1 connections to a host,
// so six background tabs would otherwise leave a seventh page waiting. The
// server sends its version as a stream opens, so a page shown again catches
// up at once.
var snippet = template.Must(template.New("snippet").Parse(`
{{- if .Problems}}
<div id="wellknown-overlay" role="alert" title="click to hide" onclick="this.remove()" style="position:fixed;inset:0;z-index:2147483647;overflow:auto;margin:0;padding:2rem;background:rgba(24,0,0,.94);color:#fff;font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap">
<strong style="color:#ff8a80">wellknown serve: the last rebuild failed.</strong> This page is from the last good build; it reloads when a rebuild succeeds.
{{range .Problems}}
<span style="color:#ff8a80">error:</span> {{.Text}}{{with .Hint}}
<span style="color:#ffd180">hint:</span> {{.}}{{end}}
{{end}}</div>
{{- end}}
<script>(function () {
  var stream = null;
  function listen() {
    if (document.hidden) {
      if (stream) { stream.close(); stream = null; }
      return;
    }
    if (stream) return;
    stream = new EventSource({{.Events}});
    stream.addEventListener("reload", function (e) { if (e.data !== {{.Version}}) location.reload(); });
  }
  document.addEventListener("visibilitychange", listen);
  addEventListener("pagehide", function () { if (stream) stream.close(); });
  listen();
})();</script>
`))

func renderSnippet(version string, problems []problem) []byte {
	var b bytes.Buffer
	err := snippet.Execute(&b, struct {
		Events, Version string
		Problems        []problem
	}{EventsPath, version, problems})
	if err != nil {
		panic(fmt.Sprintf("live-reload snippet: %v", err)) // the template is fixed; this is a bug
	}
	return b.Bytes()
}

// hub hands the server's version to every open event stream. A stream that
// falls behind gets only the latest version.
type hub struct {
	mu     sync.Mutex
	subs   map[chan string]bool
	closed chan struct{} // closed at shutdown: streams end
	once   sync.Once
}

func newHub() *hub { return &hub{subs: map[chan string]bool{}, closed: make(chan struct{})} }

func (h *hub) subscribe() chan string {
	c := make(chan string, 1)
	h.mu.Lock()
	h.subs[c] = true
	h.mu.Unlock()
	return c
}

func (h *hub) unsubscribe(c chan string) {
	h.mu.Lock()
	delete(h.subs, c)
	h.mu.Unlock()
}

func (h *hub) publish(version string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.subs {
		select { // drop a version not yet sent: only the latest matters
		case <-c:
		default:
		}
		c <- version
	}
}

func (h *hub) close() { h.once.Do(func() { close(h.closed) }) }

// serveEvents streams the server's version: now, and after every rebuild.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "the event stream is read with GET", http.StatusMethodNotAllowed)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported on this connection", http.StatusInternalServerError)
		return
	}
	c := s.events.subscribe()
	defer s.events.unsubscribe(c)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	version := s.state.Load().version // after subscribing: no rebuild is missed
	rc := http.NewResponseController(w)
	for {
		// The server's write timeout would end the stream; each event
		// gets its own instead.
		if err := rc.SetWriteDeadline(time.Now().Add(s.http.WriteTimeout)); err != nil {
			return
		}
		fmt.Fprintf(w, "event: reload\ndata: %s\n\n", version)
		flusher.Flush()
		select {
		case version = <-c:
		case <-r.Context().Done():
			return
		case <-s.events.closed:
			return
		}
	}
}
