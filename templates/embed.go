// Package templates holds the default HTML templates, embedded in the
// binary. A site overrides any of them by putting a file of the same name in
// its own templates/ directory.
package templates

import "embed"

// FS holds the default templates.
//
//go:embed *.html
var FS embed.FS
