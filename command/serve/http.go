package serve

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator/deploy"
	"github.com/wellknown-dev/wellknown/internal/urlrule"
)

// allowed is the Allow header of every file. Not OPTIONS: the hosts answer
// a CORS preflight with 405, and so does the preview.
const allowed = "GET, HEAD"

// serverCardType is the only type answered with 406 when Accept rules it
// out: clients fetching a Server Card ask for it by type.
const serverCardType = "application/mcp-server-card+json"

// hostOnly are the files static hosts read for their configuration and
// never serve.
var hostOnly = map[string]bool{"/_headers": true, "/_redirects": true}

// ServeHTTP answers from the current build, as the package documentation
// describes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.Loopback() && !loopbackHost(r.Host) {
		// A page elsewhere could otherwise reach the preview through a name
		// it points at 127.0.0.1 (DNS rebinding).
		http.Error(w, fmt.Sprintf("this preview answers requests for localhost or 127.0.0.1, not for %q", r.Host), http.StatusMisdirectedRequest)
		return
	}
	if r.URL.Path == EventsPath {
		s.serveEvents(w, r)
		return
	}
	st := s.state.Load()
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	default:
		w.Header().Set("Allow", allowed)
		http.Error(w, fmt.Sprintf("method %s is not allowed: a static site answers %s", r.Method, allowed), http.StatusMethodNotAllowed)
		return
	}
	p, ok := sitePath(r.URL)
	if !ok {
		st.notFound(w, r)
		return
	}
	a := st.route(p)
	switch {
	case a.status == http.StatusNotFound:
		st.notFound(w, r)
	case a.status == http.StatusBadGateway:
		http.Error(w, fmt.Sprintf("%s is rewritten to %s (a _redirects rule with status 200): the host fetches and serves that URL, the dev server does not proxy", p, a.target), http.StatusBadGateway)
	case a.entry == nil:
		w.Header().Set("Location", withQuery(a.target, r.URL.RawQuery))
		w.WriteHeader(a.status)
	default:
		serveFile(w, r, a)
	}
}

// sitePath returns the request's path when it is a clean path inside the
// site: no dot or empty segments (except a final "/"), no backslash, NUL or
// encoded slash. Anything else would reach a file under another name.
func sitePath(u *url.URL) (string, bool) {
	p := u.Path
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") {
		return "", false
	}
	if esc := strings.ToLower(u.EscapedPath()); strings.Contains(esc, "%2f") || strings.Contains(esc, "%5c") {
		return "", false
	}
	segs := strings.Split(p[1:], "/")
	for i, seg := range segs {
		if seg == "." || seg == ".." || seg == "" && i < len(segs)-1 {
			return "", false
		}
	}
	return p, true
}

// answer is what a path resolves to: a file (status 200) sent with header,
// a redirect to target, a refused proxy to target (502), or nothing (404).
type answer struct {
	entry  *entry
	header http.Header
	status int
	target string
}

// route resolves a site path as the configured host does: a file, a
// directory's index, the directory's slash redirect, then the _redirects
// rules; on Cloudflare Pages the rules come first, since it redirects a
// path even where a file is.
func (st *state) route(p string) answer {
	if st.redirectsFirst {
		if a, ok := st.redirect(p); ok {
			return a
		}
	}
	if e := st.lookup(p); e != nil {
		return answer{entry: e, header: e.file.Header, status: http.StatusOK}
	}
	if !strings.HasSuffix(p, "/") && st.lookup(p+"/") != nil {
		return answer{status: http.StatusMovedPermanently, target: p + "/"}
	}
	if a, ok := st.redirect(p); ok {
		return a
	}
	return answer{status: http.StatusNotFound}
}

// redirect applies the first _redirects rule that matches p, if any.
func (st *state) redirect(p string) (answer, bool) {
	for _, rule := range st.redirects {
		if target, ok := deploy.MatchRedirect(rule, p); ok {
			return st.follow(p, rule, target), true
		}
	}
	return answer{}, false
}

// follow applies the _redirects rule that matched p, with its target filled
// in. A 200 rewrite serves the target's body with the headers of p, as the
// hosts do: their header rules match the path asked for.
func (st *state) follow(p string, rule site.Redirect, target string) answer {
	switch {
	case rule.Status != http.StatusOK:
		return answer{status: rule.Status, target: target}
	case !strings.HasPrefix(target, "/"):
		return answer{status: http.StatusBadGateway, target: target}
	}
	to, _, _ := strings.Cut(target, "?")
	e := st.lookup(to)
	if e == nil {
		return answer{status: http.StatusNotFound}
	}
	h := deploy.HeaderFor(st.rules(), p)
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", deploy.HostDefaultType(e.file.Path))
	}
	return answer{entry: e, header: h, status: http.StatusOK}
}

// lookup returns the file a path names: itself, or a directory's index.html.
func (st *state) lookup(p string) *entry {
	if strings.HasSuffix(p, "/") {
		p += "index.html"
	}
	if hostOnly[p] {
		return nil
	}
	return st.files[p]
}

// notFound answers with the site's 404 page.
func (st *state) notFound(w http.ResponseWriter, r *http.Request) {
	e := st.files["/404.html"]
	if e == nil {
		http.NotFound(w, r)
		return
	}
	out := e.sent()
	writeHeader(w, e.file.Header, out, http.StatusNotFound)
	if r.Method != http.MethodHead {
		w.Write(out.body)
	}
}

func serveFile(w http.ResponseWriter, r *http.Request, a answer) {
	e := a.entry
	if !acceptable(e, r.Header.Values("Accept")) {
		http.Error(w, fmt.Sprintf("%s is %s; the request's Accept admits neither it nor application/* or */*", e.file.Path, serverCardType), http.StatusNotAcceptable)
		return
	}
	out := e.sent()
	if ifNoneMatch(r.Header.Values("If-None-Match"), out.etag) {
		// A 304 repeats the validators and caching headers of the 200, and the
		// CORS headers, without which a cross-origin revalidation is refused.
		h := w.Header()
		h["ETag"] = []string{out.etag}
		for k, v := range a.header {
			if k == "Cache-Control" || strings.HasPrefix(k, "Access-Control-") {
				h[k] = v
			}
		}
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeHeader(w, a.header, out, http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(out.body)
	}
}

// writeHeader sends a file's headers, the ETag and length of what is sent,
// and status.
func writeHeader(w http.ResponseWriter, header http.Header, out sent, status int) {
	h := w.Header()
	for k, v := range header {
		h[k] = append([]string(nil), v...) // the file's header is shared by every request
	}
	h["ETag"] = []string{out.etag} // in its usual spelling, not Go's canonical "Etag"
	h.Set("Content-Length", strconv.Itoa(len(out.body)))
	w.WriteHeader(status)
}

// acceptable reports whether a file may be sent to a request with these
// Accept headers. Only a Server Card is ever refused.
func acceptable(e *entry, accept []string) bool {
	if t, _, _ := mime.ParseMediaType(e.file.ContentType); t != serverCardType {
		return true
	}
	ranges := strings.Join(accept, ",")
	if strings.TrimSpace(ranges) == "" {
		return true
	}
	// The most specific range that matches decides (RFC 9110, section
	// 12.5.1): "application/mcp-server-card+json;q=0, */*" refuses it.
	best, zero := 0, false
	for _, r := range strings.Split(ranges, ",") {
		t, params, err := mime.ParseMediaType(r)
		if err != nil {
			continue
		}
		if s := specificity(t); s > best {
			best, zero = s, qZero(params["q"])
		}
	}
	return best > 0 && !zero
}

// specificity ranks the media ranges that match a Server Card: its type
// above application/* above */*; 0 for one that does not match.
func specificity(mediaRange string) int {
	switch mediaRange {
	case serverCardType:
		return 3
	case "application/*":
		return 2
	case "*/*":
		return 1
	}
	return 0
}

// qZero reports whether a quality value rules a media range out.
func qZero(q string) bool {
	v, err := strconv.ParseFloat(q, 64)
	return err == nil && v == 0
}

// ifNoneMatch reports whether If-None-Match headers match etag: "*", or a
// listed tag equal to it by weak comparison (W/ ignored).
func ifNoneMatch(headers []string, etag string) bool {
	for _, h := range headers {
		for _, tag := range strings.Split(h, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
				return true
			}
		}
	}
	return false
}

// withQuery adds the request's query to a redirect target that has none.
func withQuery(target, query string) string {
	if query == "" || strings.Contains(target, "?") {
		return target
	}
	return target + "?" + query
}

// loopbackHost reports whether a Host header names this machine.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return urlrule.IsThisMachine(strings.Trim(host, "[]"))
}
