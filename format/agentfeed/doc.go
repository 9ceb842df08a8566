// Package agentfeed reads and writes agent-feed v0 documents: a signed Atom
// feed of changes to an origin's endpoints (an MCP server, its tools, an
// agent), served at /.well-known/agent-feed.xml, and the signed snapshot of
// the state the feed leads to.
//
// This comment is the format's specification as wellknown writes and reads
// it. It follows agent-feed v0 (namespace https://agent-feed.dev/ns/v0) and
// stays interoperable with its reference implementation; where the two
// differ, it says so.
//
// # Document
//
// A feed is an XML 1.0 document in UTF-8 with no DOCTYPE, served as
// application/atom+xml; charset=utf-8. Atom (http://www.w3.org/2005/Atom)
// is the default namespace; the agent-feed namespace is bound to the prefix
// af. Readers match elements by namespace URI, but writers must use the
// prefix af because the reference reader matches the literal prefix.
//
// The feed's children, in this order:
//
//	id                 the site's DID, e.g. did:web:example.com
//	title              a human title
//	updated            RFC 3339; the newest entry's time, never the clock
//	author/name        required by Atom
//	link rel="self"    href is the feed's own URL (may be omitted)
//	link rel="alternate" type="text/html"
//	                   href is the page showing the feed to people, a
//	                   changelog (may be omitted)
//	link rel="current" in an archive: the subscription document's URL
//	link rel="prev-archive"
//	                   the archive of the entries before these, if any
//	fh:archive         marks an archive document (see Archives)
//	af:spec-version    0
//	af:feed-status     active | terminated | migrated
//	af:migrated-to     the new feed URL: present exactly when the status is
//	                   migrated, and before the first entry
//	entry*             document order is the order of application
//
// Each entry's children, in this order:
//
//	id                               a stable URN (see Entry ids)
//	title                            one human line for feed readers
//	                                 ("get_me 2.0.0: parameter `reason`
//	                                 removed (breaking)"); the entry type
//	                                 when the writer has none
//	link rel="alternate"             href is the page of the endpoint the
//	  type="text/html"               entry is about (may be omitted)
//	updated                          RFC 3339: when the fact became true; not
//	                                 signed, never used for ordering
//	af:type                          endpoint-announcement | schema-change |
//	                                 deprecation
//	summary                          one human line (may be omitted)
//	content type="application/json"  the payload, inline (see Signatures)
//	af:sig type="ed25519"            the signature
//	af:signer                        the DID URL of the signing key, e.g.
//	                                 did:web:example.com#key-1
//
// Output is indented by two spaces per level, with LF line endings and a
// final newline, and depends on nothing but the Feed: the same feed always
// encodes to the same bytes.
//
// # Payloads
//
// A payload is a flat JSON object with kebab-case keys whose values are
// strings or null, plus the migration object of a schema change. Keys
// starting with x- are wellknown's extensions: readers carry them and do
// not act on them. Versions are opaque labels; times are RFC 3339 in UTC.
//
//	endpoint-announcement  endpoint-id, endpoint (URL), protocol, version,
//	                       asserted-at; x-schema-sha256, x-tools
//	schema-change          endpoint-id, from-version, to-version,
//	                       effective-at, migration; x-compat,
//	                       x-schema-sha256
//	deprecation            endpoint-id, announced-at, sunset,
//	                       replacement (an endpoint id, or null),
//	                       reason (or null)
//
// The migration object is always present, {} when empty. Its members are
// optional: add and remove (arrays of RFC 6901 JSON Pointers), rename (old
// pointer to new pointer) and retype (pointer to {"from", "to"} with the
// tokens string, number, boolean, null, object, array or nullable<T>).
// x-compat is breaking, compatible or cosmetic. x-schema-sha256 is the hex
// SHA-256 of the RFC 8785 form of the tool object at that version.
// x-tools, on a server's release, lists the tool versions it ships as
// space-separated name@version pairs sorted by name.
//
// # Signatures
//
// The signed bytes are the payload's canonical JSON (RFC 8785, JCS), and
// they are exactly the text of the content element after XML parsing:
// nothing else in the document is signed. The signature is pure Ed25519
// (RFC 8032), 64 bytes, written in af:sig as base64url without padding.
// A verifier checks the literal content text and never a re-canonicalised
// copy; only then does it parse the JSON. The key is the did.json
// verification method that af:signer names, or, when an entry has no
// af:signer, the first Ed25519VerificationKey2020 (the reference uses
// verificationMethod[0] and ignores af:signer, so a publisher puts its
// current key first).
//
// # Escaping
//
// The reference reader refuses documents with more than 1,000 entity or
// character references, and encoding/xml would write &#34; for every quote
// in a payload. So text is written raw when it contains none of "<", "&"
// and "]]>", and as a CDATA section otherwise, splitting any "]]>" across
// two sections; a written document holds no references at all:
//
//	<summary><![CDATA[units: "metric" & <imperial>]]></summary>
//	<summary><![CDATA[a]]]]><![CDATA[>b]]></summary>     (the text a]]>b)
//
// Attribute values cannot use CDATA, so a link containing a quote,
// "<", "&" or a control character is an error, not escaped. Text that XML
// 1.0 cannot carry (invalid UTF-8, U+FFFE, U+FFFF, C0 controls other than
// tab and line feed) is an error, and so is a carriage return, which every
// XML parser would turn into a line feed. Readers must accept
// entity-escaped text too: the reference writes content as {&quot;...
//
// # Deviation from RFC 4287
//
// RFC 4287 §4.1.3.3 requires content whose type is neither text nor XML
// to be base64. agent-feed deliberately puts the JSON inline as text,
// because signatures cover the literal text and the reference verifies
// exactly that; base64 would break every existing reader. Feed validators
// report this as NotBase64. Everything else Atom requires is present:
// feed id, title, updated and author; entry id, title, updated, and a
// summary where a publisher supplies one.
//
// # Entry ids
//
// An entry id is urn:af:<host>:<type>:<hash>, where hash is the first 16
// hex digits of the SHA-256 of the entry type, the endpoint id and a key
// (a version, a deprecation date) joined by NUL bytes. It never derives
// from a commit hash or the clock, so rebuilding or rebasing the same
// history yields the same ids. A published entry never changes its
// payload and never disappears.
//
// # Archives
//
// A long history is split as RFC 5005 §4 archived feeds (Archives): the
// subscription document keeps the newest 1 to page-size entries and links
// rel="prev-archive" to the newest archive document; archive n holds
// entries (n-1)·size+1 to n·size, oldest first, links to archive n-1 and to
// the subscription document (rel="current"), and carries <fh:archive/> in
// the namespace http://purl.org/syndication/history/1.0 (bound to fh, on
// archives only). No archive links to the next one, so a full archive's
// bytes stay the same as the history grows. Document order across the
// chain, oldest archive first and the subscription document last, is the
// order of application. Signatures cover content only, so an entry may
// move between documents (after a change of page size) without being
// re-signed.
//
// # Reading
//
// Decode refuses a DOCTYPE (and with it entity declarations), any encoding
// but UTF-8, a root other than Atom's feed, and an entry without id,
// af:type, content of type application/json or af:sig of type ed25519;
// errors name the entry by position and id. It keeps unknown feed statuses
// and spec versions verbatim and ignores unknown elements. The reader
// contract, for the caller: treat a spec version above 0 or an unknown
// status as terminated; apply nothing from a terminated feed and follow
// af:migrated-to from a migrated one; verify each entry and skip those
// that fail; then apply the rest in document order (State.ApplyAll), which
// passes over entries of unknown types, deprecations of unknown endpoints
// and repeated ids, reporting a repeated id whose content differs.
//
// # Snapshot
//
// The snapshot is the current state, derived by replaying the feed:
//
//	{
//	  "id": "did:web:example.com",
//	  "spec-version": 0,
//	  "generated-at": "<the newest entry's time>",
//	  "endpoints": [{"endpoint-id", "endpoint", "protocol", "version",
//	                 "deprecated": null or {"sunset", "replacement"?}}, ...],
//	  "by-protocol": {"<protocol>": "<endpoint id announced last>"},
//	  "feed-status": "active",
//	  "signature": {"algorithm": "ed25519", "value": "<base64url>"}
//	}
//
// The signature covers the canonical JSON of the document without the
// signature member. Endpoints are listed in the order they first
// appeared.
//
// # Example
//
// The key is the Ed25519 key with the 32-byte seed 01 01 … 01, published in
// did.json as publicKeyMultibase uiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w
// under the id did:web:example.com#key-1. The tool get_forecast of the MCP
// server com.example/weather appears at 1.0.0 and gains an optional input
// at 1.1.0. The first entry signs these 164 bytes:
//
//	{"asserted-at":"2026-04-27T12:00:00Z","endpoint":"https://example.com/mcp","endpoint-id":"com.example/weather#get_forecast","protocol":"mcp-tool","version":"1.0.0"}
//
// and the feed is:
//
//	<?xml version="1.0" encoding="UTF-8"?>
//	<feed xmlns="http://www.w3.org/2005/Atom" xmlns:af="https://agent-feed.dev/ns/v0">
//	  <id>did:web:example.com</id>
//	  <title>example.com agent feed</title>
//	  <updated>2026-05-02T09:30:00Z</updated>
//	  <author>
//	    <name>Example Weather</name>
//	  </author>
//	  <link rel="self" href="https://example.com/.well-known/agent-feed.xml"/>
//	  <link rel="alternate" type="text/html" href="https://example.com/changelog/"/>
//	  <af:spec-version>0</af:spec-version>
//	  <af:feed-status>active</af:feed-status>
//	  <entry>
//	    <id>urn:af:example.com:endpoint-announcement:19b2a40daa004028</id>
//	    <title>get_forecast 1.0.0 published</title>
//	    <link rel="alternate" type="text/html" href="https://example.com/servers/weather/tools/get_forecast/"/>
//	    <updated>2026-04-27T12:00:00Z</updated>
//	    <af:type>endpoint-announcement</af:type>
//	    <summary>get_forecast 1.0.0</summary>
//	    <content type="application/json">{"asserted-at":"2026-04-27T12:00:00Z","endpoint":"https://example.com/mcp","endpoint-id":"com.example/weather#get_forecast","protocol":"mcp-tool","version":"1.0.0"}</content>
//	    <af:sig type="ed25519">ySAdVzKyCxgX2TnPPxiaBLmUfdLXiiGMmlH9FHGsZ8WLZXItFxiCzUKIXAhYXsgyKbHst9lQChQbL_PoKTGWBA</af:sig>
//	    <af:signer>did:web:example.com#key-1</af:signer>
//	  </entry>
//	  <entry>
//	    <id>urn:af:example.com:schema-change:e33947fca9527ffa</id>
//	    <title>get_forecast 1.1.0: new optional input units (compatible)</title>
//	    <link rel="alternate" type="text/html" href="https://example.com/servers/weather/tools/get_forecast/"/>
//	    <updated>2026-05-02T09:30:00Z</updated>
//	    <af:type>schema-change</af:type>
//	    <summary>get_forecast 1.0.0 → 1.1.0: new optional input units</summary>
//	    <content type="application/json">{"effective-at":"2026-05-02T09:30:00Z","endpoint-id":"com.example/weather#get_forecast","from-version":"1.0.0","migration":{"add":["/inputSchema/properties/units"]},"to-version":"1.1.0","x-compat":"compatible"}</content>
//	    <af:sig type="ed25519">s7WZCBkV5fOHFZZhFvVXqaXYRRNgbk6-VCw9tP-pRG3SpoPKwfOvNReZ5UXlmjfWkRue1wIB_eHfnjuIVvUqAw</af:sig>
//	    <af:signer>did:web:example.com#key-1</af:signer>
//	  </entry>
//	</feed>
package agentfeed
