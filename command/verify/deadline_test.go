package verify

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/cards"
	"github.com/wellknown-dev/wellknown/format/paths"
)

// slowCatalog publishes a minimal site whose AI Catalog lists n documents
// that never answer, and returns their paths.
func slowCatalog(t *testing.T, o *origin, n int) []string {
	t.Helper()
	o.minimal()
	var slow []string
	var entries []map[string]string
	for i := range n {
		p := fmt.Sprintf("/.well-known/slow/%d.json", i)
		o.hang(p)
		slow = append(slow, p)
		entries = append(entries, map[string]string{"identifier": fmt.Sprintf("urn:air:test:doc:%d", i), "type": "application/json", "url": o.url(p)})
	}
	o.put(paths.Catalog, mustJSON(t, map[string]any{"specVersion": "1.0", "entries": entries}),
		http.Header{"Access-Control-Allow-Origin": {"*"}, "Content-Type": {cards.TypeAICatalog}})
	return slow
}

// Documents that never answer are waited for together, and each that timed
// out is named.
func TestSlowDocumentsConcurrently(t *testing.T) {
	o := newOrigin(t, hostHeaders)
	slow := slowCatalog(t, o, 12)
	rep := run(t, Options{Target: o.base.String(), Timeout: 300 * time.Millisecond})
	if got := codes(rep, SeverityError); len(got) != 1 || got[0] != codeUnreachable {
		t.Fatalf("errors = %v, want unreachable:%s", got, dump(rep))
	}
	timedOut := map[string]bool{}
	for _, f := range findings(rep, codeUnreachable) {
		if strings.Contains(f.Message, "timed out") {
			timedOut[f.Document] = true
		}
	}
	for _, p := range slow {
		if !timedOut[p] {
			t.Errorf("%s is not reported as timed out:%s", p, dump(rep))
		}
	}
	// A request the client gave up on may still be counted while the next
	// one arrives, so only TestDeadline holds the count to MaxConcurrent.
	if n := o.mostAtOnce(); n < 2 {
		t.Errorf("%d request waited at once: the documents were read one after another", n)
	}
}

// The whole run has a deadline: what it leaves unread is named in one
// finding, however long each request may take. No request ends before it,
// so the requests waiting at once are exactly those allowed at a time.
func TestDeadline(t *testing.T) {
	o := newOrigin(t, hostHeaders)
	slow := slowCatalog(t, o, 12)
	rep := run(t, Options{Target: o.base.String(), Timeout: time.Hour, Deadline: time.Second})
	if got := codes(rep, SeverityError); len(got) != 1 || got[0] != codeDeadline {
		t.Fatalf("errors = %v, want deadline:%s", got, dump(rep))
	}
	f := findings(rep, codeDeadline)
	if len(f) != 1 || !strings.Contains(f[0].Message, "(1s)") || !strings.Contains(f[0].Hint, "--deadline") {
		t.Fatalf("deadline findings = %+v", f)
	}
	for _, p := range slow {
		if !strings.Contains(f[0].Message, p+",") && !strings.HasSuffix(f[0].Message, p) {
			t.Errorf("%s is not named as unread: %s", p, f[0].Message)
		}
	}
	if n := o.mostAtOnce(); n != MaxConcurrent {
		t.Errorf("%d requests waited at once, want %d", n, MaxConcurrent)
	}
}
