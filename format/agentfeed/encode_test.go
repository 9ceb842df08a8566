package agentfeed

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// countReferences counts the entity and character references and the CDATA
// sections of an XML document: outside CDATA sections every "&" starts a
// reference.
func countReferences(doc []byte) (refs, sections int) {
	for {
		start := bytes.Index(doc, []byte("<![CDATA["))
		if start < 0 {
			return refs + bytes.Count(doc, []byte("&")), sections
		}
		refs += bytes.Count(doc[:start], []byte("&"))
		end := bytes.Index(doc[start:], []byte("]]>"))
		if end < 0 {
			return refs, sections // an unterminated section; Decode reports it
		}
		sections++
		doc = doc[start+end+len("]]>"):]
	}
}

func TestRoundTrip(t *testing.T) {
	tricky := exampleFeed(t)
	tricky.Title = `"quoted" <title> & ]]> ünïcødé`
	tricky.Entries[0].Summary = "a]]>b]]]>c<&>\t\n\"'"
	tricky.Entries[0].Title = "get_forecast 2.0.0: parameter `a<b & \"c\"` removed ]]> (breaking)"
	tricky.Entries[1].Link = ""
	tricky.Entries[1].Summary = ""
	tricky.Entries[1].Signer = ""

	migrated := exampleFeed(t)
	migrated.Status = StatusMigrated
	migrated.MigratedTo = "https://new.example/.well-known/agent-feed.xml"

	empty := exampleFeed(t)
	empty.Entries = nil
	empty.SelfURL = ""
	empty.AlternateURL = ""
	empty.Status = StatusTerminated

	for name, f := range map[string]*Feed{"example": exampleFeed(t), "tricky text": tricky, "migrated": migrated, "empty": empty} {
		t.Run(name, func(t *testing.T) {
			doc, err := Encode(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(doc)
			if err != nil {
				t.Fatalf("Decode: %v\n%s", err, doc)
			}
			if !reflect.DeepEqual(got, f) {
				t.Errorf("Decode(Encode(f)) differs\n got %+v\nwant %+v", got, f)
			}
			for _, e := range got.Entries {
				if err := e.Verify(testVerifier()); err != nil {
					t.Error(err)
				}
			}
			again, err := Encode(got)
			if err != nil || !bytes.Equal(again, doc) {
				t.Errorf("re-encoding the decoded feed gives other bytes (err %v)", err)
			}
			if n, _ := countReferences(doc); n != 0 {
				t.Errorf("document holds %d references, want none", n)
			}
		})
	}
}

func TestEncodeLayout(t *testing.T) {
	f := exampleFeed(t)
	f.Status = StatusMigrated
	f.MigratedTo = "https://new.example/.well-known/agent-feed.xml"
	f.Entries[1].Summary = ""
	f.Entries[1].Signer = ""
	f.Entries[1].Title = ""
	f.Entries[1].Link = ""
	doc, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	if !strings.HasPrefix(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:af=\"https://agent-feed.dev/ns/v0\">\n") {
		t.Errorf("document does not start with the declaration and the feed element:\n%s", s)
	}
	if !strings.HasSuffix(s, "</feed>\n") || strings.Contains(s, "\r") {
		t.Error("document does not end in </feed> and one LF, or holds a CR")
	}
	inOrder(t, s, "<id>", "<title>", "<updated>", "<author>", "<name>", "<link rel=\"self\"", `<link rel="alternate" type="text/html" href="https://example.com/changelog/"/>`, "<af:spec-version>0<", "<af:feed-status>migrated<", "<af:migrated-to>https://new.example/", "<entry>")
	first, second, _ := strings.Cut(s[strings.Index(s, "<entry>"):], "</entry>")
	inOrder(t, first, "<id>", "<title>get_forecast 1.0.0 published<", `<link rel="alternate" type="text/html" href="https://example.com/servers/weather/tools/get_forecast/"/>`, "<updated>", "<af:type>", "<summary>", "<content type=\"application/json\">", "<af:sig type=\"ed25519\">", "<af:signer>")
	if strings.Contains(second, "<summary>") || strings.Contains(second, "<af:signer>") || strings.Contains(second, "<link") {
		t.Errorf("empty summary, signer or link written:\n%s", second)
	}
	if !strings.Contains(second, "<title>schema-change</title>") {
		t.Errorf("an entry without a title is not titled by its type:\n%s", second)
	}
	if n := strings.Count(s, "<af:migrated-to>"); n != 1 {
		t.Errorf("%d af:migrated-to elements, want 1", n)
	}
}

// inOrder checks that each of the strings occurs in s after the previous one.
func inOrder(t *testing.T, s string, parts ...string) {
	t.Helper()
	at := 0
	for _, p := range parts {
		i := strings.Index(s[at:], p)
		if i < 0 {
			t.Errorf("%q missing or out of order in\n%s", p, s)
			return
		}
		at += i + len(p)
	}
}

func TestEncodeRejects(t *testing.T) {
	unsafeContent, err := NewEntry(testSigner(), "urn:af:x:9", TypeAnnouncement, "2026-01-01T00:00:00Z", "", Announcement{EndpointID: "e\uFFFF"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*Feed)
		want   string
	}{
		{"no id", func(f *Feed) { f.ID = "" }, "feed has no id"},
		{"no title", func(f *Feed) { f.Title = "" }, "has no title"},
		{"no author", func(f *Feed) { f.AuthorName = "" }, "no author name"},
		{"bad updated", func(f *Feed) { f.Updated = "yesterday" }, `updated: "yesterday" is not an RFC 3339 time`},
		{"other spec version", func(f *Feed) { f.SpecVersion = "1" }, `spec version "1"`},
		{"unknown status", func(f *Feed) { f.Status = "paused" }, `unknown feed status "paused"`},
		{"empty status", func(f *Feed) { f.Status = "" }, `unknown feed status ""`},
		{"migrated without URL", func(f *Feed) { f.Status = StatusMigrated }, "migrated but has no migrated-to URL"},
		{"migrated-to while active", func(f *Feed) { f.MigratedTo = "https://new.example/f.xml" }, "has migrated-to"},
		{"relative migrated-to", func(f *Feed) { f.Status, f.MigratedTo = StatusMigrated, "/f.xml" }, "not an absolute URL"},
		{"quote in self link", func(f *Feed) { f.SelfURL = `https://x/"a"` }, "not allowed in an attribute value"},
		{"ampersand in self link", func(f *Feed) { f.SelfURL = "https://x/?a=1&b=2" }, "not allowed in an attribute value"},
		{"angle bracket in self link", func(f *Feed) { f.SelfURL = "https://x/<a>" }, "not allowed in an attribute value"},
		{"tab in self link", func(f *Feed) { f.SelfURL = "https://x/\ta" }, "not allowed in an attribute value"},
		{"relative self link", func(f *Feed) { f.SelfURL = "feed.xml" }, "not an absolute URL"},
		{"processing instruction's end in style sheet", func(f *Feed) { f.Stylesheet = "/a.xsl?><x" }, `style sheet "/a.xsl?><x" is not a plain URL path`},
		{"quote in style sheet", func(f *Feed) { f.Stylesheet = `/a".xsl` }, "is not a plain URL path"},
		{"relative alternate link", func(f *Feed) { f.AlternateURL = "changelog/" }, "alternate link: \"changelog/\" is not an absolute URL"},
		{"quote in an entry's link", func(f *Feed) { f.Entries[1].Link = `https://x/"a"` }, "entry 2 (urn:af:example.com:schema-change:e33947fca9527ffa): alternate link: character '\"'"},
		{"relative entry link", func(f *Feed) { f.Entries[0].Link = "servers/x/" }, "entry 1 (urn:af:example.com:endpoint-announcement:19b2a40daa004028): alternate link: \"servers/x/\" is not an absolute URL"},
		{"control character in an entry's title", func(f *Feed) { f.Entries[0].Title = "a\x01" }, "title: character U+0001"},
		{"control character in title", func(f *Feed) { f.Title = "a\x01b" }, "title: character U+0001 at byte 1 is not allowed in XML 1.0"},
		{"carriage return in title", func(f *Feed) { f.Title = "a\r\nb" }, "title: carriage return"},
		{"U+FFFE in summary", func(f *Feed) { f.Entries[1].Summary = "\uFFFE" }, "entry 2 (urn:af:example.com:schema-change:e33947fca9527ffa): summary: character U+FFFE"},
		{"invalid UTF-8 in author", func(f *Feed) { f.AuthorName = "\xff" }, "name: text is not valid UTF-8"},
		{"non-character in content", func(f *Feed) { f.Entries = append(f.Entries, unsafeContent) }, "entry 3 (urn:af:x:9): content: character U+FFFF"},
		{"entry without id", func(f *Feed) { f.Entries[0].ID = "" }, "entry 1 (no id): missing id"},
		{"entry without type", func(f *Feed) { f.Entries[0].Type = "" }, "missing type"},
		{"content not JSON", func(f *Feed) { f.Entries[0].Content = []byte("{") }, "content is not valid JSON"},
		{"entry updated not RFC 3339", func(f *Feed) { f.Entries[0].Updated = "" }, `updated: "" is not an RFC 3339 time`},
		{"malformed signature", func(f *Feed) { f.Entries[0].Sig = "abc" }, "signature is 2 bytes, want 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := exampleFeed(t)
			tc.mutate(f)
			doc, err := Encode(f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Encode = %v, want error containing %q\n%s", err, tc.want, doc)
			}
		})
	}
}

// TestLargeFeedWithHostileText builds 10,000 entries whose payloads and
// summaries hold quotes, "<", "&", "]]>" and non-ASCII: the reference reader
// gives up after 1,000 references, so the document must hold none, and it
// must still decode to the same entries, each of which verifies.
func TestLargeFeedWithHostileText(t *testing.T) {
	const n = 10000
	f := exampleFeed(t)
	f.Entries = make([]Entry, 0, n)
	for i := range n {
		hostile := fmt.Sprintf(`"%d" <b>&amp; ]]> ]]]]> Grüße 日本 🙂 '%d'`, i, i)
		var typ string
		var payload any
		switch i % 3 {
		case 0:
			typ, payload = TypeAnnouncement, Announcement{EndpointID: fmt.Sprintf("com.example/s#t_%d", i), Endpoint: "https://example.com/mcp?a=1&b=<2>", Protocol: "mcp-tool", Version: hostile, AssertedAt: "2026-01-01T00:00:00Z"}
		case 1:
			typ, payload = TypeSchemaChange, SchemaChange{EndpointID: hostile, FromVersion: "1", ToVersion: "2", EffectiveAt: "t"}
		default:
			typ, payload = TypeDeprecation, Deprecation{EndpointID: "e", AnnouncedAt: "a", Sunset: "s", Reason: ptr(hostile)}
		}
		e, err := NewEntry(testSigner(), fmt.Sprintf("urn:af:example.com:%d", i), typ, "2026-01-01T00:00:00Z", "summary "+hostile, payload)
		if err != nil {
			t.Fatal(err)
		}
		e.Title, e.Link = "title "+hostile, fmt.Sprintf("https://example.com/servers/s/tools/t_%d/", i)
		f.Entries = append(f.Entries, e)
	}
	doc, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if hint := sizeHint(f); hint < len(doc) || hint > len(doc)*3/2 {
		t.Errorf("size hint %d for a document of %d bytes: the buffer grows, or is much too large", hint, len(doc))
	}
	refs, sections := countReferences(doc)
	if refs != 0 {
		t.Fatalf("document holds %d references, want none", refs)
	}
	if sections < 3*n {
		t.Errorf("document holds %d CDATA sections, want at least one per title, summary and content (%d)", sections, 3*n)
	}
	got, err := Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != n {
		t.Fatalf("decoded %d entries, want %d", len(got.Entries), n)
	}
	v := testVerifier()
	for i, e := range got.Entries {
		if !reflect.DeepEqual(e, f.Entries[i]) {
			t.Fatalf("entry %d decodes as %+v, want %+v", i, e, f.Entries[i])
		}
		if err := e.Verify(v); err != nil {
			t.Fatal(err)
		}
	}
}
