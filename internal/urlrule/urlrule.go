// Package urlrule holds the rule every URL wellknown fetches from or
// publishes at follows: https, or plain http only to this machine, where
// no one on the way can rewrite what it carries. The site's base URL, the
// HTTP client, the development server and the commands that fetch all ask
// it here.
package urlrule

import (
	"net"
	"net/url"
	"strings"
)

// IsThisMachine reports whether a host (without port or brackets), as a
// request or URL names it, is this machine: a loopback address, localhost
// or a name under .localhost (RFC 6761), in any letter case and with or
// without a final dot.
func IsThisMachine(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Secure reports whether u may carry what the tool fetches or publishes:
// https, or plain http only to this machine (see IsThisMachine).
func Secure(u *url.URL) bool {
	return u.Scheme == "https" || u.Scheme == "http" && IsThisMachine(u.Hostname())
}
