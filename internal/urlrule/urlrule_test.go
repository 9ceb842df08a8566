package urlrule

import (
	"net/url"
	"testing"
)

func TestIsThisMachine(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "LocalHost.": true, "preview.localhost": true, "Preview.LOCALHOST": true,
		"127.0.0.1": true, "127.1.2.3": true, "::1": true,
		"example.com": false, "localhost.example.com": false, "notlocalhost": false, "192.0.2.1": false, "": false,
	} {
		if got := IsThisMachine(host); got != want {
			t.Errorf("IsThisMachine(%q) = %v, want %v", host, got, want)
		}
	}
}

// Secure allows plain http to every name of this machine IsThisMachine
// knows, as the HTTP client does, and to no other host.
func TestSecure(t *testing.T) {
	for raw, want := range map[string]bool{
		"https://example.com/": true, "http://localhost:8080/": true, "http://LOCALHOST:8080/": true,
		"http://preview.localhost/": true, "http://127.0.0.1/": true, "http://[::1]:9/": true,
		"http://example.com/": false, "http://localhost.example.com/": false, "ftp://localhost/": false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := Secure(u); got != want {
			t.Errorf("Secure(%s) = %v, want %v", raw, got, want)
		}
	}
}
