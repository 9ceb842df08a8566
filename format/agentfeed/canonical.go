package agentfeed

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wellknown-dev/wellknown/format/canonjson"
)

// Canonical returns the RFC 8785 form of v as encoding/json marshals it.
func Canonical(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	return CanonicalizeJSON(data)
}

// CanonicalizeJSON returns the RFC 8785 form of a JSON document, which must
// be valid UTF-8 JSON without duplicate keys or lone surrogates.
func CanonicalizeJSON(data []byte) ([]byte, error) {
	v, err := canonjson.Decode(data, canonjson.Limits{})
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return nil, fmt.Errorf("canonical json: input is not valid JSON: %w", err)
	case err != nil:
		return nil, fmt.Errorf("canonical json: %w", err)
	}
	out, err := canonjson.Canonical(v)
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
