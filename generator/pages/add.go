package pages

import (
	"fmt"

	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/deploy"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// Add renders the pages (see renderBuild) into b, each with the type a
// static host sends for it, as it is rendered: a large page into b's
// spool, when it has one. It runs after every document is in b, since the
// pages link to them (BuildInput.Files).
func Add(b *bundle.Bundle, in BuildInput) (warnings []*diag.Error, err error) {
	return renderBuild(in, b.Spool(), func(f File) error {
		var err error
		if f.spooled != nil {
			err = b.AddSpooled(f.Path, f.spooled, deploy.HostDefaultType(f.Path))
		} else {
			err = b.Add(f.Path, f.Body, deploy.HostDefaultType(f.Path))
		}
		if err != nil {
			return fmt.Errorf("page %s: %v", f.Path, err)
		}
		return nil
	})
}
