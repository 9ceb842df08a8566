package site

import (
	"net"
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
