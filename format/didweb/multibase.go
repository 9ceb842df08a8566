package didweb

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// multicodecEd25519Pub is the multicodec varint prefix for an Ed25519 public key (0xed, as varint 0xed 0x01).
var multicodecEd25519Pub = []byte{0xed, 0x01}

// EncodeBase64URLKey returns the agent-feed reference form of a public key:
// "u" (the multibase code for base64url without padding) + the raw 32 bytes.
func EncodeBase64URLKey(pub ed25519.PublicKey) string {
	return "u" + base64.RawURLEncoding.EncodeToString(pub)
}

// EncodeMultikey returns the W3C Multikey form of a public key: "z" (base58btc) +
// base58 of the multicodec prefix 0xed01 followed by the raw key, i.e. "z6Mk…".
func EncodeMultikey(pub ed25519.PublicKey) string {
	return "z" + base58Encode(append(append([]byte{}, multicodecEd25519Pub...), pub...))
}

// ParseMultibaseKey decodes an Ed25519 public key written either way:
// "u" + base64url of the raw key, or "z" + base58btc of 0xed01 + raw key.
// A "u" value that itself carries the 0xed01 prefix is accepted too.
func ParseMultibaseKey(s string) (ed25519.PublicKey, error) {
	if s == "" {
		return nil, errors.New("empty publicKeyMultibase")
	}
	var raw []byte
	var err error
	switch s[0] {
	case 'u':
		raw, err = base64.RawURLEncoding.DecodeString(s[1:])
	case 'z':
		raw, err = base58Decode(s[1:])
	default:
		return nil, fmt.Errorf("publicKeyMultibase %q: unsupported multibase prefix %q (want u or z)", s, s[:1])
	}
	if err != nil {
		return nil, fmt.Errorf("publicKeyMultibase %q: %v", s, err)
	}
	if len(raw) == ed25519.PublicKeySize+len(multicodecEd25519Pub) && raw[0] == 0xed && raw[1] == 0x01 {
		raw = raw[len(multicodecEd25519Pub):]
	}
	if len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("publicKeyMultibase %q: decodes to %d bytes, want a %d-byte Ed25519 key", s, len(raw), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(raw), nil
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

func base58Encode(b []byte) string {
	n := new(big.Int).SetBytes(b)
	radix := big.NewInt(58)
	mod := new(big.Int)
	var out []byte
	for n.Sign() > 0 {
		n.DivMod(n, radix, mod)
		out = append(out, base58Alphabet[mod.Int64()])
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, base58Alphabet[0])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

func base58Decode(s string) ([]byte, error) {
	n := new(big.Int)
	radix := big.NewInt(58)
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(base58Alphabet, s[i])
		if d < 0 {
			return nil, fmt.Errorf("invalid base58 character %q", s[i])
		}
		n.Mul(n, radix)
		n.Add(n, big.NewInt(int64(d)))
	}
	var zeros int
	for zeros < len(s) && s[zeros] == base58Alphabet[0] {
		zeros++
	}
	return append(make([]byte, zeros), n.Bytes()...), nil
}
