package verify

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/generator/deploy"
)

// hostStyle is how a test origin sends headers, after a kind of real host.
type hostStyle int

const (
	// hostHeaders sends each file's own headers (bundle File.Header, the
	// _headers table), as Netlify and Cloudflare Pages do.
	hostHeaders hostStyle = iota
	// hostGitHub cannot set headers: types by extension, CORS for all,
	// Server: GitHub.com, as GitHub Pages.
	hostGitHub
	// hostBare sends types by extension, no CORS, and ETags it never
	// honours: a host set up carelessly.
	hostBare
)

// served is one file of a test origin.
type served struct {
	body     []byte
	header   http.Header
	redirect string // answer with a redirect here instead
	stream   bool   // send without Content-Length
	hang     bool   // never answer
}

// origin is a real loopback web server holding a test site.
type origin struct {
	t     *testing.T
	base  *url.URL
	style hostStyle
	mu    sync.Mutex
	files map[string]*served
	// waiting is how many requests hang now; mostWaiting the most at once.
	waiting, mostWaiting int
}

func newOrigin(t *testing.T, style hostStyle) *origin {
	t.Helper()
	o := &origin{t: t, style: style, files: map[string]*served{}}
	srv := httptest.NewServer(o)
	t.Cleanup(srv.Close)
	base, err := url.Parse(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	o.base = base
	return o
}

// did is the origin's own did:web.
func (o *origin) did() string { return didweb.DID(o.base) }

func (o *origin) url(p string) string { return o.base.JoinPath(p).String() }

// put publishes a file; a nil header means the headers a build gives a
// document: CORS, and the feed's own content type (also for its archives).
func (o *origin) put(p string, body []byte, header http.Header) {
	if header == nil {
		header = http.Header{"Access-Control-Allow-Origin": {"*"}}
		if p == paths.Feed || strings.HasPrefix(p, paths.FeedArchives) {
			header.Set("Content-Type", "application/atom+xml; charset=utf-8")
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.files[p] = &served{body: body, header: header}
}

// hang makes a path never answer.
func (o *origin) hang(p string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.files[p] = &served{hang: true}
}

// putStream publishes a file sent without Content-Length, in chunks.
func (o *origin) putStream(p string, body []byte) {
	o.put(p, body, nil)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.files[p].stream = true
}

func (o *origin) redirect(from, to string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.files[from] = &served{redirect: to}
}

func (o *origin) remove(p string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.files, p)
}

func (o *origin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	f, ok := o.files[r.URL.Path]
	o.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if f.redirect != "" {
		http.Redirect(w, r, f.redirect, http.StatusFound)
		return
	}
	if f.hang {
		o.wait(r)
		return
	}
	h := w.Header()
	byExtension := deploy.HostDefaultType(r.URL.Path)
	switch o.style {
	case hostHeaders:
		for k, v := range f.header {
			h[k] = v
		}
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", byExtension)
		}
	case hostGitHub:
		h.Set("Server", "GitHub.com")
		h.Set("Content-Type", byExtension)
		h.Set("Cache-Control", "max-age=600")
		h.Set("Access-Control-Allow-Origin", "*")
	case hostBare:
		h.Set("Content-Type", byExtension)
	}
	sum := sha256.Sum256(f.body)
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	h.Set("ETag", etag)
	if o.style != hostBare && r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if f.stream {
		for chunk := range slices.Chunk(f.body, 1024) {
			w.Write(chunk)
			w.(http.Flusher).Flush()
		}
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(f.body)))
	w.Write(f.body)
}

// wait hangs until the client gives up, counting the requests that hang.
func (o *origin) wait(r *http.Request) {
	o.mu.Lock()
	o.waiting++
	o.mostWaiting = max(o.mostWaiting, o.waiting)
	o.mu.Unlock()
	<-r.Context().Done()
	o.mu.Lock()
	o.waiting--
	o.mu.Unlock()
}

// mostAtOnce is the most requests that hung at once.
func (o *origin) mostAtOnce() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.mostWaiting
}

// testKey is a fixed Ed25519 key (not a secret): the seed is n repeated.
func testKey(n byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{n}, ed25519.SeedSize))
}

// didDoc lists keys as key-1, key-2, … in both forms, as a build does.
func didDoc(t *testing.T, did string, keys ...ed25519.PrivateKey) []byte {
	t.Helper()
	var pubs []didweb.PublicKey
	for i, k := range keys {
		pubs = append(pubs, didweb.PublicKey{ID: "key-" + strconv.Itoa(i+1), Key: k.Public().(ed25519.PublicKey)})
	}
	return mustJSON(t, didweb.NewDocument(did, pubs))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// signer signs as the given key id of a DID.
func signer(did, keyID string, key ed25519.PrivateKey) agentfeed.Signer {
	return agentfeed.NewSigner(didweb.KeyURL(did, keyID), key)
}

func announce(t *testing.T, s agentfeed.Signer, id, endpointID, version string) agentfeed.Entry {
	t.Helper()
	return entry(t, s, id, agentfeed.TypeAnnouncement, agentfeed.Announcement{
		EndpointID: endpointID, Endpoint: "https://api.example.com/" + endpointID, Protocol: "rest",
		Version: version, AssertedAt: "2026-04-27T12:00:00Z",
	})
}

func change(t *testing.T, s agentfeed.Signer, id, endpointID, from, to string) agentfeed.Entry {
	t.Helper()
	return entry(t, s, id, agentfeed.TypeSchemaChange, agentfeed.SchemaChange{
		EndpointID: endpointID, FromVersion: from, ToVersion: to, EffectiveAt: "2026-04-28T12:00:00Z",
	})
}

// relabel is a signed entry served under another id and af:type, which no
// signature covers.
func relabel(e agentfeed.Entry, id, typ string) agentfeed.Entry {
	e.ID, e.Type = id, typ
	return e
}

func entry(t *testing.T, s agentfeed.Signer, id, typ string, payload any) agentfeed.Entry {
	t.Helper()
	e, err := agentfeed.NewEntry(s, id, typ, "2026-04-27T12:00:00Z", "", payload)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// feedOf encodes a feed of the given DID.
func feedOf(t *testing.T, did string, status agentfeed.Status, migratedTo string, entries ...agentfeed.Entry) []byte {
	t.Helper()
	data, err := agentfeed.Encode(&agentfeed.Feed{
		ID: did, Title: "test feed", Updated: "2026-04-27T12:00:00Z", AuthorName: "test",
		SpecVersion: agentfeed.SpecVersion, Status: status, MigratedTo: migratedTo, Entries: entries,
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// minimal publishes a did.json with key 1 and an active feed of the given
// entries; entries nil means one announcement.
func (o *origin) minimal(entries ...agentfeed.Entry) {
	t := o.t
	t.Helper()
	if entries == nil {
		entries = []agentfeed.Entry{announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0")}
	}
	o.put("/.well-known/did.json", didDoc(t, o.did(), testKey(1)), nil)
	o.put(paths.Feed, feedOf(t, o.did(), agentfeed.StatusActive, "", entries...), nil)
}

// signer signs with key 1 of the origin's DID.
func (o *origin) signer() agentfeed.Signer { return signer(o.did(), "key-1", testKey(1)) }

// run verifies opt (Target and timing defaults filled) and fails the test
// on a run error.
func run(t *testing.T, opt Options) *Report {
	t.Helper()
	if opt.Timeout == 0 {
		opt.Timeout = 10 * time.Second
	}
	rep, err := Verify(context.Background(), opt)
	if err != nil {
		t.Fatalf("verify %s: %v", opt.Target, err)
	}
	return rep
}

// codes lists the distinct codes of a report's findings of one severity,
// sorted.
func codes(rep *Report, sev Severity) []string {
	var out []string
	for _, o := range rep.Origins {
		for _, f := range o.Findings {
			if f.Severity == sev && !slices.Contains(out, f.Code) {
				out = append(out, f.Code)
			}
		}
	}
	slices.Sort(out)
	return out
}

// findings returns every finding with the code.
func findings(rep *Report, code string) []Finding {
	var out []Finding
	for _, o := range rep.Origins {
		for _, f := range o.Findings {
			if f.Code == code {
				out = append(out, f)
			}
		}
	}
	return out
}

// dump lists every finding, for failure messages.
func dump(rep *Report) string {
	var b strings.Builder
	for _, o := range rep.Origins {
		for _, f := range o.Findings {
			b.WriteString("\n  " + f.String())
		}
	}
	return b.String()
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
