// Package didweb maps a site to its did:web identifier, builds and checks
// the DID document that carries the site's Ed25519 signing keys, and loads
// and creates those keys.
//
// did:web:<host> resolves to https://<host>/.well-known/did.json; a port is
// written %3A<port>; a base URL with a path adds ":"-separated segments and
// resolves to <path>/did.json instead. The document lists every key twice:
// first as Ed25519VerificationKey2020 with publicKeyMultibase "u" + base64url
// of the raw key (the form the agent-feed reference reader accepts, at
// verificationMethod[0]), then as a W3C Multikey "z6Mk…" for other resolvers.
// Both are assertion methods. Retired keys kept for a rotation window follow.
package didweb

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/wellknown-dev/wellknown/format/canonjson"
)

// DID returns the did:web identifier of a base URL.
func DID(base *url.URL) string {
	id := "did:web:" + strings.ReplaceAll(strings.ToLower(base.Host), ":", "%3A")
	for _, seg := range strings.Split(strings.Trim(base.Path, "/"), "/") {
		if seg != "" {
			id += ":" + url.PathEscape(seg)
		}
	}
	return id
}

// DocumentPath returns where, relative to the base URL, the DID document of
// DID(base) must be served.
func DocumentPath(base *url.URL) string {
	if strings.Trim(base.Path, "/") != "" {
		return "/did.json"
	}
	return "/.well-known/did.json"
}

// Contexts of the DID document: DID core, the 2020 suite, Multikey.
var contexts = []string{
	"https://www.w3.org/ns/did/v1",
	"https://w3id.org/security/suites/ed25519-2020/v1",
	"https://w3id.org/security/multikey/v1",
}

// Key types in a verification method.
const (
	TypeEd25519VerificationKey2020 = "Ed25519VerificationKey2020"
	TypeMultikey                   = "Multikey"
)

// Document is a DID document.
type Document struct {
	Context            []string             `json:"@context"`
	ID                 string               `json:"id"`
	VerificationMethod []VerificationMethod `json:"verificationMethod"`
	AssertionMethod    []string             `json:"assertionMethod"`
}

// VerificationMethod is one public key.
type VerificationMethod struct {
	ID                 string `json:"id"`
	Type               string `json:"type"`
	Controller         string `json:"controller"`
	PublicKeyMultibase string `json:"publicKeyMultibase"`
}

// PublicKey is a key to list: its fragment id ("key-1") and value.
type PublicKey struct {
	ID  string
	Key ed25519.PublicKey
}

// KeyURL returns the DID URL of a key: the DID, "#", the key id.
func KeyURL(did, keyID string) string { return did + "#" + keyID }

// NewDocument lists keys (the signing key first) in both forms.
func NewDocument(did string, keys []PublicKey) Document {
	doc := Document{Context: contexts, ID: did}
	for _, k := range keys {
		for _, vm := range []VerificationMethod{
			{KeyURL(did, k.ID), TypeEd25519VerificationKey2020, did, EncodeBase64URLKey(k.Key)},
			{KeyURL(did, k.ID+"-multikey"), TypeMultikey, did, EncodeMultikey(k.Key)},
		} {
			doc.VerificationMethod = append(doc.VerificationMethod, vm)
			doc.AssertionMethod = append(doc.AssertionMethod, vm.ID)
		}
	}
	return doc
}

// Check checks a DID document served for did: its id, and that every
// verification method is a well-formed Ed25519 key controlled by did and
// every assertion method names one of them.
func Check(data []byte, did string) []error {
	var doc Document
	if err := json.Unmarshal(data, &doc); err != nil {
		return []error{fmt.Errorf("not a DID document: %v", err)}
	}
	problems := Ambiguities(data)
	if doc.ID != did {
		problems = append(problems, fmt.Errorf("id %q must equal %q", doc.ID, did))
	}
	if len(doc.VerificationMethod) == 0 {
		problems = append(problems, fmt.Errorf("verificationMethod lists no key"))
	}
	ids := map[string]bool{}
	for i, vm := range doc.VerificationMethod {
		if err := checkMethod(vm, did); err != nil {
			problems = append(problems, fmt.Errorf("verificationMethod[%d]: %v", i, err))
		}
		ids[vm.ID] = true
	}
	for i, id := range doc.AssertionMethod {
		if !ids[id] {
			problems = append(problems, fmt.Errorf("assertionMethod[%d] %q names no verification method", i, id))
		}
	}
	return problems
}

// Ambiguities returns what makes a DID document mean different things to
// different readers though it is valid JSON: a key given twice in one
// object (verificationMethod twice: some readers take the first, others
// the last), or two verification methods with one id (a signature naming
// it could be checked with either key).
func Ambiguities(data []byte) []error {
	if _, err := canonjson.Decode(data, canonjson.Limits{}); err != nil {
		return []error{err}
	}
	var doc struct {
		VerificationMethod []struct {
			ID string `json:"id"`
		} `json:"verificationMethod"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return nil // not a DID document: the caller says so
	}
	var problems []error
	first := map[string]int{}
	for i, vm := range doc.VerificationMethod {
		if j, ok := first[vm.ID]; ok {
			problems = append(problems, fmt.Errorf("verificationMethod[%d] has the id %q of verificationMethod[%d]", i, vm.ID, j))
			continue
		}
		first[vm.ID] = i
	}
	return problems
}

func checkMethod(vm VerificationMethod, did string) error {
	switch {
	case !strings.HasPrefix(vm.ID, did+"#"):
		return fmt.Errorf("id %q must be a DID URL under %s", vm.ID, did)
	case vm.Controller != did:
		return fmt.Errorf("controller %q must be %s", vm.Controller, did)
	case vm.Type != TypeEd25519VerificationKey2020 && vm.Type != TypeMultikey:
		return fmt.Errorf("type %q is not an Ed25519 key type", vm.Type)
	}
	_, err := ParseMultibaseKey(vm.PublicKeyMultibase)
	return err
}
