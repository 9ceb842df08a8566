package agentfeed

import (
	"reflect"
	"strings"
	"testing"
)

const (
	feedStart = `<feed xmlns="http://www.w3.org/2005/Atom" xmlns:af="https://agent-feed.dev/ns/v0">` + "\n"
	feedOpen  = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + feedStart
	feedClose = "</feed>\n"
	// minimalEntry has exactly the elements Decode requires.
	minimalEntry = `<entry><id>urn:af:x:1</id><af:type>deprecation</af:type><content type="application/json">{}</content><af:sig type="ed25519">c2ln</af:sig></entry>`
)

func TestDecodeRejects(t *testing.T) {
	example, err := Encode(exampleFeed(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, doc, want string }{
		{"empty", "", "no root element"},
		{"DOCTYPE with entity declaration", `<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>` + feedStart + `<title>&b;</title>` + feedClose, "DOCTYPE"},
		{"DOCTYPE alone", `<!DOCTYPE feed>` + feedStart + feedClose, "DOCTYPE"},
		{"truncated", string(example[:len(example)/2]), "document is truncated"},
		{"truncated after the root start", feedOpen, "document is truncated"},
		{"wrong root", `<?xml version="1.0"?><rss version="2.0"><channel/></rss>`, "root element is {}rss, want an Atom feed"},
		{"feed outside the Atom namespace", `<feed><id>x</id></feed>`, "root element is {}feed, want an Atom feed"},
		{"Latin-1 declared", `<?xml version="1.0" encoding="ISO-8859-1"?><feed xmlns="http://www.w3.org/2005/Atom"/>`, `"ISO-8859-1": agent-feed documents must be UTF-8`},
		{"UTF-16 declared", `<?xml version="1.0" encoding="UTF-16"?><feed xmlns="http://www.w3.org/2005/Atom"/>`, "must be UTF-8"},
		{"invalid UTF-8", feedOpen + "<title>\xff</title>" + feedClose, "invalid UTF-8"},
		{"undeclared entity", feedOpen + "<title>&nbsp;</title>" + feedClose, "malformed XML"},
		{"mismatched tags", feedOpen + "<title></id>" + feedClose, "malformed XML"},
		{"second root", feedOpen + feedClose + feedOpen + feedClose, "second root element"},
		{"text after root", feedOpen + feedClose + "x", "text after the root element"},
		{"text before root", "x" + feedStart + feedClose, "text before the root element"},
		{"repeated feed status", feedOpen + "<af:feed-status>active</af:feed-status><af:feed-status>terminated</af:feed-status>" + feedClose, "feed: 2 af:feed-status elements, want at most one"},
		{"entry without signature", feedOpen + minimalEntry + `<entry><id>urn:af:x:2</id><af:type>deprecation</af:type><content type="application/json">{}</content></entry>` + feedClose, "entry 2 (urn:af:x:2): missing af:sig"},
		{"entry without id", feedOpen + `<entry><af:type>deprecation</af:type></entry>` + feedClose, "entry 1 (no id): missing id"},
		{"entry without type", feedOpen + strings.Replace(minimalEntry, "<af:type>deprecation</af:type>", "", 1) + feedClose, "entry 1 (urn:af:x:1): missing af:type"},
		{"entry without content", feedOpen + strings.Replace(minimalEntry, `<content type="application/json">{}</content>`, "", 1) + feedClose, "missing content"},
		{"content of another type", feedOpen + strings.Replace(minimalEntry, `type="application/json"`, `type="text"`, 1) + feedClose, `content type "text", want application/json`},
		{"base64 content", feedOpen + strings.Replace(minimalEntry, `type="application/json">{}`, `type="application/octet-stream">e30=`, 1) + feedClose, "want application/json"},
		{"signature of another algorithm", feedOpen + strings.Replace(minimalEntry, `type="ed25519"`, `type="rsa"`, 1) + feedClose, `af:sig type "rsa", want ed25519`},
		{"repeated content", feedOpen + strings.Replace(minimalEntry, "</entry>", `<content type="application/json">{"a":1}</content></entry>`, 1) + feedClose, "entry 1 (urn:af:x:1): 2 content elements"},
		{"repeated signer", feedOpen + strings.Replace(minimalEntry, "</entry>", `<af:signer>a</af:signer><af:signer>b</af:signer></entry>`, 1) + feedClose, "2 af:signer elements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Decode([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Decode = %+v, %v; want error containing %q", f, err, tc.want)
			}
		})
	}
}

func TestDecodeMatchesNamespaceByURI(t *testing.T) {
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<a:feed xmlns:a="http://www.w3.org/2005/Atom" xmlns:x="https://agent-feed.dev/ns/v0" xmlns:af="urn:not-agent-feed">
  <a:id>did:web:example.com</a:id>
  <af:feed-status>terminated</af:feed-status>
  <x:feed-status>active</x:feed-status>
  <x:spec-version>0</x:spec-version>
  <a:entry>
    <a:id>urn:af:x:1</a:id>
    <af:type>not-this</af:type>
    <x:type>deprecation</x:type>
    <a:content type="application/json">{}</a:content>
    <x:sig type="ed25519">c2ln</x:sig>
  </a:entry>
</a:feed>
`
	f, err := Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != StatusActive || f.SpecVersion != "0" {
		t.Errorf("status %q, spec version %q; want active and 0 from the x: elements", f.Status, f.SpecVersion)
	}
	if len(f.Entries) != 1 || f.Entries[0].Type != TypeDeprecation || f.Entries[0].Sig != "c2ln" {
		t.Errorf("entries = %+v, want one deprecation read through the x: prefix", f.Entries)
	}
}

func TestDecodeKeepsContentVerbatim(t *testing.T) {
	for _, tc := range []struct{ name, written, want string }{
		{"entity-escaped, as the reference writes", `{&quot;a&quot;:&quot;&lt;&amp;&gt;&apos;&quot;}`, `{"a":"<&>'"}`},
		{"character references", `{&#34;a&#34;:&#x22;b&#x22;}`, `{"a":"b"}`},
		{"CDATA", `<![CDATA[{"a":"<&>"}]]>`, `{"a":"<&>"}`},
		{"split CDATA", `<![CDATA[{"a":"]]]]><![CDATA[>"}]]>`, `{"a":"]]>"}`},
		{"CDATA mixed with text", `{"a":<![CDATA["<"]]>}`, `{"a":"<"}`},
		{"surrounding white space", "\n  {}\n  ", "\n  {}\n  "},
		{"non-canonical JSON", `{ "b":1, "a":2 }`, `{ "b":1, "a":2 }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entry := strings.Replace(minimalEntry, `type="application/json">{}<`, `type="application/json">`+tc.written+`<`, 1)
			f, err := Decode([]byte(feedOpen + entry + feedClose))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(f.Entries[0].Content); got != tc.want {
				t.Errorf("Content = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDecodeIgnoresUnknownElementsAndKeepsUnknownValues(t *testing.T) {
	doc := feedOpen + `
  <af:spec-version>1</af:spec-version>
  <af:feed-status>paused</af:feed-status>
  <af:future>x</af:future>
  <generator>other</generator>
  <link rel="alternate" href="https://example.com/"/>
  <link rel="self" href="https://example.com/feed.xml"/>
  <entry>
    <id>urn:af:x:1</id>
    <category term="c"/>
    <af:type>future-type</af:type>
    <af:future>y</af:future>
    <content type="application/json">{}</content>
    <af:sig type="ed25519">c2ln</af:sig>
  </entry>
` + feedClose
	f, err := Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := &Feed{
		SpecVersion: "1",
		Status:      "paused",
		SelfURL:     "https://example.com/feed.xml",
		Entries:     []Entry{{ID: "urn:af:x:1", Type: "future-type", Content: []byte("{}"), Sig: "c2ln"}},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("Decode = %+v, want %+v", f, want)
	}
}
