package agentfeed

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzDecode reads arbitrary bytes as a feed document, as a reader of a
// stranger's feed does. Decode must never panic; what it accepts holds no
// more text than the document (no expansion); and a feed it accepts that
// Encode can write reads back as the same feed.
func FuzzDecode(f *testing.F) {
	doc, err := Encode(exampleFeed(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(doc)
	for _, seed := range []string{
		`<feed xmlns="http://www.w3.org/2005/Atom"><id>a</id><entry><id>x</id></entry></feed>`,
		`<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY a "aaaa">]><feed xmlns="http://www.w3.org/2005/Atom">&a;</feed>`,
		`<feed xmlns="http://www.w3.org/2005/Atom"><title>&lt;&#x10FFFF;<![CDATA[]]>x</title><link rel="prev-archive" href="a"/><link rel="prev-archive" href="b"/></feed>`,
		`<a:feed xmlns:a="http://www.w3.org/2005/Atom"><a:entry><a:entry/></a:entry></a:feed><!-- -->`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		feed, err := Decode(data)
		if err != nil {
			return
		}
		if n := textSize(feed); n > len(data) {
			t.Fatalf("a %d-byte document decodes to %d bytes of text", len(data), n)
		}
		again, err := Decode(data)
		if err != nil || !reflect.DeepEqual(again, feed) {
			t.Fatalf("decoding twice differs: %v", err)
		}
		enc, err := Encode(feed)
		if err != nil {
			return
		}
		back, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode refuses what Encode wrote: %v\n%s", err, enc)
		}
		if enc2, err := Encode(back); err != nil || !bytes.Equal(enc2, enc) {
			t.Fatalf("a feed does not read back as itself: %v\n%s\n%s", err, enc, enc2)
		}
	})
}

// textSize is the number of bytes of text a decoded feed holds.
func textSize(f *Feed) int {
	n := len(f.ID) + len(f.Title) + len(f.Updated) + len(f.AuthorName) + len(f.SelfURL) + len(f.AlternateURL) +
		len(f.SpecVersion) + len(f.Status) + len(f.MigratedTo) + len(f.PrevArchive) + len(f.Current)
	for _, e := range f.Entries {
		n += len(e.ID) + len(e.Type) + len(e.Title) + len(e.Link) + len(e.Updated) + len(e.Summary) + len(e.Content) + len(e.Sig) + len(e.Signer)
	}
	return n
}
