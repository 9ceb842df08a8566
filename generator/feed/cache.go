package feed

import (
	"crypto/sha256"

	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/generator/bundle"
)

// Cache keeps the last feed stage's files and output for the next (a
// development server's rebuilds), so that a feed whose inputs are what they
// were is not signed again. Its inputs are identified whole: the timeline,
// by identity (one a replay.Cache reused), the config
// (site.Config.Fingerprint) and the signing key. The zero Cache is empty.
// A Cache serves one build at a time.
type Cache struct {
	timeline *timeline.Timeline
	key      [sha256.Size]byte // the config's and the signing key's
	files    []*bundle.File
	out      *Output
}

// Add signs the feed and adds it to b (see add), or adds the last feed's
// files and returns its output (reused) when its inputs are the same. The
// feed is the first stage to add files to b, so the files b holds after
// add are the feed's.
func (c *Cache) Add(b *bundle.Bundle, in Input) (out *Output, reused bool, err error) {
	h := sha256.New()
	config := in.Config.Fingerprint()
	h.Write(config[:])
	h.Write(in.Key)
	key := [sha256.Size]byte(h.Sum(nil))
	if c.out != nil && c.timeline == in.Timeline && c.key == key && !in.DropEntries {
		in.Check.Check(c.out.Entries)
		for _, f := range c.files {
			if err := b.Add(f.Path, f.Body, f.ContentType); err != nil {
				return nil, false, err
			}
		}
		return c.out, true, nil
	}
	*c = Cache{}
	if out, err = add(b, in); err != nil {
		return nil, false, err
	}
	if in.DropEntries {
		return out, false, nil // an output without its entries cannot stand in for another
	}
	*c = Cache{timeline: in.Timeline, key: key, out: out}
	for _, f := range b.Files() {
		c.files = append(c.files, &bundle.File{Path: f.Path, Body: f.Body, ContentType: f.ContentType})
	}
	return out, false, nil
}
