package agentfeed

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// Canonical returns the RFC 8785 form of v as encoding/json marshals it.
func Canonical(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return CanonicalizeJSON(data)
}

// CanonicalizeJSON returns the RFC 8785 form of a JSON document. Unlike the
// underlying transformer, which is not a validator (it turns [1 2] into
// [12]), it first rejects anything that is not valid UTF-8 JSON.
func CanonicalizeJSON(data []byte) ([]byte, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("canonical json: input is not valid UTF-8")
	}
	if !json.Valid(data) {
		return nil, errors.New("canonical json: input is not valid JSON")
	}
	out, err := jcs.Transform(data)
	if err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return out, nil
}

// EntryID returns the stable id of an entry: "urn:af:<host>:<type>:" and 16
// hex digits of the SHA-256 of type, endpoint id and key separated by NUL
// bytes. The key tells entries of one type and endpoint apart (a version, a
// deprecation date); it must never be a commit hash or a clock reading, so
// that rebuilding the same history yields the same ids.
func EntryID(host, typ, endpointID, key string) string {
	sum := sha256.Sum256([]byte(typ + "\x00" + endpointID + "\x00" + key))
	return "urn:af:" + host + ":" + typ + ":" + hex.EncodeToString(sum[:8])
}
