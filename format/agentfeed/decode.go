package agentfeed

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// The decoding structs match elements by namespace URI, never by prefix.
// Slices catch repeated elements, which would otherwise mean different
// things to different readers.
type xmlFeed struct {
	ID          []xmlText   `xml:"http://www.w3.org/2005/Atom id"`
	Title       []xmlText   `xml:"http://www.w3.org/2005/Atom title"`
	Updated     []xmlText   `xml:"http://www.w3.org/2005/Atom updated"`
	Authors     []xmlAuthor `xml:"http://www.w3.org/2005/Atom author"`
	Links       []xmlLink   `xml:"http://www.w3.org/2005/Atom link"`
	SpecVersion []xmlText   `xml:"https://agent-feed.dev/ns/v0 spec-version"`
	Status      []xmlText   `xml:"https://agent-feed.dev/ns/v0 feed-status"`
	MigratedTo  []xmlText   `xml:"https://agent-feed.dev/ns/v0 migrated-to"`
	Archive     []struct{}  `xml:"http://purl.org/syndication/history/1.0 archive"`
	Entries     []xmlEntry  `xml:"http://www.w3.org/2005/Atom entry"`
}

type xmlEntry struct {
	ID      []xmlText `xml:"http://www.w3.org/2005/Atom id"`
	Title   []xmlText `xml:"http://www.w3.org/2005/Atom title"`
	Links   []xmlLink `xml:"http://www.w3.org/2005/Atom link"`
	Updated []xmlText `xml:"http://www.w3.org/2005/Atom updated"`
	Summary []xmlText `xml:"http://www.w3.org/2005/Atom summary"`
	Content []xmlText `xml:"http://www.w3.org/2005/Atom content"`
	Type    []xmlText `xml:"https://agent-feed.dev/ns/v0 type"`
	Sig     []xmlText `xml:"https://agent-feed.dev/ns/v0 sig"`
	Signer  []xmlText `xml:"https://agent-feed.dev/ns/v0 signer"`
}

// xmlText is an element's text (entities decoded, CDATA sections joined)
// and its type attribute.
type xmlText struct {
	Type string `xml:"type,attr"`
	Text string `xml:",chardata"`
}

type xmlAuthor struct {
	Name []xmlText `xml:"http://www.w3.org/2005/Atom name"`
}

type xmlLink struct {
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr"`
	Href string `xml:"href,attr"`
}

// href returns the first link with the relation rel (Atom's default
// relation is alternate) and, when typ is not empty, that media type.
func href(links []xmlLink, rel, typ string) string {
	for _, l := range links {
		if cmp.Or(l.Rel, "alternate") == rel && (typ == "" || l.Type == typ) {
			return l.Href
		}
	}
	return ""
}

// Decode reads an agent-feed document. It refuses documents with a DOCTYPE
// (no entity declarations, hence no expansion attacks) and documents in any
// encoding but UTF-8. Text is kept verbatim; <content> in particular is the
// exact signed bytes. Unknown elements are ignored; an entry that lacks a
// required element is an error naming its position and id.
func Decode(data []byte) (*Feed, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = func(string, io.Reader) (io.Reader, error) {
		return nil, errors.New("agent-feed documents must be UTF-8")
	}
	root, err := readProlog(d)
	if err != nil {
		return nil, err
	}
	var x xmlFeed
	if err := d.DecodeElement(&x, &root); err != nil {
		return nil, syntaxError(err)
	}
	if err := readEpilog(d); err != nil {
		return nil, err
	}
	return x.feed()
}

// readProlog returns the root element after checking what precedes it.
func readProlog(d *xml.Decoder) (xml.StartElement, error) {
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return xml.StartElement{}, errors.New("document has no root element")
		}
		if err != nil {
			return xml.StartElement{}, syntaxError(err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			return xml.StartElement{}, errors.New("document has a DOCTYPE or other declaration; agent-feed documents may not carry one (entity declarations allow expansion attacks)")
		case xml.CharData:
			if !isSpace(t) {
				return xml.StartElement{}, errors.New("document has text before the root element")
			}
		case xml.StartElement:
			if t.Name.Space != atomNamespace || t.Name.Local != "feed" {
				return xml.StartElement{}, fmt.Errorf("root element is {%s}%s, want an Atom feed", t.Name.Space, t.Name.Local)
			}
			return t, nil
		}
	}
}

// readEpilog checks that nothing but comments, processing instructions and
// white space follows the root element.
func readEpilog(d *xml.Decoder) error {
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return syntaxError(err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			if !isSpace(t) {
				return errors.New("document has text after the root element")
			}
		case xml.StartElement:
			return fmt.Errorf("document has a second root element <%s>", t.Name.Local)
		case xml.Directive:
			return errors.New("document has a declaration after the root element")
		}
	}
}

// isSpace reports whether text outside the root is only white space (or a
// byte order mark, which the decoder passes on as text).
func isSpace(b []byte) bool {
	return len(bytes.Trim(b, " \t\r\n\uFEFF")) == 0
}

func syntaxError(err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) && se.Msg == "unexpected EOF" {
		return fmt.Errorf("document is truncated (line %d)", se.Line)
	}
	return fmt.Errorf("malformed XML: %w", err)
}

func (x *xmlFeed) feed() (*Feed, error) {
	var p picker
	f := &Feed{
		ID:          p.one("id", x.ID).Text,
		Title:       p.one("title", x.Title).Text,
		Updated:     p.one("updated", x.Updated).Text,
		SpecVersion: p.one("af:spec-version", x.SpecVersion).Text,
		Status:      Status(p.one("af:feed-status", x.Status).Text),
		MigratedTo:  p.one("af:migrated-to", x.MigratedTo).Text,
	}
	if len(x.Authors) > 0 {
		f.AuthorName = p.one("author name", x.Authors[0].Name).Text
	}
	if p.err != nil {
		return nil, fmt.Errorf("feed: %w", p.err)
	}
	if err := x.links(f); err != nil {
		return nil, fmt.Errorf("feed: %w", err)
	}
	f.Archive = len(x.Archive) > 0
	f.AlternateURL = href(x.Links, "alternate", typeHTML)
	for i, xe := range x.Entries {
		e, err := xe.entry()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", entryRef(i, xe.firstID()), err)
		}
		f.Entries = append(f.Entries, e)
	}
	return f, nil
}

// links sets the feed's self, current and prev-archive links. A repeated
// current or prev-archive link is an error: readers could follow either.
func (x *xmlFeed) links(f *Feed) error {
	targets := map[string]*string{"self": &f.SelfURL, "current": &f.Current, "prev-archive": &f.PrevArchive}
	for _, l := range x.Links {
		href, ok := targets[l.Rel]
		switch {
		case !ok:
		case *href == "":
			*href = l.Href
		case l.Rel != "self":
			return fmt.Errorf("more than one %s link", l.Rel)
		}
	}
	return nil
}

// firstID is the entry's id for error messages, even when it has several.
func (xe xmlEntry) firstID() string {
	if len(xe.ID) == 0 {
		return ""
	}
	return xe.ID[0].Text
}

func (xe xmlEntry) entry() (Entry, error) {
	var p picker
	content := p.one("content", xe.Content)
	sig := p.one("af:sig", xe.Sig)
	e := Entry{
		ID:      p.one("id", xe.ID).Text,
		Type:    p.one("af:type", xe.Type).Text,
		Title:   p.one("title", xe.Title).Text,
		Link:    href(xe.Links, "alternate", typeHTML),
		Updated: p.one("updated", xe.Updated).Text,
		Summary: p.one("summary", xe.Summary).Text,
		Content: []byte(content.Text),
		Sig:     sig.Text,
		Signer:  p.one("af:signer", xe.Signer).Text,
	}
	switch {
	case p.err != nil:
		return Entry{}, p.err
	case e.ID == "":
		return Entry{}, errors.New("missing id")
	case e.Type == "":
		return Entry{}, errors.New("missing af:type")
	case len(xe.Content) == 0:
		return Entry{}, errors.New("missing content")
	case content.Type != "application/json":
		return Entry{}, fmt.Errorf("content type %q, want application/json", content.Type)
	case len(xe.Sig) == 0:
		return Entry{}, errors.New("missing af:sig")
	case sig.Type != "ed25519":
		return Entry{}, fmt.Errorf("af:sig type %q, want ed25519", sig.Type)
	}
	return e, nil
}

// picker takes the single occurrence of an element and remembers the first
// element that occurs more than once.
type picker struct{ err error }

func (p *picker) one(name string, elems []xmlText) xmlText {
	if len(elems) > 1 && p.err == nil {
		p.err = fmt.Errorf("%d %s elements, want at most one", len(elems), name)
	}
	if len(elems) == 0 {
		return xmlText{}
	}
	return elems[0]
}
