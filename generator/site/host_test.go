package site

import "testing"

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
