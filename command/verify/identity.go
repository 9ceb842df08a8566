package verify

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/didweb"
)

// key is a usable signing key of the origin.
type key struct {
	id       string // the DID URL of its verification method
	verifier agentfeed.Verifier
}

// didDocument is what a reader needs of a DID document. Other members (and
// assertionMethod, which may embed whole methods) are not read.
type didDocument struct {
	ID                 *string `json:"id"`
	VerificationMethod []struct {
		ID                 string `json:"id"`
		Type               string `json:"type"`
		PublicKeyMultibase string `json:"publicKeyMultibase"`
	} `json:"verificationMethod"`
}

// resolveKeys reads the DID document and keeps its usable Ed25519 keys.
// Any failure leaves c.keys empty: nothing can be verified.
func (c *checker) resolveKeys() {
	u := c.at(didweb.DocumentPath(c.base))
	data, ok := c.get(u, kindDID, "the DID document carries the signing keys")
	if !ok {
		return
	}
	doc := c.where(u)
	var d didDocument
	if err := json.Unmarshal(data, &d); err != nil || d.ID == nil {
		c.errorf(codeDIDMalformed, doc, "not a DID document (a JSON object with an id)")
		return
	}
	// A document that reads two ways has no keys this reader can stand by.
	if problems := didweb.Ambiguities(data); len(problems) > 0 {
		for _, p := range problems {
			c.errorf(codeDIDMalformed, doc, "%v: its keys are not used", p)
		}
		return
	}
	if *d.ID != c.did {
		c.add(Finding{Severity: SeverityError, Code: codeDIDMismatch, Document: doc,
			Message: fmt.Sprintf("id is %q, but the origin's DID is %q: its keys are not the origin's", *d.ID, c.did),
			Hint:    didMismatchHint(*d.ID, c.opt.DID)})
		return
	}
	for i, vm := range d.VerificationMethod {
		if vm.Type != didweb.TypeEd25519VerificationKey2020 && vm.Type != didweb.TypeMultikey {
			continue // not a signing key this contract uses
		}
		pub, err := didweb.ParseMultibaseKey(vm.PublicKeyMultibase)
		if err != nil {
			c.warnf(codeKeyUnusable, doc, "verificationMethod[%d] (%s): %v", i, vm.ID, err)
			continue
		}
		id := vm.ID
		if strings.HasPrefix(id, "#") {
			id = c.did + id // a relative DID URL
		}
		c.keys = append(c.keys, key{id, agentfeed.NewVerifier(id, pub)})
	}
	if len(c.keys) == 0 {
		c.errorf(codeKeyUnresolvable, doc, "no usable Ed25519 key (Ed25519VerificationKey2020 or Multikey, publicKeyMultibase u… or z6Mk…): nothing can be verified")
	}
}

// keyFor returns the key an entry names with af:signer, or the first usable
// key when it names none.
func (c *checker) keyFor(signer string) (agentfeed.Verifier, error) {
	if signer == "" {
		return c.keys[0].verifier, nil
	}
	for _, k := range c.keys {
		if k.id == signer {
			return k.verifier, nil
		}
	}
	return nil, fmt.Errorf("af:signer %s is not a usable key of the DID document", signer)
}

// didMismatchHint says how to verify documents served from an origin other
// than the one they were made for (a serve preview, a staging host): name
// their DID with --did. When --did was given, the id must be that one.
// The id is repeated only when it looks like a did:web: it is the served
// document's text.
func didMismatchHint(id, given string) string {
	if given != "" {
		return "the id must be the DID given with --did"
	}
	if !plainDIDWeb.MatchString(id) {
		id = "did:web:<the site's host>"
	}
	return "the id must be did:web of the host the document is served from, with a port written %3A<port>; " +
		"to verify a copy served elsewhere (a wellknown serve preview, a staging host), name its DID: --did " + id
}

var plainDIDWeb = regexp.MustCompile(`^did:web:[A-Za-z0-9.%:_-]{1,253}$`)
