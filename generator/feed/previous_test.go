package feed

import (
	"context"
	"encoding/binary"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/paths"
)

// checkAppendOnly checks entries, all at once, against the feed published
// at prev.
func checkAppendOnly(prev Previous, entries []agentfeed.Entry) (Outcome, error) {
	c, out, err := ReadPrevious(prev)
	if err != nil {
		return out, err
	}
	c.Check(entries)
	return out, c.Finish()
}

// A URL where nothing can have been published yet is a notice; any other
// failure to read the feed fails the build, or with Optional warns that the
// check was skipped: an outage never skips it unnoticed.
func TestCheckAppendOnlyUnreadableFeed(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/missing/", http.NotFound)
	mux.HandleFunc("/gone/", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusGone) })
	mux.HandleFunc("/page/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<!doctype html><title>Welcome to your new site</title>"))
	})
	mux.HandleFunc("/down/", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	mux.HandleFunc("/garbage/", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<?xml version='1.0'?><feed")) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	refused := closedPort(t)
	for _, tc := range []struct{ url, notice, err string }{
		{srv.URL + "/missing" + paths.Feed, "nothing published yet (the host answers 404 Not Found)", ""},
		{srv.URL + "/gone" + paths.Feed, "nothing published yet (the host answers 410 Gone)", ""},
		{srv.URL + "/page" + paths.Feed, "nothing published yet (the host answers with a page, not a feed)", ""},
		{srv.URL + "/down" + paths.Feed, "", "HTTP 503 Service Unavailable"},
		{srv.URL + "/garbage" + paths.Feed, "", "document is truncated"},
		{"http://" + refused + paths.Feed, "", "connection refused"},
	} {
		got, err := checkAppendOnly(Previous{Source: tc.url}, nil)
		checkOutcome(t, tc.url, got, err, tc.notice, tc.err)
		if tc.err == "" {
			continue
		}
		got, err = checkAppendOnly(Previous{Source: tc.url, Optional: true}, nil)
		if err != nil || len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0].Msg, tc.err) ||
			!strings.Contains(got.Warnings[0].Msg, "the append-only check was skipped (--previous-optional)") {
			t.Errorf("%s, optional: %+v, %v; want a warning that the check was skipped", tc.url, got, err)
		}
	}
}

// A name that does not exist (an authoritative NXDOMAIN) is a site whose
// domain is not set up yet: nothing can have been published there. A lookup
// that failed for now (SERVFAIL) says nothing, and fails.
func TestCheckAppendOnlyDNS(t *testing.T) {
	for _, tc := range []struct {
		name, notice, err string
		rcode             byte
	}{
		{"NXDOMAIN", "nothing published yet (the name feed.example.invalid does not exist, so nothing can have been published at it)", "", 3},
		{"SERVFAIL", "", "server misbehaving", 2},
	} {
		resolver := dnsServer(t, tc.rcode)
		got, err := checkAppendOnly(Previous{Source: "https://feed.example.invalid" + paths.Feed, Resolver: resolver}, nil)
		checkOutcome(t, tc.name, got, err, tc.notice, tc.err)
	}
}

func checkOutcome(t *testing.T, name string, got Outcome, err error, notice, wantErr string) {
	t.Helper()
	switch {
	case notice != "":
		if err != nil || len(got.Notices) != 1 || !strings.Contains(got.Notices[0], notice) || len(got.Warnings) != 0 {
			t.Errorf("%s: %+v, %v; want the notice %q", name, got, err, notice)
		}
	case err == nil || !strings.Contains(err.Error(), wantErr) || !strings.Contains(err.Error(), "--previous "):
		t.Errorf("%s: %+v, %v; want an error with %q", name, got, err, wantErr)
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// dnsServer answers every query on a loopback UDP port with rcode and no
// records, and returns a resolver that asks only it.
func dnsServer(t *testing.T, rcode byte) *net.Resolver {
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := conn.ReadFrom(buf)
			if err != nil {
				return
			}
			if reply := dnsReply(buf[:n], rcode); reply != nil {
				conn.WriteTo(reply, from)
			}
		}
	}()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", conn.LocalAddr().String())
	}}
}

// dnsReply is the answer to query with its question, no records, and rcode,
// from an authoritative server that offers recursion.
func dnsReply(query []byte, rcode byte) []byte {
	end := 12
	for end < len(query) && query[end] != 0 {
		end += int(query[end]) + 1
	}
	end += 5 // the root label, type and class
	if len(query) < 12 || end > len(query) {
		return nil
	}
	reply := append([]byte{}, query[:end]...)
	reply[2] = 0x84 | query[2]&0x01 // response, authoritative, recursion desired as asked
	reply[3] = 0x80 | rcode         // recursion available
	binary.BigEndian.PutUint16(reply[4:], 1)
	clear(reply[6:12])
	return reply
}
