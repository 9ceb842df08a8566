package agentfeed

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/xml"
	"strconv"
	"testing"

	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/atom"
)

// interopFeed is the worked example plus an entry whose text needs CDATA,
// with the style sheet processing instruction a browser shows it by.
func interopFeed(t *testing.T) []byte {
	t.Helper()
	doc, err := Encode(interopFeedValue(t))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func interopFeedValue(t *testing.T) *Feed {
	t.Helper()
	f := exampleFeed(t)
	e, err := NewEntry(testSigner(), "urn:af:example.com:3", TypeDeprecation, "2026-06-01T00:00:00Z", `get_forecast <retired> & "gone"`,
		Deprecation{EndpointID: "com.example/weather#get_forecast", AnnouncedAt: "2026-06-01T00:00:00Z", Sunset: "2026-06-01T00:00:00Z", Reason: ptr(`"]]>" & <b>`)})
	if err != nil {
		t.Fatal(err)
	}
	f.Entries = append(f.Entries, e)
	f.Stylesheet = "/assets/feed.xsl"
	return f
}

// TestIndependentVerifier checks an encoded feed with nothing but
// encoding/xml, encoding/base64 and crypto/ed25519, as another
// implementation would: the signed bytes are the text of <content>.
func TestIndependentVerifier(t *testing.T) {
	doc := interopFeed(t)
	if !bytes.Contains(doc, []byte("\n<?xml-stylesheet type=\"text/xsl\" href=\"/assets/feed.xsl\"?>\n<feed ")) {
		t.Fatalf("no style sheet processing instruction before the root:\n%s", doc)
	}
	if n := verifyIndependently(t, doc); n != 3 {
		t.Fatalf("%d entries, want 3", n)
	}
}

// TestIndependentVerifierArchives checks the subscription document and each
// archive document of a paginated feed as TestIndependentVerifier does: each
// verifies on its own, and together they hold every entry once.
func TestIndependentVerifierArchives(t *testing.T) {
	sub, archives := paginate(interopFeedValue(t), 1, func(n int) string {
		return "https://example.com/.well-known/agent-feed/archive-" + strconv.Itoa(n) + ".xml"
	})
	if len(archives) != 2 {
		t.Fatalf("%d archives, want 2", len(archives))
	}
	total := 0
	for _, f := range append(archives, sub) {
		doc, err := Encode(f)
		if err != nil {
			t.Fatal(err)
		}
		total += verifyIndependently(t, doc)
	}
	if total != 3 {
		t.Errorf("%d entries across the documents, want 3", total)
	}
}

// verifyIndependently verifies every entry of a document with nothing but
// the standard library and returns how many it holds.
func verifyIndependently(t *testing.T, data []byte) int {
	t.Helper()
	var doc struct {
		XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
		Status  string   `xml:"https://agent-feed.dev/ns/v0 feed-status"`
		Entries []struct {
			ID      string `xml:"http://www.w3.org/2005/Atom id"`
			Content struct {
				Type string `xml:"type,attr"`
				Text []byte `xml:",chardata"`
			} `xml:"http://www.w3.org/2005/Atom content"`
			Sig struct {
				Type string `xml:"type,attr"`
				Text string `xml:",chardata"`
			} `xml:"https://agent-feed.dev/ns/v0 sig"`
			Signer string `xml:"https://agent-feed.dev/ns/v0 signer"`
		} `xml:"http://www.w3.org/2005/Atom entry"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Status != "active" {
		t.Fatalf("status %q, want active", doc.Status)
	}
	pub := testKey.Public().(ed25519.PublicKey)
	for _, e := range doc.Entries {
		if e.Content.Type != "application/json" || e.Sig.Type != "ed25519" || e.Signer != testKeyID {
			t.Errorf("entry %s: content type %q, sig type %q, signer %q", e.ID, e.Content.Type, e.Sig.Type, e.Signer)
		}
		sig, err := base64.RawURLEncoding.DecodeString(e.Sig.Text)
		if err != nil {
			t.Fatalf("entry %s: %v", e.ID, err)
		}
		if !ed25519.Verify(pub, e.Content.Text, sig) {
			t.Errorf("entry %s does not verify over %q", e.ID, e.Content.Text)
		}
	}
	return len(doc.Entries)
}

// TestGofeedReadsFeed parses an encoded feed with an independent Atom
// parser and checks the elements Atom requires, and that the content it
// sees is the signed text.
func TestGofeedReadsFeed(t *testing.T) {
	doc := interopFeed(t)
	universal, err := gofeed.NewParser().Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if universal.FeedType != "atom" || len(universal.Items) != 3 {
		t.Errorf("gofeed sees a %q feed with %d items, want atom with 3", universal.FeedType, len(universal.Items))
	}

	f, err := (&atom.Parser{}).Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if f.ID == "" || f.Title == "" || f.UpdatedParsed == nil || len(f.Authors) == 0 || f.Authors[0].Name == "" {
		t.Errorf("feed lacks an element Atom requires: id %q, title %q, updated %v, authors %v", f.ID, f.Title, f.UpdatedParsed, f.Authors)
	}
	if len(f.Links) != 2 || *f.Links[0] != (atom.Link{Rel: "self", Href: "https://example.com/.well-known/agent-feed.xml"}) ||
		*f.Links[1] != (atom.Link{Rel: "alternate", Type: "text/html", Href: "https://example.com/changelog/"}) {
		t.Errorf("links = %+v, want the self link and the changelog", f.Links)
	}
	if universal.Link != "https://example.com/changelog/" {
		t.Errorf("a feed reader links the feed to %q, want the changelog", universal.Link)
	}
	for i, item := range universal.Items {
		want := i < 2
		if (item.Link == "https://example.com/servers/weather/tools/get_forecast/") != want || (item.Title == item.Custom["type"]) {
			t.Errorf("item %d: title %q, link %q", i, item.Title, item.Link)
		}
	}
	pub := testKey.Public().(ed25519.PublicKey)
	for _, e := range f.Entries {
		if e.ID == "" || e.Title == "" || e.UpdatedParsed == nil {
			t.Errorf("entry lacks an element Atom requires: id %q, title %q, updated %v", e.ID, e.Title, e.UpdatedParsed)
		}
		if e.Content == nil || e.Content.Type != "application/json" {
			t.Fatalf("entry %s: content %+v, want application/json", e.ID, e.Content)
		}
		sigs := e.Extensions["af"]["sig"]
		if len(sigs) != 1 {
			t.Fatalf("entry %s: af:sig extensions %+v", e.ID, sigs)
		}
		sig, err := base64.RawURLEncoding.DecodeString(sigs[0].Value)
		if err != nil || !ed25519.Verify(pub, []byte(e.Content.Value), sig) {
			t.Errorf("entry %s: the content gofeed reads, %q, does not verify (%v)", e.ID, e.Content.Value, err)
		}
	}
}
