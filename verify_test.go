package main

import (
	"io"
	"testing"
)

// verify exits 2 for a usage error, before reading anything.
func TestVerifyUsageExitStatus(t *testing.T) {
	for _, args := range [][]string{
		{"verify"},
		{"verify", "http://example.com"},
		{"verify", "a", "b"},
		{"verify", "--bogus", "https://example.com"},
		{"verify", "--base", "https://example.com", "https://example.com"},
		{"verify", "--provider-key", "no-source", "https://example.com"},
		{"verify", "--provider-key", "p=http://keys.example.com/jwks.json", "https://example.com"},
	} {
		if got := run(args, io.Discard, io.Discard); got != 2 {
			t.Errorf("%q: exit %d, want 2", args, got)
		}
	}
}
