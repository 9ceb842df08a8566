package didweb

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// DevKeyPath is where a local build keeps its development key, relative to
// the site directory (git-ignored).
const DevKeyPath = ".wellknown/dev.key"

// KeySources says where a build may find its signing key, in order of
// precedence: a --key-file flag, an environment variable (a CI secret), a
// key file named in site.toml, and, unless Strict, a development key that is
// created on first use. A preview also falls back to the development key
// when the key file named in site.toml is missing: a fresh clone has none,
// since the key is never committed.
type KeySources struct {
	FlagFile   string // --key-file
	EnvName    string // name of the environment variable
	EnvValue   string // its value ("" when unset)
	ConfigFile string // signing.key_file, resolved against the site directory
	SiteDir    string // where .wellknown/ lives
	Strict     bool   // --strict or CI=true: never fall back to a development key
	Preview    bool   // a preview (serve): a missing ConfigFile falls back to the development key
}

// SigningKey is a loaded private key and where it came from.
type SigningKey struct {
	Private ed25519.PrivateKey
	Source  string // for messages: "--key-file signing.key", "$WELLKNOWN_SIGNING_KEY", …
	Dev     bool   // a development key: fine for previews, never for a deploy
	Created bool   // the development key was created by this call
	// File is the key file as named (by a flag, site.toml or the
	// development key's place); "" for a key from the environment.
	File string
	// Warning is a problem that does not stop a build (nil when none).
	Warning *diag.Error
	// Missing is the key file named in site.toml that a preview's
	// development key stands in for ("" when none is).
	Missing string
}

// KeyFileSecret is the key file at name as every reader of the site's
// inputs (imported files, pages, templates, assets) refuses it: by what
// the file is, not by its path, so that no symlink, symlinked directory or
// hard link publishes it, and Markdown never gets to split a key so that
// no scan of the output finds it. A key from the environment has no file:
// the Secret of "" refuses nothing.
func KeyFileSecret(name string) inputfile.Secret {
	if name == "" {
		return inputfile.Secret{}
	}
	return inputfile.NewSecret(name, "the signing key "+name)
}

// maxKeyFile caps what is read of a key file: a PEM key is 119 bytes.
const maxKeyFile = 64 << 10

// Public returns the public half.
func (k SigningKey) Public() ed25519.PublicKey { return k.Private.Public().(ed25519.PublicKey) }

// LoadSigningKey finds, reads and checks the signing key.
func LoadSigningKey(src KeySources) (SigningKey, error) {
	switch {
	case src.FlagFile != "":
		return loadFile(src.FlagFile, "--key-file "+src.FlagFile)
	case src.EnvValue != "":
		key, err := ParsePrivateKey([]byte(src.EnvValue))
		if err != nil {
			return SigningKey{}, diag.Errorf("", 0, "$%s: %v", src.EnvName, err)
		}
		return SigningKey{Private: key, Source: "$" + src.EnvName}, nil
	case src.ConfigFile != "":
		_, statErr := os.Lstat(src.ConfigFile)
		missing := errors.Is(statErr, fs.ErrNotExist)
		if missing && src.Preview && !src.Strict {
			key, err := devKey(src.SiteDir)
			key.Missing = src.ConfigFile
			return key, err
		}
		key, err := loadFile(src.ConfigFile, "signing.key_file "+src.ConfigFile)
		var d *diag.Error
		if missing && errors.As(err, &d) {
			// Typically a deploy whose secret is not set, or a fresh clone:
			// key_file is the local key, never committed. The key is the
			// site's identity, so the fix is to restore it, not to make
			// another one.
			d.WithHint("restore the site's key: set $%s (in CI, the secret holding it), or copy it to %s from a backup; "+
				"a new key is a new signing identity (wellknown's docs/keys.md: Rotating the key), so run wellknown keygen -o %s only for a new site",
				src.EnvName, src.ConfigFile, src.ConfigFile)
		}
		return key, err
	case src.Strict:
		return SigningKey{}, diag.Errorf("", 0, "no signing key: a strict or CI build does not use a development key").
			WithHint("give the site's key: store it in $%s as a CI secret, or pass --key-file; for a new site, create one with: wellknown keygen -o signing.key", src.EnvName)
	}
	return devKey(src.SiteDir)
}

// loadFile reads a key file: a regular file (never a FIFO, which would
// block), judged by what a symlink leads to.
func loadFile(path, source string) (SigningKey, error) {
	real, info, err := inputfile.Resolve("", path)
	if err != nil {
		return SigningKey{}, diag.Errorf(path, 0, "cannot read the signing key: %v", diag.Cause(err))
	}
	data, err := inputfile.ReadFile("", real, maxKeyFile)
	if err != nil {
		return SigningKey{}, diag.Errorf(path, 0, "cannot read the signing key: %v", diag.Cause(err))
	}
	key, err := ParsePrivateKey(data)
	if err != nil {
		return SigningKey{}, diag.Errorf(path, 0, "%v", err)
	}
	k := SigningKey{Private: key, Source: source, File: path}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		k.Warning = diag.Errorf(path, 0, "the signing key is readable by other users (mode %04o)", perm).
			WithHint("make it private with: chmod 600 %s", path)
	}
	return k, nil
}

// devKey reads the development key, creating it on first use.
func devKey(siteDir string) (SigningKey, error) {
	path := filepath.Join(siteDir, filepath.FromSlash(DevKeyPath))
	if err := ignoreDevDir(filepath.Dir(path)); err != nil {
		return SigningKey{}, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := WriteNewKey(path); err != nil {
			return SigningKey{}, err
		}
		key, err := loadFile(path, DevKeyPath)
		key.Dev, key.Created = true, true
		return key, err
	}
	key, err := loadFile(path, DevKeyPath)
	key.Dev = true
	return key, err
}

// devIgnore is .wellknown/.gitignore: the directory keeps itself out of
// git, so that `git add -A` never stages the development key, whether or
// not the site was made by init.
const devIgnore = "# Written by wellknown: nothing here belongs in git (the development signing key).\n*\n"

// ignoreDevDir creates dir (private) with its .gitignore, unless it has one.
func ignoreDevDir(dir string) error {
	// Anyone who can commit can make it a link to elsewhere (the output,
	// templates/assets): the key is only ever written into a real directory.
	if info, err := os.Lstat(dir); err == nil && !info.IsDir() {
		return diag.Errorf(dir, 0, "is %s, not a directory; the development key is written only into a directory of the site", inputfile.Kind(info.Mode())).
			WithHint("remove %s; the build recreates it", inputfile.Typable(dir))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return diag.Errorf(dir, 0, "cannot create the development key's directory: %v", diag.Cause(err))
	}
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return diag.Errorf(dir, 0, "cannot create .gitignore: %v", diag.Cause(err))
	}
	if _, err := f.WriteString(devIgnore); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ParsePrivateKey reads an Ed25519 private key: PEM (PKCS#8 "PRIVATE KEY"),
// or a 32-byte seed (or 64-byte private key) as raw bytes, base64url, base64
// or hex.
func ParsePrivateKey(data []byte) (ed25519.PrivateKey, error) {
	if block, _ := pem.Decode(data); block != nil {
		return parsePEM(block)
	}
	text := strings.TrimSpace(string(data))
	for _, decode := range []func(string) ([]byte, error){
		base64.RawURLEncoding.DecodeString,
		base64.URLEncoding.DecodeString,
		base64.RawStdEncoding.DecodeString,
		base64.StdEncoding.DecodeString,
		hex.DecodeString,
	} {
		if raw, err := decode(text); err == nil && isKeySize(len(raw)) {
			return fromRaw(raw), nil
		}
	}
	// Raw bytes only when they are not text: 32 characters typed into a CI
	// secret are a passphrase, not an Ed25519 seed.
	if isKeySize(len(data)) && !isText(data) {
		return fromRaw(data), nil
	}
	return nil, fmt.Errorf("not an Ed25519 private key (%d bytes): want PEM PKCS#8, or a 32-byte seed as raw bytes, base64url, base64 or hex", len(data))
}

func parsePEM(block *pem.Block) (ed25519.PrivateKey, error) {
	if block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("PEM block %q is not a PKCS#8 PRIVATE KEY", block.Type)
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("PEM private key: %v", err)
	}
	ed, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("PEM private key is a %T, not Ed25519", key)
	}
	return ed, nil
}

// isText reports whether data is all printable ASCII.
func isText(data []byte) bool {
	for _, b := range data {
		if b < 0x20 || b > 0x7e {
			return false
		}
	}
	return true
}

func isKeySize(n int) bool { return n == ed25519.SeedSize || n == ed25519.PrivateKeySize }

func fromRaw(raw []byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Clone(raw[:ed25519.SeedSize]))
}

// MarshalPEM encodes a private key as PEM PKCS#8.
func MarshalPEM(key ed25519.PrivateKey) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		panic(err) // cannot fail for an Ed25519 key
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// GenerateKey returns a new private key.
func GenerateKey() ed25519.PrivateKey {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return key
}

// WriteNewKey creates a new key file (PEM, mode 0600) at path, creating its
// directory. It never overwrites an existing file.
func WriteNewKey(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return diag.Errorf(path, 0, "cannot create the key file: %v", diag.Cause(err))
	}
	if _, err := f.Write(MarshalPEM(GenerateKey())); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
