package verify

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/didweb"
	"github.com/wellknown-dev/wellknown/format/paths"
)

// hostileCase is one hostile or broken origin and the verdict on it.
type hostileCase struct {
	name  string
	setup func(t *testing.T, o *origin, opt *Options)
	// errors is exactly the set of error codes the run must report (none:
	// the run passes); warnings must be among its warnings.
	errors, warnings []string
	check            func(t *testing.T, rep *Report)
}

// Each hostile input gets its verdict, and nothing else fails with it.
func TestHostileOrigins(t *testing.T) {
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) {
			o := newOrigin(t, hostHeaders)
			o.minimal()
			opt := Options{Target: o.base.String()}
			tc.setup(t, o, &opt)
			rep := run(t, opt)
			if got := codes(rep, SeverityError); !slices.Equal(got, tc.errors) {
				t.Errorf("error codes = %v, want %v; findings:%s", got, tc.errors, dump(rep))
			}
			for _, w := range tc.warnings {
				if !slices.Contains(codes(rep, SeverityWarning), w) {
					t.Errorf("no %s warning; findings:%s", w, dump(rep))
				}
			}
			if rep.OK != (len(tc.errors) == 0) {
				t.Errorf("OK = %v with errors %v", rep.OK, codes(rep, SeverityError))
			}
			if tc.check != nil {
				tc.check(t, rep)
			}
		})
	}
}

func hostileCases() []hostileCase {
	untrusted := func(t *testing.T, rep *Report) {
		if rep.Origins[0].Trusted {
			t.Error("the origin is trusted")
		}
	}
	fixture := func(name string) func(t *testing.T, o *origin, _ *Options) {
		return func(t *testing.T, o *origin, _ *Options) {
			o.put(paths.Feed, readFile(t, filepath.Join("testdata", "hostile", name)), nil)
		}
	}
	return []hostileCase{
		{name: "a well-formed origin passes", setup: func(*testing.T, *origin, *Options) {},
			warnings: []string{codeNoCatalog, codeNoSnapshot},
			check: func(t *testing.T, rep *Report) {
				if o := rep.Origins[0]; !o.Trusted || o.Verified != 1 || o.Entries != 1 || o.FeedStatus != "active" {
					t.Errorf("origin = %+v", o)
				}
			}},
		{name: "bad XML", setup: fixture("truncated.xml"), errors: []string{codeFeedMalformed}, check: untrusted},
		{name: "billion laughs", setup: fixture("billion-laughs.xml"), errors: []string{codeFeedMalformed}, check: untrusted},
		{name: "external entity", setup: fixture("external-entity.xml"), errors: []string{codeFeedMalformed}, check: untrusted},
		{name: "not UTF-8", setup: fixture("latin1.xml"), errors: []string{codeFeedMalformed}, check: untrusted},
		{name: "huge feed", errors: []string{codeTooLarge},
			setup: func(t *testing.T, o *origin, opt *Options) {
				var entries []agentfeed.Entry
				for i := range 20 {
					entries = append(entries, announce(t, o.signer(), "urn:af:test:"+string(rune('a'+i)), "orders-api", "1.0"))
				}
				o.minimal(entries...)
				opt.MaxBytes = 4096
			}, check: untrusted},
		{name: "huge DID document without Content-Length", errors: []string{codeTooLarge},
			setup: func(t *testing.T, o *origin, opt *Options) {
				doc := didDoc(t, o.did(), testKey(1))
				o.putStream("/.well-known/did.json", append(doc, bytes.Repeat([]byte(" "), 64<<10)...))
				opt.MaxBytes = 32 << 10
			}, check: untrusted},
		{name: "a server that never answers", errors: []string{codeUnreachable},
			setup: func(t *testing.T, o *origin, opt *Options) {
				o.hang("/.well-known/did.json")
				opt.Timeout = 200 * time.Millisecond
			},
			check: func(t *testing.T, rep *Report) {
				if f := findings(rep, codeUnreachable); !strings.Contains(f[0].Message, "timed out") {
					t.Errorf("unreachable = %+v, want a timeout", f)
				}
			}},
		{name: "wrong DID id", errors: []string{codeDIDMismatch},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.put("/.well-known/did.json", didDoc(t, "did:web:example.com", testKey(1)), nil)
			}, check: untrusted},
		{name: "DID document that is not JSON", errors: []string{codeDIDMalformed},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.put("/.well-known/did.json", []byte("<html>hello</html>"), nil)
			}},
		{name: "no DID document", errors: []string{codeNotFound},
			setup: func(t *testing.T, o *origin, _ *Options) { o.remove("/.well-known/did.json") }, check: untrusted},
		{name: "no feed", errors: []string{codeNotFound},
			setup: func(t *testing.T, o *origin, _ *Options) { o.remove(paths.Feed) }, check: untrusted},
		{name: "DID document with no usable key", errors: []string{codeKeyUnresolvable}, warnings: []string{codeKeyUnusable},
			setup: func(t *testing.T, o *origin, _ *Options) {
				did := o.did()
				o.put("/.well-known/did.json", mustJSON(t, map[string]any{
					"id": did,
					"verificationMethod": []map[string]any{
						{"id": did + "#jwk", "type": "JsonWebKey2020", "controller": did, "publicKeyJwk": map[string]string{"kty": "OKP", "crv": "Ed25519", "x": "AAAA"}},
						{"id": did + "#short", "type": "Ed25519VerificationKey2020", "controller": did, "publicKeyMultibase": "uAAAA"},
						{"id": did + "#rsa", "type": "Multikey", "controller": did, "publicKeyMultibase": "zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme"},
					},
				}), nil)
			}, check: untrusted},
		{name: "signature from another key", errors: []string{codeUnverified},
			setup: func(t *testing.T, o *origin, _ *Options) {
				forged := signer(o.did(), "key-1", testKey(2)) // claims key-1, signs with another
				o.minimal(
					announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0"),
					announce(t, forged, "urn:af:test:2", "payments-api", "1.0"),
					announce(t, o.signer(), "urn:af:test:3", "users-api", "1.0"),
				)
			},
			check: func(t *testing.T, rep *Report) {
				f := findings(rep, codeUnverified)
				if len(f) != 1 || f[0].Entry != "urn:af:test:2" {
					t.Errorf("unverified = %+v, want entry urn:af:test:2 only", f)
				}
				if o := rep.Origins[0]; o.Verified != 2 || !o.Trusted {
					t.Errorf("verified %d, trusted %v: one bad signature must not stop the rest", o.Verified, o.Trusted)
				}
			}},
		{name: "af:signer names a key the DID document lacks", errors: []string{codeUnverified},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.minimal(announce(t, signer(o.did(), "key-9", testKey(1)), "urn:af:test:1", "orders-api", "1.0"))
			}},
		{name: "af:signer picks the second key", warnings: []string{codeNoSnapshot},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.put("/.well-known/did.json", didDoc(t, o.did(), testKey(1), testKey(2)), nil)
				o.put(paths.Feed, feedOf(t, o.did(), agentfeed.StatusActive, "",
					announce(t, signer(o.did(), "key-2", testKey(2)), "urn:af:test:1", "orders-api", "1.0")), nil)
			},
			check: func(t *testing.T, rep *Report) {
				if rep.Origins[0].Verified != 1 {
					t.Errorf("verified %d, want 1", rep.Origins[0].Verified)
				}
			}},
		{name: "no af:signer: the first Ed25519 key, here a Multikey", warnings: []string{codeNoSnapshot},
			setup: func(t *testing.T, o *origin, _ *Options) {
				did := o.did()
				o.put("/.well-known/did.json", mustJSON(t, map[string]any{
					"id": did,
					"verificationMethod": []map[string]any{
						{"id": did + "#mk", "type": "Multikey", "controller": did, "publicKeyMultibase": didweb.EncodeMultikey(testKey(1).Public().(ed25519.PublicKey))},
					},
				}), nil)
				e := announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0")
				e.Signer = ""
				o.put(paths.Feed, feedOf(t, did, agentfeed.StatusActive, "", e), nil)
			},
			check: func(t *testing.T, rep *Report) {
				if rep.Origins[0].Verified != 1 {
					t.Errorf("verified %d, want 1", rep.Origins[0].Verified)
				}
			}},
		{name: "an id repeated with another payload", errors: []string{codeReplayMismatch},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.minimal(
					announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0"),
					announce(t, o.signer(), "urn:af:test:1", "orders-api", "2.0"),
				)
			}},
		{name: "a signed payload copied under a new id, rolling 2.0 back to 1.1", errors: []string{codeDuplicatePayload},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.minimal(append(orders20(t, o), relabel(orders20(t, o)[1], "urn:af:test:4", agentfeed.TypeSchemaChange))...)
			},
			check: onlyEntry(codeDuplicatePayload, "urn:af:test:4", "entry urn:af:test:2")},
		{name: "schema changes swapped", errors: []string{codeFromVersion},
			setup: func(t *testing.T, o *origin, _ *Options) {
				e := orders20(t, o)
				o.minimal(e[0], e[2], e[1])
			},
			check: onlyEntry(codeFromVersion, "urn:af:test:3", "from-version is 1.1, but orders-api is at version 1.0")},
		{name: "a schema change from a version the endpoint is not at", errors: []string{codeFromVersion},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.minimal(announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0"), change(t, o.signer(), "urn:af:test:2", "orders-api", "1.5", "2.0"))
			},
			check: onlyEntry(codeFromVersion, "urn:af:test:2", "from-version is 1.5")},
		{name: "a schema change relabelled as an unknown type, to be skipped", errors: []string{codeTypeMismatch},
			setup: func(t *testing.T, o *origin, _ *Options) {
				e := orders20(t, o)
				o.minimal(e[0], e[1], relabel(e[2], e[2].ID, "x-note"))
			},
			check: onlyEntry(codeTypeMismatch, "urn:af:test:3", "af:type is x-note, but its signed payload is of type schema-change")},
		{name: "a schema change bound to its archived schema, relabelled as an announcement", errors: []string{codeTypeMismatch},
			setup: func(t *testing.T, o *origin, _ *Options) {
				schema := []byte(`{"inputSchema":{"type":"object"},"name":"get"}`) // in RFC 8785 form
				sum := sha256.Sum256(schema)
				e := entry(t, o.signer(), "urn:af:test:2", agentfeed.TypeSchemaChange, map[string]any{
					"endpoint-id": "com.example/orders#get", "from-version": "1.0", "to-version": "1.1",
					"effective-at": "2026-04-28T12:00:00Z", "migration": map[string]any{}, "x-schema-sha256": hex.EncodeToString(sum[:]),
				})
				o.minimal(announce(t, o.signer(), "urn:af:test:1", "com.example/orders#get", "1.0"), relabel(e, e.ID, agentfeed.TypeAnnouncement))
				o.put(paths.SchemaArchive+"orders/get/1.1.json", schema, nil)
			},
			// The archive is found by the signed payload's version, not
			// af:type's: the only error is the relabelling.
			check: onlyEntry(codeTypeMismatch, "urn:af:test:2", "signed payload is of type schema-change")},
		{name: "an archived schema whose version would leave the archive", errors: []string{codeInvalidPayload},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.minimal(entry(t, o.signer(), "urn:af:test:1", agentfeed.TypeAnnouncement, map[string]any{
					"endpoint-id": "com.example/orders#get", "endpoint": "https://api.example.com/mcp", "protocol": "mcp-tool",
					"version": "../../x", "asserted-at": "2026-04-27T12:00:00Z", "x-schema-sha256": strings.Repeat("0", 64),
				}))
			},
			check: onlyEntry(codeInvalidPayload, "urn:af:test:1", `the version "../../x" is not a safe path segment`)},
		{name: "did.json with verificationMethod twice, the second an attacker's key", errors: []string{codeDIDMalformed},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.minimal(announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0"))
				var good, evil map[string]json.RawMessage
				json.Unmarshal(didDoc(t, o.did(), testKey(1)), &good)
				json.Unmarshal(didDoc(t, o.did(), testKey(2)), &evil)
				doc := fmt.Sprintf(`{"id": %s, "verificationMethod": %s, "verificationMethod": %s}`, good["id"], good["verificationMethod"], evil["verificationMethod"])
				o.put("/.well-known/did.json", []byte(doc), nil)
			},
			check: func(t *testing.T, rep *Report) {
				if f := findings(rep, codeDIDMalformed); len(f) != 1 || !strings.Contains(f[0].Message, `duplicate key "verificationMethod"`) {
					t.Errorf("did-malformed findings %+v", f)
				}
			}},
		{name: "did.json with two methods of one id", errors: []string{codeDIDMalformed},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.minimal(announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0"))
				doc := didweb.NewDocument(o.did(), []didweb.PublicKey{{ID: "key-1", Key: testKey(1).Public().(ed25519.PublicKey)}, {ID: "key-1", Key: testKey(2).Public().(ed25519.PublicKey)}})
				o.put("/.well-known/did.json", mustJSON(t, doc), nil)
			},
			check: func(t *testing.T, rep *Report) {
				if f := findings(rep, codeDIDMalformed); len(f) != 2 || !strings.Contains(f[0].Message, `verificationMethod[2] has the id "`+rep.Origins[0].DID+`#key-1" of verificationMethod[0]`) {
					t.Errorf("did-malformed findings %+v", f)
				}
			}},
		{name: "an announcement relabelled as a deprecation", errors: []string{codeTypeMismatch},
			setup: func(t *testing.T, o *origin, _ *Options) {
				e := orders20(t, o)
				o.minimal(e[0], relabel(e[0], "urn:af:test:9", agentfeed.TypeDeprecation))
			},
			check: onlyEntry(codeTypeMismatch, "urn:af:test:9", "signed payload is of type endpoint-announcement")},
		{name: "across --state runs: a payload applied before, back under a new id", errors: []string{codeDuplicatePayload, codeRollback},
			setup: func(t *testing.T, o *origin, opt *Options) {
				e := orders20(t, o)
				ranBefore(t, o, opt, e...)
				o.minimal(e[0], relabel(e[1], "urn:af:test:4", agentfeed.TypeSchemaChange))
			},
			check: onlyEntry(codeDuplicatePayload, "urn:af:test:4", "entry urn:af:test:2, applied on an earlier run")},
		{name: "across --state runs: a schema change from a version an earlier run moved past", errors: []string{codeFromVersion, codeRollback},
			setup: func(t *testing.T, o *origin, opt *Options) {
				e := orders20(t, o)
				ranBefore(t, o, opt, e...)
				// History rewritten: the feed now starts later, from 1.1.
				o.minimal(change(t, o.signer(), "urn:af:test:5", "orders-api", "1.1", "1.2"))
			},
			check: onlyEntry(codeFromVersion, "urn:af:test:5", "an earlier run left orders-api at version 2.0")},
		{name: "across --state runs: new entries that follow on pass", warnings: []string{codeNoSnapshot},
			setup: func(t *testing.T, o *origin, opt *Options) {
				e := orders20(t, o)
				ranBefore(t, o, opt, e[:2]...)
				o.minimal(e...)
			}},
		{name: "the same entry twice is passed over", warnings: []string{codeNoSnapshot},
			setup: func(t *testing.T, o *origin, _ *Options) {
				e := orders20(t, o)
				o.minimal(e[0], e[1], e[1], e[2])
			}},
		{name: "a malformed payload among good ones", errors: []string{codeInvalidPayload},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.minimal(
					entry(t, o.signer(), "urn:af:test:1", agentfeed.TypeAnnouncement, map[string]string{"endpoint-id": "orders-api"}),
					announce(t, o.signer(), "urn:af:test:2", "users-api", "1.0"),
				)
			},
			check: func(t *testing.T, rep *Report) {
				if f := findings(rep, codeInvalidPayload); len(f) != 1 || f[0].Entry != "urn:af:test:1" {
					t.Errorf("invalid-payload findings = %+v", f)
				}
			}},
		{name: "an unknown entry type is skipped, not a failure", warnings: []string{codeUnknownType},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.minimal(
					announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0"),
					entry(t, o.signer(), "urn:af:test:2", "endpoint-teleport", map[string]string{"endpoint-id": "orders-api"}),
				)
			},
			check: func(t *testing.T, rep *Report) {
				if f := findings(rep, codeUnknownType); len(f) != 1 || f[0].Entry != "urn:af:test:2" {
					t.Errorf("unknown-entry-type findings = %+v", f)
				}
			}},
		{name: "a deprecation of an unknown endpoint", warnings: []string{codeDeprecationOfUnknown},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.minimal(entry(t, o.signer(), "urn:af:test:1", agentfeed.TypeDeprecation, agentfeed.Deprecation{
					EndpointID: "ghost", AnnouncedAt: "2026-04-27T12:00:00Z", Sunset: "2026-05-27T12:00:00Z"}))
			}},
		{name: "spec version above 0 is terminated", errors: []string{codeSpecVersion},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.put(paths.Feed, replace(t, feedOf(t, o.did(), agentfeed.StatusActive, "", announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0")),
					"<af:spec-version>0<", "<af:spec-version>1<"), nil)
			}, check: untrusted},
		{name: "an unknown status is terminated", errors: []string{codeUnknownStatus},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.put(paths.Feed, replace(t, feedOf(t, o.did(), agentfeed.StatusActive, "", announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0")),
					"<af:feed-status>active<", "<af:feed-status>paused<"), nil)
			}, check: untrusted},
		{name: "terminated: entries verify, trust is gone", errors: []string{codeTerminated},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.put(paths.Feed, feedOf(t, o.did(), agentfeed.StatusTerminated, "", announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0")), nil)
			},
			check: func(t *testing.T, rep *Report) {
				if o := rep.Origins[0]; o.Trusted || o.Verified != 1 {
					t.Errorf("trusted %v, verified %d; want untrusted with 1 verified", o.Trusted, o.Verified)
				}
			}},
		{name: "migrated, not followed", errors: []string{codeMigrated},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.put(paths.Feed, feedOf(t, o.did(), agentfeed.StatusMigrated, "https://new.example/.well-known/agent-feed.xml"), nil)
			},
			check: func(t *testing.T, rep *Report) {
				if f := findings(rep, codeMigrated); len(f) != 1 || !strings.Contains(f[0].Hint, "--follow") {
					t.Errorf("feed-migrated findings = %+v, want one with a --follow hint", f)
				}
			}},
		{name: "migrated to plain http elsewhere", errors: []string{codeInsecureURL},
			setup: func(t *testing.T, o *origin, opt *Options) {
				o.put(paths.Feed, feedOf(t, o.did(), agentfeed.StatusMigrated, "http://new.example/.well-known/agent-feed.xml"), nil)
				opt.Follow = true
			},
			check: func(t *testing.T, rep *Report) {
				if len(rep.Origins) != 1 {
					t.Errorf("followed to %d origins, want none", len(rep.Origins)-1)
				}
			}},
		{name: "redirect loop", errors: []string{codeTooManyRedirects},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.redirect("/.well-known/did.json", "/.well-known/did.json")
			}, check: untrusted},
		{name: "three redirects are followed", warnings: []string{codeNoSnapshot},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.put("/moved/did.json", didDoc(t, o.did(), testKey(1)), nil)
				o.redirect("/.well-known/did.json", "/a")
				o.redirect("/a", "/b")
				o.redirect("/b", "/moved/did.json")
			}},
		{name: "four redirects are too many", errors: []string{codeTooManyRedirects},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.put("/moved/did.json", didDoc(t, o.did(), testKey(1)), nil)
				o.redirect("/.well-known/did.json", "/a")
				o.redirect("/a", "/b")
				o.redirect("/b", "/c")
				o.redirect("/c", "/moved/did.json")
			}, check: untrusted},
		{name: "redirect to plain http elsewhere", errors: []string{codeInsecureURL},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.redirect("/.well-known/did.json", "http://attacker.example/.well-known/did.json")
			}, check: untrusted},
		{name: "snapshot signed by another key", errors: []string{codeSnapshotUnverified},
			setup: func(t *testing.T, o *origin, _ *Options) {
				e := announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0")
				o.minimal(e)
				o.put(paths.Snapshot, snapshotOf(t, signer(o.did(), "key-1", testKey(2)), o.did(), e), nil)
			}},
		{name: "snapshot that is not the feed's state", errors: []string{codeSnapshotDisagreement},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.minimal(announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0"))
				o.put(paths.Snapshot, snapshotOf(t, o.signer(), o.did(), announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.1")), nil)
			},
			check: func(t *testing.T, rep *Report) {
				f := findings(rep, codeSnapshotDisagreement)
				if len(f) != 1 || !strings.Contains(f[0].Message, `"version":"1.1"`) {
					t.Errorf("snapshot-disagreement findings = %+v", f)
				}
			}},
		{name: "a snapshot that agrees", warnings: []string{codeNoCatalog},
			setup: func(t *testing.T, o *origin, _ *Options) {
				e := announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0")
				o.minimal(e)
				o.put(paths.Snapshot, snapshotOf(t, o.signer(), o.did(), e), nil)
			}},

		// Archive chains (see archivedFeed): a chain that is not whole is an
		// error naming the document whose link breaks it, and the entries
		// read so far are still verified.
		{name: "a whole chain of archives",
			setup: func(t *testing.T, o *origin, _ *Options) { o.archivedFeed(nil) },
			check: chainRead(7, 4)},
		{name: "archives in a circle", errors: []string{codeArchiveChain},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.archivedFeed(func(docs []*agentfeed.Feed) { docs[0].PrevArchive = o.url(archivePath(2)) })
			},
			check: chainBroken(codeArchiveChain, archivePath(1), "link in a circle", 7, 4)},
		{name: "an archive linking back to the feed", errors: []string{codeArchiveChain},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.archivedFeed(func(docs []*agentfeed.Feed) { docs[0].PrevArchive = o.url(paths.Feed) })
			},
			check: chainBroken(codeArchiveChain, archivePath(1), "link in a circle", 7, 4)},
		{name: "too many archives", errors: []string{codeArchiveChain},
			setup: func(t *testing.T, o *origin, opt *Options) {
				o.archivedFeed(nil)
				opt.MaxArchives = 1
			},
			check: chainBroken(codeArchiveChain, archivePath(2), "more than 1 archive documents", 4, 3)},
		{name: "an archive off the origin", errors: []string{codeArchiveChain},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.archivedFeed(func(docs []*agentfeed.Feed) {
					docs[1].PrevArchive = "https://elsewhere.example/.well-known/agent-feed/archive-1.xml"
				})
			},
			check: chainBroken(codeArchiveChain, archivePath(2), "not on this origin", 4, 3)},
		{name: "a missing archive", errors: []string{codeNotFound},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.archivedFeed(nil)
				o.remove(archivePath(1))
			},
			check: chainBroken(codeNotFound, archivePath(1), archivePath(2)+" links to as prev-archive", 4, 3)},
		{name: "an archived entry changed after signing", errors: []string{codeUnverified},
			setup: func(t *testing.T, o *origin, _ *Options) {
				o.archivedFeed(func(docs []*agentfeed.Feed) {
					docs[0].Entries[1].Content = []byte(strings.Replace(string(docs[0].Entries[1].Content), "api-2", "api-9", 1))
				})
			},
			check: chainBroken(codeUnverified, archivePath(1), "signature", 6, 4)},
	}
}

// chainRead checks that verified entries were verified from documents
// documents (did.json included).
func chainRead(verified, documents int) func(t *testing.T, rep *Report) {
	return func(t *testing.T, rep *Report) {
		if got := rep.Origins[0]; got.Verified != verified || got.Documents != documents {
			t.Errorf("%d entries verified from %d documents, want %d from %d:%s", got.Verified, got.Documents, verified, documents, dump(rep))
		}
	}
}

// chainBroken checks chainRead, and that the first finding of code names
// doc and says msg.
func chainBroken(code, doc, msg string, verified, documents int) func(t *testing.T, rep *Report) {
	return func(t *testing.T, rep *Report) {
		chainRead(verified, documents)(t, rep)
		if f := findings(rep, code)[0]; f.Document != doc || !strings.Contains(f.Message, msg) {
			t.Errorf("finding %s: %s, want it to name %s and say %q", f.Document, f.Message, doc, msg)
		}
	}
}

// orders20 is orders-api announced at 1.0, then changed to 1.1 and to 2.0,
// as urn:af:test:1 to 3.
func orders20(t *testing.T, o *origin) []agentfeed.Entry {
	return []agentfeed.Entry{
		announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0"),
		change(t, o.signer(), "urn:af:test:2", "orders-api", "1.0", "1.1"),
		change(t, o.signer(), "urn:af:test:3", "orders-api", "1.1", "2.0"),
	}
}

// ranBefore gives opt a new state file and runs it once over a feed of
// entries, which must pass.
func ranBefore(t *testing.T, o *origin, opt *Options, entries ...agentfeed.Entry) {
	t.Helper()
	opt.StatePath = statePath(t)
	o.minimal(entries...)
	if rep := run(t, *opt); !rep.OK {
		t.Fatalf("first run:%s", dump(rep))
	}
}

// onlyEntry checks that the findings of a code are one, about the entry,
// with a message containing msg.
func onlyEntry(code, entry, msg string) func(t *testing.T, rep *Report) {
	return func(t *testing.T, rep *Report) {
		f := findings(rep, code)
		if len(f) != 1 || f[0].Entry != entry || !strings.Contains(f[0].Message, msg) {
			t.Errorf("%s findings = %+v, want one about %s saying %q", code, f, entry, msg)
		}
	}
}

// replace replaces old, which must occur, in data.
func replace(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%q not found", old)
	}
	return bytes.Replace(data, []byte(old), []byte(new), 1)
}

// snapshotOf is the snapshot of entries, signed by s.
func snapshotOf(t *testing.T, s agentfeed.Signer, did string, entries ...agentfeed.Entry) []byte {
	t.Helper()
	st := agentfeed.NewState()
	if err := st.ApplyAll(0, entries); err != nil {
		t.Fatal(err)
	}
	data, err := agentfeed.Snapshot(s, st, did, "2026-04-27T12:00:00Z", agentfeed.StatusActive)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// An http origin off this machine is a usage error: nothing is fetched.
func TestInsecureTargets(t *testing.T) {
	for _, target := range []string{"http://example.com", "http://192.0.2.1:8080/", "ftp://example.com/", "https://user@example.com/", "https://example.com/?q=1"} {
		opt := Options{Target: target}
		if err := opt.Validate(); err == nil {
			t.Errorf("%s: no usage error", target)
		}
		if _, err := Verify(context.Background(), opt); err == nil {
			t.Errorf("%s: Verify ran", target)
		}
	}
	for _, target := range []string{"https://example.com", "http://localhost:8080", "http://127.0.0.1:1313/", "http://[::1]:9/"} {
		if err := (Options{Target: target}).Validate(); err != nil {
			t.Errorf("%s: %v", target, err)
		}
	}
}
