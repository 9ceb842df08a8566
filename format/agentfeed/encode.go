package agentfeed

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// Feed is an agent-feed document.
type Feed struct {
	ID         string // the site's DID
	Title      string
	Updated    string // RFC 3339
	AuthorName string
	SelfURL    string // the feed's own URL; the link is left out when empty
	// AlternateURL is the page that shows the feed to people (a changelog);
	// the link is left out when empty.
	AlternateURL string
	// Stylesheet is the URL of an XSLT style sheet with which a browser
	// shows the document to a person as a page, written as an
	// xml-stylesheet processing instruction; left out when empty. Readers
	// skip processing instructions, and it is not signed.
	Stylesheet string
	// SpecVersion is what the document says; Encode writes SpecVersion
	// (the constant) and accepts only that or empty.
	SpecVersion string
	// Status is decoded verbatim, unknown values included, so that readers
	// can decide (the spec says: treat as terminated).
	Status     Status
	MigratedTo string // the new feed URL; set exactly when Status is migrated
	// RFC 5005 archives (see Archives): PrevArchive is the URL of the
	// archive document of the entries before these; Current, in an archive,
	// the URL of the subscription document; Archive marks an archive
	// document (fh:archive).
	PrevArchive string
	Current     string
	Archive     bool
	Entries     []Entry
}

const (
	atomNamespace = "http://www.w3.org/2005/Atom"
	// HistoryNamespace is RFC 5005's, of the fh:archive marker.
	HistoryNamespace = "http://purl.org/syndication/history/1.0"
)

// Encode writes f as an agent-feed document. The output is deterministic and
// holds no entity or character references (see the package documentation).
func Encode(f *Feed) ([]byte, error) {
	if err := checkFeed(f); err != nil {
		return nil, err
	}
	w := &feedWriter{}
	w.buf.Grow(sizeHint(f))
	w.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	if f.Stylesheet != "" {
		w.raw(`<?xml-stylesheet type="text/xsl" href="` + f.Stylesheet + `"?>` + "\n")
	}
	w.raw(`<feed xmlns="` + atomNamespace + `" xmlns:af="` + Namespace + `"`)
	if f.Archive {
		w.raw(` xmlns:fh="` + HistoryNamespace + `"`)
	}
	w.raw(">\n")
	w.text(1, "id", "", f.ID)
	w.text(1, "title", "", f.Title)
	w.text(1, "updated", "", f.Updated)
	w.raw("  <author>\n")
	w.text(2, "name", "", f.AuthorName)
	w.raw("  </author>\n")
	w.link(1, "self", "", f.SelfURL)
	w.link(1, "alternate", typeHTML, f.AlternateURL)
	w.link(1, "current", "", f.Current)
	w.link(1, "prev-archive", "", f.PrevArchive)
	if f.Archive {
		w.raw("  <fh:archive/>\n")
	}
	w.text(1, "af:spec-version", "", SpecVersion)
	w.text(1, "af:feed-status", "", string(f.Status))
	if f.Status == StatusMigrated {
		w.text(1, "af:migrated-to", "", f.MigratedTo)
	}
	if w.err != nil {
		return nil, fmt.Errorf("feed %s: %w", f.ID, w.err)
	}
	for i, e := range f.Entries {
		if err := w.entry(e); err != nil {
			return nil, fmt.Errorf("%s: %w", entryRef(i, e.ID), err)
		}
	}
	w.raw("</feed>\n")
	return w.buf.Bytes(), nil
}

// stylesheetURL is what an xml-stylesheet href may hold: a path or URL of
// characters that need no escaping in the pseudo-attribute (no quote, no
// "<", "&" or "?"), or nothing.
var stylesheetURL = regexp.MustCompile(`^([A-Za-z0-9._~/:%+-]+)?$`)

// sizeHint is a little more than the encoded size of f, so that the buffer
// is allocated once: grown by doubling, a large feed's buffer would end up
// to twice its size, and the document keeps it.
func sizeHint(f *Feed) int {
	const markup = 450 // an entry's tags, indentation and CDATA markers, and then some
	n := 1024 + len(f.Stylesheet) + len(f.ID) + len(f.Title) + len(f.AuthorName) + len(f.SelfURL) + len(f.AlternateURL) + len(f.MigratedTo)
	for _, e := range f.Entries {
		n += markup + len(e.ID) + len(e.Title) + len(e.Link) + len(e.Updated) + len(e.Type) + len(e.Summary) + len(e.Content) + len(e.Sig) + len(e.Signer)
	}
	return n
}

// checkFeed rejects what would make an invalid Atom or agent-feed document.
// Text content is checked as it is written.
func checkFeed(f *Feed) error {
	switch {
	case f.ID == "":
		return errors.New("feed has no id")
	case f.Title == "":
		return fmt.Errorf("feed %s has no title", f.ID)
	case f.AuthorName == "":
		return fmt.Errorf("feed %s has no author name (Atom requires one)", f.ID)
	case f.SpecVersion != "" && f.SpecVersion != SpecVersion:
		return fmt.Errorf("feed %s: spec version %q, this package writes %s", f.ID, f.SpecVersion, SpecVersion)
	case !f.Status.known():
		return fmt.Errorf("feed %s: unknown feed status %q", f.ID, f.Status)
	case f.Status == StatusMigrated && f.MigratedTo == "":
		return fmt.Errorf("feed %s is migrated but has no migrated-to URL", f.ID)
	case f.Status != StatusMigrated && f.MigratedTo != "":
		return fmt.Errorf("feed %s has migrated-to %q but status %s", f.ID, f.MigratedTo, f.Status)
	}
	if err := checkTime(f.Updated); err != nil {
		return fmt.Errorf("feed %s: updated: %w", f.ID, err)
	}
	if err := checkURL(f.MigratedTo); err != nil {
		return fmt.Errorf("feed %s: migrated-to: %w", f.ID, err)
	}
	if !stylesheetURL.MatchString(f.Stylesheet) {
		return fmt.Errorf("feed %s: style sheet %q is not a plain URL path", f.ID, f.Stylesheet)
	}
	for _, l := range []struct{ rel, href string }{{"self", f.SelfURL}, {"alternate", f.AlternateURL}, {"current", f.Current}, {"prev-archive", f.PrevArchive}} {
		if err := checkLink(l.href); err != nil {
			return fmt.Errorf("feed %s: %s link: %w", f.ID, l.rel, err)
		}
	}
	return nil
}

// checkLink accepts an absolute URL that an attribute carries unescaped,
// or nothing.
func checkLink(s string) error {
	if err := checkAttribute(s); err != nil {
		return err
	}
	return checkURL(s)
}

func checkEntry(e Entry) error {
	switch {
	case e.ID == "":
		return errors.New("missing id")
	case e.Type == "":
		return errors.New("missing type")
	case !json.Valid(e.Content):
		return errors.New("content is not valid JSON")
	}
	if err := checkTime(e.Updated); err != nil {
		return fmt.Errorf("updated: %w", err)
	}
	if _, err := decodeSig(e.Sig); err != nil {
		return err
	}
	if err := checkLink(e.Link); err != nil {
		return fmt.Errorf("alternate link: %w", err)
	}
	return nil
}

// FormatTime writes a time as every time of a feed is written: RFC 3339,
// in UTC, to the second ("2026-04-27T12:00:00Z").
func FormatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func checkTime(s string) error {
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		return fmt.Errorf("%q is not an RFC 3339 time", s)
	}
	return nil
}

// checkURL accepts an absolute URL or nothing.
func checkURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() {
		return fmt.Errorf("%q is not an absolute URL", s)
	}
	return nil
}

// feedWriter writes the document; the first error sticks and later writes
// are dropped, so callers check once per element group.
type feedWriter struct {
	buf bytes.Buffer
	err error
}

func (w *feedWriter) raw(s string) {
	if w.err == nil {
		w.buf.WriteString(s)
	}
}

// link writes a feed-level link; none when href is empty. href has passed
// checkAttribute.
// text writes one indented element holding text. attrs, a constant of this
// file, is written verbatim.
func (w *feedWriter) text(depth int, name, attrs, s string) {
	if w.err != nil {
		return
	}
	if err := checkText(s); err != nil {
		w.err = fmt.Errorf("%s: %w", name, err)
		return
	}
	w.buf.WriteString(strings.Repeat("  ", depth) + "<" + name + attrs + ">")
	writeText(&w.buf, s)
	w.buf.WriteString("</" + name + ">\n")
}

// typeHTML is the media type of an alternate link: a page for people.
const typeHTML = "text/html"

// link writes one indented link element, unless href is empty. href was
// checked by checkLink.
func (w *feedWriter) link(depth int, rel, typ, href string) {
	if href == "" {
		return
	}
	attrs := ` rel="` + rel + `"`
	if typ != "" {
		attrs += ` type="` + typ + `"`
	}
	w.raw(strings.Repeat("  ", depth) + "<link" + attrs + ` href="` + href + `"/>` + "\n")
}

func (w *feedWriter) entry(e Entry) error {
	if err := checkEntry(e); err != nil {
		return err
	}
	w.raw("  <entry>\n")
	w.text(2, "id", "", e.ID)
	w.text(2, "title", "", cmp.Or(e.Title, e.Type))
	w.link(2, "alternate", typeHTML, e.Link)
	w.text(2, "updated", "", e.Updated)
	w.text(2, "af:type", "", e.Type)
	if e.Summary != "" {
		w.text(2, "summary", "", e.Summary)
	}
	w.text(2, "content", ` type="application/json"`, string(e.Content))
	w.text(2, "af:sig", ` type="ed25519"`, e.Sig)
	if e.Signer != "" {
		w.text(2, "af:signer", "", e.Signer)
	}
	w.raw("  </entry>\n")
	return w.err
}

// writeText writes s raw when it holds none of "<", "&" and "]]>", and as
// CDATA otherwise, so the document never holds a reference: the reference
// reader refuses documents with more than 1,000 of them. A "]]>" inside s
// is split across two sections.
func writeText(buf *bytes.Buffer, s string) {
	if !strings.ContainsAny(s, "<&") && !strings.Contains(s, "]]>") {
		buf.WriteString(s)
		return
	}
	buf.WriteString("<![CDATA[")
	buf.WriteString(strings.ReplaceAll(s, "]]>", "]]]]><![CDATA[>"))
	buf.WriteString("]]>")
}

// checkText rejects text that XML 1.0 cannot carry unchanged: invalid UTF-8,
// characters outside the XML Char production, and carriage returns (every
// XML parser turns them into line feeds, and a reference would be needed to
// keep them).
func checkText(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("text is not valid UTF-8")
	}
	for i, r := range s {
		switch {
		case r == '\r':
			return fmt.Errorf("carriage return at byte %d (XML parsers turn it into a line feed)", i)
		case !isXMLChar(r):
			return fmt.Errorf("character %U at byte %d is not allowed in XML 1.0", r, i)
		}
	}
	return nil
}

// checkAttribute rejects what an attribute value could only carry escaped,
// and the white space characters that XML parsers replace with spaces.
func checkAttribute(s string) error {
	if err := checkText(s); err != nil {
		return err
	}
	for i, r := range s {
		if r == '"' || r == '<' || r == '&' || r < 0x20 || r == 0x7f {
			return fmt.Errorf("character %q at byte %d is not allowed in an attribute value", r, i)
		}
	}
	return nil
}

// isXMLChar reports whether r matches the Char production of XML 1.0.
func isXMLChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
