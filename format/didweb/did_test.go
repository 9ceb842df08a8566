package didweb

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

func TestDID(t *testing.T) {
	for base, want := range map[string][2]string{
		"https://example.com/":               {"did:web:example.com", "/.well-known/did.json"},
		"https://Example.COM":                {"did:web:example.com", "/.well-known/did.json"},
		"https://example.com:8443/":          {"did:web:example.com%3A8443", "/.well-known/did.json"},
		"https://example.github.io/my-repo/": {"did:web:example.github.io:my-repo", "/did.json"},
		"http://localhost:1313/":             {"did:web:localhost%3A1313", "/.well-known/did.json"},
	} {
		u, _ := url.Parse(base)
		if got := DID(u); got != want[0] {
			t.Errorf("DID(%s) = %s, want %s", base, got, want[0])
		}
		if got := DocumentPath(u); got != want[1] {
			t.Errorf("DocumentPath(%s) = %s, want %s", base, got, want[1])
		}
	}
}

func TestDocument(t *testing.T) {
	pub := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32)).Public().(ed25519.PublicKey)
	old := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, 32)).Public().(ed25519.PublicKey)
	did := "did:web:example.com"
	data, err := json.Marshal(NewDocument(did, []PublicKey{{"key-2", pub}, {"key-1", old}}))
	if err != nil {
		t.Fatal(err)
	}
	if errs := Check(data, did); len(errs) > 0 {
		t.Fatalf("Check: %v", errs)
	}
	var doc Document
	json.Unmarshal(data, &doc)
	vm := doc.VerificationMethod
	if len(vm) != 4 || vm[0].ID != did+"#key-2" || vm[0].Type != TypeEd25519VerificationKey2020 ||
		!strings.HasPrefix(vm[0].PublicKeyMultibase, "u") || vm[1].Type != TypeMultikey ||
		!strings.HasPrefix(vm[1].PublicKeyMultibase, "z6Mk") || vm[2].ID != did+"#key-1" {
		t.Errorf("verification methods = %+v", vm)
	}
	// The reference reader takes verificationMethod[0] as u + base64url of the raw key.
	if vm[0].PublicKeyMultibase != "u"+base64.RawURLEncoding.EncodeToString(pub) {
		t.Errorf("verificationMethod[0] key = %s", vm[0].PublicKeyMultibase)
	}
	if len(doc.AssertionMethod) != 4 {
		t.Errorf("assertionMethod = %v", doc.AssertionMethod)
	}
	for name, mangle := range map[string]func(*Document){
		"wrong id":            func(d *Document) { d.ID = "did:web:evil.example" },
		"foreign controller":  func(d *Document) { d.VerificationMethod[0].Controller = "did:web:evil.example" },
		"bad key":             func(d *Document) { d.VerificationMethod[1].PublicKeyMultibase = "z6Mk" },
		"unknown type":        func(d *Document) { d.VerificationMethod[0].Type = "RsaVerificationKey2018" },
		"dangling assertion":  func(d *Document) { d.AssertionMethod = append(d.AssertionMethod, did+"#nope") },
		"no keys":             func(d *Document) { d.VerificationMethod, d.AssertionMethod = nil, nil },
		"key outside the DID": func(d *Document) { d.VerificationMethod[0].ID = "did:web:other#key-2" },
	} {
		var d Document
		json.Unmarshal(data, &d)
		mangle(&d)
		b, _ := json.Marshal(d)
		if errs := Check(b, did); len(errs) == 0 {
			t.Errorf("%s: Check accepted a broken document", name)
		}
	}
}

// A document that reads two ways is refused with the reason: a key twice
// in one object (readers disagree on which one wins), or two verification
// methods with one id.
func TestAmbiguities(t *testing.T) {
	pub := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32)).Public().(ed25519.PublicKey)
	evil := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{6}, 32)).Public().(ed25519.PublicKey)
	did := "did:web:example.com"
	good, _ := json.Marshal(NewDocument(did, []PublicKey{{"key-1", pub}}))
	bad, _ := json.Marshal(NewDocument(did, []PublicKey{{"key-1", evil}}))
	methods := func(doc []byte) string {
		var d map[string]json.RawMessage
		json.Unmarshal(doc, &d)
		return string(d["verificationMethod"])
	}
	twice := []byte(strings.Replace(string(good), `"verificationMethod":`, `"verificationMethod":`+methods(bad)+`,"verificationMethod":`, 1))
	var sameID Document
	json.Unmarshal(good, &sameID)
	sameID.VerificationMethod[1].ID = sameID.VerificationMethod[0].ID
	sameIDData, _ := json.Marshal(sameID)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"verificationMethod twice", twice, `line 1: duplicate key "verificationMethod"`},
		{"a method id twice", sameIDData, `verificationMethod[1] has the id "did:web:example.com#key-1" of verificationMethod[0]`},
	} {
		errs := Check(tc.data, did)
		if len(errs) == 0 || errs[0].Error() != tc.want {
			t.Errorf("%s: Check = %v, want first %q", tc.name, errs, tc.want)
		}
	}
	if errs := Ambiguities(good); len(errs) != 0 {
		t.Errorf("a document built here: %v", errs)
	}
}

func TestParsePrivateKey(t *testing.T) {
	seed := bytes.Repeat([]byte{9}, 32)
	key := ed25519.NewKeyFromSeed(seed)
	for name, data := range map[string][]byte{
		"PEM":                 MarshalPEM(key),
		"raw seed":            seed,
		"raw private key":     key,
		"base64url":           []byte(base64.RawURLEncoding.EncodeToString(seed)),
		"base64url + newline": []byte(base64.RawURLEncoding.EncodeToString(seed) + "\n"),
		"base64":              []byte(base64.StdEncoding.EncodeToString(seed)),
		"hex":                 []byte(hex.EncodeToString(seed)),
		"base64 private key":  []byte(base64.StdEncoding.EncodeToString(key)),
	} {
		got, err := ParsePrivateKey(data)
		if err != nil || !got.Equal(key) {
			t.Errorf("%s: ParsePrivateKey = %v", name, err)
		}
	}
	for name, data := range map[string][]byte{
		"empty":        nil,
		"short":        []byte("short"),
		"31 bytes":     bytes.Repeat([]byte{1}, 31),
		"a passphrase": []byte("correct horse battery staple 123"), // 32 characters, not a seed
		"RSA PEM type": []byte("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n"),
		"bad PKCS#8":   []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
	} {
		if _, err := ParsePrivateKey(data); err == nil {
			t.Errorf("%s: ParsePrivateKey succeeded, should have failed", name)
		}
	}
}

func TestLoadSigningKeyPrecedence(t *testing.T) {
	dir := t.TempDir()
	flagFile, configFile := filepath.Join(dir, "flag.key"), filepath.Join(dir, "config.key")
	for _, f := range []string{flagFile, configFile} {
		if err := WriteNewKey(f); err != nil {
			t.Fatal(err)
		}
	}
	env := base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{5}, 32))
	for _, tc := range []struct {
		src  KeySources
		want string
	}{
		{KeySources{FlagFile: flagFile, EnvName: "K", EnvValue: env, ConfigFile: configFile}, "--key-file " + flagFile},
		{KeySources{EnvName: "K", EnvValue: env, ConfigFile: configFile}, "$K"},
		{KeySources{EnvName: "K", ConfigFile: configFile}, "signing.key_file " + configFile},
	} {
		k, err := LoadSigningKey(tc.src)
		if err != nil || k.Source != tc.want || k.Dev {
			t.Errorf("LoadSigningKey(%+v) = %q dev=%v, %v; want %q", tc.src, k.Source, k.Dev, err, tc.want)
		}
	}
}

func TestDevKey(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadSigningKey(KeySources{SiteDir: dir, Strict: true, EnvName: "K"}); err == nil {
		t.Fatal("a strict load fell back to a development key")
	}
	first, err := LoadSigningKey(KeySources{SiteDir: dir})
	if err != nil || !first.Dev || !first.Created {
		t.Fatalf("first load = %+v, %v", first, err)
	}
	info, err := os.Stat(filepath.Join(dir, DevKeyPath))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("dev key mode = %v, %v; want 0600", info.Mode(), err)
	}
	second, err := LoadSigningKey(KeySources{SiteDir: dir})
	if err != nil || second.Created || !second.Private.Equal(first.Private) {
		t.Errorf("second load did not reuse the key: %+v, %v", second, err)
	}
}

// .wellknown/ ignores itself: made with the key, and added to the directory
// of an earlier version, which had none.
func TestDevKeyDirectoryIgnoresItself(t *testing.T) {
	dir := t.TempDir()
	ignore := filepath.Join(dir, ".wellknown", ".gitignore")
	for _, step := range []string{"created", "restored"} {
		if _, err := LoadSigningKey(KeySources{SiteDir: dir}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(ignore)
		if err != nil || !strings.HasSuffix(string(data), "\n*\n") {
			t.Errorf("%s: .wellknown/.gitignore = %q, %v; want it to end in the line *", step, data, err)
		}
		if err := os.Remove(ignore); err != nil {
			t.Fatal(err)
		}
	}
}

// KeyFileSecret refuses the key's file by any name a page reads it by; a
// key from the environment has no file to refuse.
func TestKeyFileSecret(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "signing.key")
	if err := WriteNewKey(key); err != nil {
		t.Fatal(err)
	}
	hardLink := filepath.Join(dir, "notes.html")
	if err := os.Link(key, hardLink); err != nil {
		t.Fatal(err)
	}
	_, err := inputfile.NewFiles().NewReader(dir, KeyFileSecret(key)).ReadFile(hardLink, inputfile.MaxSize)
	if err == nil || !strings.Contains(err.Error(), "is the signing key "+key+" under another name") {
		t.Errorf("a key hard-linked as a page: error %v, want it refused", err)
	}
	if _, err := inputfile.NewFiles().NewReader(dir, KeyFileSecret("")).ReadFile(hardLink, inputfile.MaxSize); err != nil {
		t.Errorf("a key from the environment: %v", err)
	}
}

func TestWriteNewKeyNeverOverwrites(t *testing.T) {
	key := filepath.Join(t.TempDir(), "k")
	if err := os.WriteFile(key, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteNewKey(key); err == nil {
		t.Fatal("WriteNewKey overwrote a file")
	}
	if data, _ := os.ReadFile(key); string(data) != "precious" {
		t.Error("file changed")
	}
}
