// Package templates holds the default page templates and assets, embedded
// in the binary (package pages documents what each file is for). A site
// overrides any of them by putting a file of the same name in its own
// templates directory.
package templates

import "embed"

// FS holds the default templates and assets.
//
//go:embed *.html assets
var FS embed.FS
