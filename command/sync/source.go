package sync

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/internal/httpget"
)

// Source is a way to reach an MCP server: a Streamable HTTP endpoint or a
// stdio command. Build one with HTTP or Stdio.
type Source struct {
	endpoint *url.URL    // Streamable HTTP
	headers  http.Header // with environment references expanded
	secrets  []string    // what redact hides
	argv     []string    // stdio
}

// reservedHeaders are set by the transport itself; a user value would break
// the protocol.
var reservedHeaders = []string{"Accept", "Content-Length", "Content-Type", "Host", "Mcp-Protocol-Version", "Mcp-Session-Id"}

// HTTP returns the Streamable HTTP endpoint at rawURL. Each header is
// "Name: value"; $NAME and ${NAME} in a value are replaced with the
// variable from getenv, which must be set.
func HTTP(rawURL string, headers []string, getenv func(string) string) (*Source, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--url %q is not an http or https URL", rawURL)
	}
	if err := httpget.CheckURL(u); err != nil {
		// Tool schemas become signed history, and headers carry credentials:
		// neither goes over a connection anyone on the way can read or rewrite.
		return nil, fmt.Errorf("--url: %v", err)
	}
	s := &Source{endpoint: u, headers: http.Header{}}
	if password, ok := u.User.Password(); ok {
		s.addSecret(password)
	}
	for i, h := range headers {
		if err := s.addHeader(i+1, h, getenv); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// addHeader adds the nth header. Its errors never quote the value: a
// malformed header may well be a bare token.
func (s *Source) addHeader(n int, h string, getenv func(string) string) error {
	name, value, ok := strings.Cut(h, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok || !validHeaderName(name):
		return fmt.Errorf("--header #%d is not of the form 'Name: value'", n)
	case slices.Contains(reservedHeaders, http.CanonicalHeaderKey(name)):
		return fmt.Errorf("--header %s: this header is set by the MCP transport", name)
	}
	var unset []string
	value = os.Expand(value, func(v string) string {
		x := getenv(v)
		if x == "" {
			unset = append(unset, v)
		}
		return x
	})
	if len(unset) > 0 {
		return fmt.Errorf("--header %s: environment variable %s is not set", name, strings.Join(unset, ", "))
	}
	if strings.ContainsFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
		return fmt.Errorf("--header %s: the value holds control characters", name)
	}
	s.headers.Add(name, value)
	s.addSecret(value)
	return nil
}

// validHeaderName reports whether name is an HTTP field name: one or more
// token characters (RFC 9110, section 5.6.2).
func validHeaderName(name string) bool {
	return name != "" && !strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	})
}

// minSecret is the length below which a header value is not redacted: it
// cannot be a credential, and hiding it would garble every message that
// happens to contain the same characters.
const minSecret = 4

// addSecret records a header value (or the URL's password), and the
// credential of a value of the form "<scheme> <credential>", for redact.
func (s *Source) addSecret(value string) {
	candidates := []string{value}
	if _, credential, ok := strings.Cut(value, " "); ok {
		candidates = append(candidates, strings.TrimSpace(credential))
	}
	for _, c := range candidates {
		if len(c) >= minSecret && !slices.Contains(s.secrets, c) {
			s.secrets = append(s.secrets, c)
		}
	}
	// Longest first, so a value is hidden whole before its credential.
	slices.SortFunc(s.secrets, func(a, b string) int { return len(b) - len(a) })
}

// Stdio returns the server started by command, split into words like a
// POSIX shell would (single and double quotes, backslash escapes) but with
// no expansion of any kind.
func Stdio(command string) (*Source, error) {
	argv, err := splitCommand(command)
	if err != nil {
		return nil, fmt.Errorf("--command %q: %v", command, err)
	}
	if len(argv) == 0 {
		return nil, errors.New("--command is empty")
	}
	return &Source{argv: argv}, nil
}

// String names the server in messages: the URL, or the program.
func (s *Source) String() string {
	if s.endpoint != nil {
		return s.endpoint.Redacted()
	}
	return s.argv[0]
}

// redact hides every header value in msg.
func (s *Source) redact(msg string) string {
	for _, secret := range s.secrets {
		msg = strings.ReplaceAll(msg, secret, "[redacted]")
	}
	return msg
}

// leaks reports whether data holds a header value.
func (s *Source) leaks(data []byte) bool {
	return slices.ContainsFunc(s.secrets, func(secret string) bool { return strings.Contains(string(data), secret) })
}

// splitCommand splits a command line into words: blanks separate words,
// single quotes keep everything literally, double quotes keep everything but
// a backslash before one of $ ` " \ or a newline, and a backslash outside
// quotes keeps the next character.
func splitCommand(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, word.String()), false
				word.Reset()
			}
			continue
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated single quote")
			}
			word.WriteString(line[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			n, err := doubleQuoted(line[i+1:], &word)
			if err != nil {
				return nil, err
			}
			i += n
		case c == '\\':
			if i+1 == len(line) {
				return nil, errors.New("trailing backslash")
			}
			i++
			word.WriteByte(line[i])
		default:
			word.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// doubleQuoted copies the content of a double-quoted string starting at s
// (after the opening quote) into w and returns the length consumed, the
// closing quote included.
func doubleQuoted(s string, w *strings.Builder) (int, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0:
			i++
			w.WriteByte(s[i])
		default:
			w.WriteByte(c)
		}
	}
	return 0, errors.New("unterminated double quote")
}
