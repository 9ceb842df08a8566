// Package tlstest lets a test binary's HTTPS clients trust the servers of
// httptest.NewTLSServer as they would a host with a real certificate: the
// clients under test keep their own transports, and read the certificate
// among the system roots.
package tlstest

import (
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Main adds the certificate every httptest TLS server uses to the system
// roots through SSL_CERT_FILE, runs the tests and exits. Call it from
// TestMain, before anything reads the system roots.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "tlstest")
	if err == nil {
		err = trust(filepath.Join(dir, "cert.pem"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlstest:", err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func trust(file string) error {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	cert := srv.Certificate()
	srv.Close()
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o644); err != nil {
		return err
	}
	return os.Setenv("SSL_CERT_FILE", file)
}

// Skip skips a test on systems whose certificate verifier ignores
// SSL_CERT_FILE (macOS and Windows ask the operating system).
func Skip(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" || runtime.GOOS == "ios" {
		t.Skipf("%s verifies certificates without SSL_CERT_FILE", runtime.GOOS)
	}
}

// Redirector starts an https server on this machine and returns the URL of
// its path p that redirects hops times, the last time to target+p (a
// plain http server, to test that a client does not leave https).
func Redirector(t testing.TB, target string, hops int) func(p string) string {
	t.Helper()
	Skip(t)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/hops/"), "/")
		if k, err := strconv.Atoi(n); err == nil && k > 1 {
			http.Redirect(w, r, "/hops/"+strconv.Itoa(k-1)+"/"+rest, http.StatusTemporaryRedirect)
			return
		}
		http.Redirect(w, r, target+"/"+rest, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	return func(p string) string { return srv.URL + "/hops/" + strconv.Itoa(hops) + p }
}
