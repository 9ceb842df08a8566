package sync

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		line string
		want []string
		err  string
	}{
		{line: "server --stdio", want: []string{"server", "--stdio"}},
		{line: "  server\t--a  --b\n", want: []string{"server", "--a", "--b"}},
		{line: `./my\ server 'a b' "c d"`, want: []string{"./my server", "a b", "c d"}},
		{line: `x 'it''s' "say \"hi\"" "\n\$HOME"`, want: []string{"x", "its", `say "hi"`, `\n$HOME`}},
		{line: `x $HOME ~ *.json a|b`, want: []string{"x", "$HOME", "~", "*.json", "a|b"}},
		{line: `x '' ""`, want: []string{"x", "", ""}},
		{line: `x 'a"b' "a'b"`, want: []string{"x", `a"b`, "a'b"}},
		{line: "", want: nil},
		{line: "x 'open", err: "unterminated single quote"},
		{line: `x "open`, err: "unterminated double quote"},
		{line: `x \`, err: "trailing backslash"},
	}
	for _, tt := range tests {
		got, err := splitCommand(tt.line)
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("splitCommand(%q): error %v, want %q", tt.line, err, tt.err)
			}
		case err != nil:
			t.Errorf("splitCommand(%q): %v", tt.line, err)
		case !slices.Equal(got, tt.want):
			t.Errorf("splitCommand(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestHTTPSource(t *testing.T) {
	env := map[string]string{"TOKEN": "abc123456", "ORG": "acme"}
	getenv := func(name string) string { return env[name] }
	tests := []struct {
		url     string
		headers []string
		err     string
	}{
		{url: "https://example.com/mcp", headers: []string{"Authorization: Bearer $TOKEN", "X-Org: ${ORG}"}},
		{url: "example.com/mcp", err: `--url "example.com/mcp" is not an http or https URL`},
		{url: "ftp://example.com/", err: "is not an http or https URL"},
		{url: "https://example.com/", headers: []string{"Bearer abc123456"}, err: "--header #1 is not of the form 'Name: value'"},
		{url: "https://example.com/", headers: []string{"X-A: 1", "Bad Name: x"}, err: "--header #2 is not of the form"},
		{url: "https://example.com/", headers: []string{"Authorization: Bearer $MISSING"}, err: "--header Authorization: environment variable MISSING is not set"},
		{url: "https://example.com/", headers: []string{"Mcp-Session-Id: 1"}, err: "--header Mcp-Session-Id: this header is set by the MCP transport"},
		{url: "https://example.com/", headers: []string{"X-A: a\x01b"}, err: "control characters"},
	}
	for _, tt := range tests {
		s, err := HTTP(tt.url, tt.headers, getenv)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("HTTP(%q, %q): error %v, want %q", tt.url, tt.headers, err, tt.err)
			}
			if err != nil && strings.Contains(err.Error(), "abc123456") {
				t.Errorf("HTTP(%q, %q): error %q shows a header value", tt.url, tt.headers, err)
			}
		case err != nil:
			t.Errorf("HTTP(%q, %q): %v", tt.url, tt.headers, err)
		default:
			if got := s.headers.Get("Authorization"); got != "Bearer abc123456" {
				t.Errorf("Authorization %q, want the expanded token", got)
			}
			if got := s.headers.Get("X-Org"); got != "acme" {
				t.Errorf("X-Org %q, want acme", got)
			}
		}
	}
}

func TestRedact(t *testing.T) {
	s, err := HTTP("https://example.com/mcp", []string{"Authorization: Bearer abc123456", "X-Debug: 1"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"got Bearer abc123456 from you", "got [redacted] from you"},
		{`token "abc123456" expired`, `token "[redacted]" expired`},
		{"status 401", "status 401"}, // short values are not hidden
	}
	for _, tt := range tests {
		if got := s.redact(tt.in); got != tt.want {
			t.Errorf("redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if !s.leaks([]byte(`{"description": "abc123456"}`)) || s.leaks([]byte(`{"description": "1"}`)) {
		t.Error("leaks does not recognise the token, or mistakes a short value for one")
	}
}

func TestRedactURLPassword(t *testing.T) {
	s, err := HTTP("https://sync:pw-0123456@example.com/mcp", nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if got := s.String(); strings.Contains(got, "pw-0123456") {
		t.Errorf("String() = %q shows the password", got)
	}
	if got := s.redact(`Post "https://sync:pw-0123456@example.com/mcp": EOF`); strings.Contains(got, "pw-0123456") {
		t.Errorf("redact left the password in %q", got)
	}
}
