package deploy

import (
	"regexp"
	"strings"

	"github.com/wellknown-dev/wellknown/generator/site"
)

// placeholder is a ":name" in a rule's target.
var placeholder = regexp.MustCompile(`:[A-Za-z_][A-Za-z0-9_]*`)

// MatchRedirect reports whether a _redirects rule's source matches the path
// p, and returns its target with ":splat" and ":name" placeholders filled
// in, in the syntax Netlify and Cloudflare Pages share: a segment matches
// itself, ":name" matches any one segment, and a final "*" matches the rest
// of the path, possibly nothing. A trailing slash makes no difference.
func MatchRedirect(r site.Redirect, p string) (string, bool) {
	pattern, path := segments(r.From), segments(p)
	values := map[string]string{}
	for i, seg := range pattern {
		if seg == "*" && i == len(pattern)-1 {
			values["splat"] = strings.Join(path[min(i, len(path)):], "/")
			return fill(r.To, values), true
		}
		if i >= len(path) {
			return "", false
		}
		if name, ok := strings.CutPrefix(seg, ":"); ok {
			values[name] = path[i]
		} else if seg != path[i] {
			return "", false
		}
	}
	if len(pattern) != len(path) {
		return "", false
	}
	return fill(r.To, values), true
}

func segments(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// fill replaces the placeholders of target that have a value.
func fill(target string, values map[string]string) string {
	return placeholder.ReplaceAllStringFunc(target, func(m string) string {
		if v, ok := values[m[1:]]; ok {
			return v
		}
		return m
	})
}
