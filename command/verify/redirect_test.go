package verify

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/internal/edptest"
	"github.com/wellknown-dev/wellknown/internal/tlstest"
)

func TestMain(m *testing.M) { tlstest.Main(m) }

// An https origin whose documents redirect to plain http, even on this
// machine, is read no further: every document is an insecure-url error.
func TestRedirectFromHTTPSOrigin(t *testing.T) {
	tlstest.Skip(t)
	o := newOrigin(t, hostHeaders)
	o.minimal(announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0"))
	target := strings.TrimSuffix(o.base.String(), "/")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	rep := run(t, Options{Target: srv.URL})
	if rep.OK || rep.Origins[0].Documents != 0 {
		t.Fatalf("read %d documents through a redirect to http:%s", rep.Origins[0].Documents, dump(rep))
	}
	f := findings(rep, codeInsecureURL)
	if len(f) == 0 || !strings.Contains(f[0].Message, "redirect from https to http refused ("+target+"/.well-known/") {
		t.Errorf("insecure-url findings %+v", f)
	}
}

// --provider-key with a JWKS URL follows the same rules: a key set behind
// a redirect to plain http, or more than three redirects, is not used.
func TestProviderKeyRedirects(t *testing.T) {
	p := edptest.NewES256(t, "booking-es")
	u, _ := edptest.ServeJWKS(t, p)
	plain := strings.TrimSuffix(u, "/jwks.json")
	for _, tc := range []struct {
		hops int
		want string
	}{{1, "redirect from https to http refused (" + u + ")"}, {4, "more than 3 redirects (the last to " + u + ")"}} {
		from := tlstest.Redirector(t, plain, tc.hops)("/jwks.json")
		rep, lines := verifyCard(t, entityCard(t, p.Sign(t, bookingClaims(365*24*time.Hour))), from)
		want := "error: /.well-known/entity-card.json: entities[0].mcps[0] (booking-provider): attestation: the provider's key set: " + from + ": " + tc.want + " (edp-key)"
		if len(lines) == 0 || lines[0] != want || rep.Origins[0].EDP[0].Level != 1 {
			t.Errorf("%d redirects: findings\n%s\nwant first\n%s", tc.hops, strings.Join(lines, "\n"), want)
		}
	}
}
