// Package verify holds a published site to the agent-feed reader contract
// (spec v0) and checks the rest of its discovery bundle. It reads a built
// directory or a live origin and reports every problem it finds as a
// Finding; it never stops at the first one. It is stricter than the
// reference reader, which skips several of the checks below.
//
// # Targets
//
// A target is a directory (a built site) or an origin URL. An origin must
// be https; plain http is accepted only for this machine (localhost and
// loopback addresses), so that a local preview can be verified. The origin
// may have a path: the site's files then live under it.
//
// A directory holds the files of the site's root. Its URL (needed for the
// DID and for the absolute URLs the documents hold) is Options.Base, or else
// the feed's self link minus /.well-known/agent-feed.xml. Only URLs on the
// site's own origin are read from the directory; a directory has no HTTP,
// so the HTTP checks below apply to live origins only.
//
// # The reader contract
//
// In this order, for one origin:
//
//  1. Identity. The DID is did:web of the origin (a port written %3A<port>),
//     or Options.DID, which exists for testing mirrors of another origin.
//     The DID document (/.well-known/did.json, or /did.json under a path)
//     must have exactly that id. Its keys are the verification methods of
//     type Ed25519VerificationKey2020 or Multikey whose publicKeyMultibase
//     is "u" + base64url of the raw key (the reference form) or "z6Mk…"
//     (base58btc of 0xed01 + key); others are ignored, and a malformed one
//     is a warning. Without a usable key nothing in the feed can be trusted.
//  2. The feed (/.well-known/agent-feed.xml) must decode: UTF-8, no DOCTYPE
//     (so no entity expansion), every entry complete. Its rel="prev-archive"
//     link is followed (RFC 5005 §4), from archive to archive, and the
//     archived entries come before the feed's own, oldest archive first:
//     from here on "the feed" is that whole history, each entry's findings
//     naming the document it was read from. Each archive is capped like the
//     feed and must decode the same way. A link off the origin, to a
//     document already read (a circle), past Options.MaxArchives documents
//     (DefaultMaxArchives) or to a missing archive is an error
//     (archive-chain, or not-found), and the chain is not followed further;
//     an archive without the fh:archive marker is a warning.
//  3. af:spec-version above 0, or an af:feed-status other than active,
//     terminated and migrated, is treated as terminated. A terminated feed
//     carries no trust. A migrated one carries none for this origin either;
//     with Options.Follow the origin of af:migrated-to is verified next,
//     from scratch, at most MaxFollow times, and the migration is then a
//     warning instead of a failure.
//  4. Every entry is verified over the literal text of its content, under
//     the key its af:signer names, or else the first usable key. Each entry
//     that fails is reported by id, and the others are still checked.
//  5. The verified entries are replayed in document order (agentfeed.State.Apply).
//     An entry of an unknown type is skipped and reported as a warning, not
//     a failure; a malformed payload, or an id repeated with other content,
//     is a failure.
//  6. Stricter than the contract, since a signature covers the payload and
//     nothing else, so that anyone serving the feed can copy, reorder and
//     relabel signed payloads: a payload whose keys are those of another
//     type than its af:type (type-mismatch), a payload applied before under
//     another id (duplicate-payload), and a schema-change whose from-version
//     is not the endpoint's current version (from-version-mismatch) are
//     failures, and the entry is not applied. An entry repeated whole (same
//     id, same payload) is passed over, as the contract says.
//
// # State between runs
//
// With Options.StatePath, a JSON file remembers, per origin, the id and
// payload text of every entry applied so far, and whether trust was
// revoked:
//
//	{
//	  "version": 1,
//	  "origins": {
//	    "https://example.com/": {
//	      "revoked": "feed-terminated",
//	      "applied": {"urn:af:example.com:…": "{\"asserted-at\":…}"},
//	      "versions": {"com.example/weather#forecast": "2.0.0"}
//	    }
//	  }
//	}
//
// A known id whose payload differs is a replay-mismatch (a failure; the
// entry is not applied). A new id with a payload applied before under
// another id is a duplicate-payload, and a new schema-change whose
// from-version is not the version the applied entries left its endpoint at
// is a from-version-mismatch (both failures; versions remembers those). A
// known id that is no longer in the feed, and an endpoint that replays to
// another version than the one remembered, is a rollback: an older bundle
// is genuinely signed, so serving it again is how a version is taken back.
// Options.AllowRollback makes it a warning and forgets what is gone. A feed seen terminated or migrated revokes trust in its origin,
// and a later run that finds it active again does not restore it: that
// takes an operator's decision, Options.ResetTrust (or deleting the origin
// from the file). Applied state is deleted only with AllowRollback. Entries are recorded only
// while the origin is trusted. An unknown status or spec version makes a
// run distrust the feed without revoking trust in the file, since a newer
// reader may understand it.
//
// # The rest of the bundle
//
//   - The snapshot (/.well-known/agent-feed-snapshot.json when the A2A Agent
//     Card holds /.well-known/agent-card.json, else the latter) must carry a
//     signature by one of the origin's keys, and its id, feed-status,
//     endpoints and by-protocol must equal what the feed replays to. A site
//     without one gets a warning.
//   - The AI Catalog (/.well-known/ai-catalog.json; a warning when absent)
//     and every card it lists, the AI Card discovery document and the cards
//     it points to, mcp-servers.json, the Server Card alias, the EDP entity
//     card and the A2A Agent Card must pass the checks of package cards. A
//     listed URL on this origin must resolve; one elsewhere is not read
//     (a warning).
//   - Every Server Card must agree with the replayed feed: the feed announced
//     the server, at the card's version, at one of the card's remotes.
//   - Every MCP entry of the EDP entity card gets its level (Origin.EDP):
//     1 for the business's claim, 2 when its verification carries a
//     provider's JWT that passes the checks of package attestation with
//     the provider's key (Options.ProviderKeys) and has not expired.
//     Without the key the claims are checked, the entry stays at level 1,
//     and a warning says so; an attestation that expires within 30 days is
//     a warning.
//   - Every verified entry with x-schema-sha256 binds an archived tool
//     version: the SHA-256 of the RFC 8785 form of
//     /.well-known/mcp/schemas/<server-slug>/<tool>/<version>.json must
//     equal it. The endpoint id is "<server name>#<tool>"; the slug comes
//     from the card's URL (/mcp/<slug>/server-card.json) or its catalog
//     identifier (urn:air:<host>:mcp:<slug>), else it is the part of the
//     server name after "/".
//
// # HTTP
//
// On a live origin, every document must answer 200 with its content type
// (a generic one such as application/json for a Server Card is a warning),
// Access-Control-Allow-Origin: *, and, when it has an ETag, 304 to a request
// with If-None-Match set to it. The feed and the DID document should have an
// ETag (a warning). Cache-Control should give a max-age within ten times of
// the build's: 300 s for the feed and the DID document, a year for feed
// archives and archived schemas, an hour for the rest (a warning). A host that cannot set headers (GitHub Pages, known by
// its Server header) gets warnings instead of failures for content type,
// CORS and revalidation.
//
// Every request has a timeout (DefaultTimeout), every document a size cap
// (DefaultMaxBytes), and at most MaxRedirects redirects are followed; a
// redirect must stay on https, or on this machine when it started there.
// The documents a listing points to (the catalog's cards, the AI Card
// discovery document's, the archived schemas) are read MaxConcurrent at a
// time, and the whole run has a deadline (DefaultDeadline): what it leaves
// unread is named in one deadline finding, and a DIR is read only through
// regular files (a named pipe or a device is refused, never opened).
//
// # Findings
//
// A Finding has a severity (error fails the run, warning does not), a code,
// the document (its path on the origin, or its URL elsewhere), the entry id
// when one is concerned, a message and sometimes a hint. The codes:
//
//	did-mismatch            the DID document's id is not the origin's DID
//	did-malformed           the DID document is not a JSON object with an id, or
//	                        reads two ways (a key twice, a method id twice)
//	key-unresolvable        the DID document has no usable Ed25519 key
//	key-unusable            one verification method could not be read (warning)
//	feed-malformed          the feed, or one of its archives, does not decode
//	archive-chain           a prev-archive link off the origin, in a circle or
//	                        past the limit; no fh:archive marker (warning)
//	feed-id                 the feed's id is another DID (warning)
//	spec-version            no af:spec-version (warning), or one other than 0
//	unknown-feed-status     an af:feed-status v0 does not define
//	feed-terminated         the publisher terminated the feed
//	feed-migrated           the feed moved (a warning when followed)
//	follow-limit            --follow stopped: too many hops, or a loop
//	trust-not-restored      terminated or migrated before, active now
//	unverified-entry        an entry's signature does not verify
//	unknown-entry-type      an entry of a type v0 does not define (warning)
//	invalid-payload         a verified entry's payload is malformed
//	replay-mismatch         a known id with another payload
//	type-mismatch           a payload whose keys are another type's than its af:type
//	duplicate-payload       a payload applied before under another id
//	from-version-mismatch   a schema-change not from the endpoint's current version
//	deprecation-of-unknown  a deprecation of an endpoint never announced (warning)
//	rollback                an id applied on an earlier run is gone, or an endpoint
//	                        went back to another version (warning with AllowRollback)
//	no-snapshot             no snapshot (warning)
//	snapshot-unverified     the snapshot's signature does not verify
//	snapshot-disagreement   the snapshot is not the state the feed replays to
//	no-catalog              no AI Catalog (warning)
//	invalid-document        a document breaks its format's rules
//	elsewhere               a listed URL on another origin, not read (warning)
//	card-feed-disagreement  a Server Card and the feed disagree
//	schema-hash-mismatch    an archived tool schema is not the one signed
//	not-found               a document is missing (404 or 410)
//	http-status             a document answered another status
//	http-content-type       a document's content type
//	http-cors               a document without Access-Control-Allow-Origin: *
//	http-etag               no ETag (warning), or no 304 when revalidated
//	http-cache              no Cache-Control max-age, or one more than ten
//	                        times off the build's lifetime (warning)
//	too-large               a document above the size cap
//	too-many-redirects      more than MaxRedirects redirects
//	insecure-url            an http URL off this machine, or a redirect to it
//	unreachable             a network error or timeout, or not a regular file
//	deadline                documents left unread when the run's deadline passed
//	edp-attestation         an EDP attestation that fails a check
//	edp-expired             an EDP attestation that has expired
//	edp-expiring            one that expires within 30 days (warning)
//	edp-key                 a provider's key that cannot be read, or none (warning)
package verify
