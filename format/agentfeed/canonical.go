package agentfeed

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

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
	return entryID(host, typ, entryDigest(typ, endpointID, key))
}

// entryDigest is the part of an entry's id (see EntryID) that its
// endpoint id and key make: the first 8 bytes of a digest.
func entryDigest(typ, endpointID, key string) uint64 {
	sum := sha256.Sum256([]byte(typ + "\x00" + endpointID + "\x00" + key))
	return binary.BigEndian.Uint64(sum[:8])
}

func entryID(host, typ string, digest uint64) string {
	return "urn:af:" + host + ":" + typ + ":" + hex.EncodeToString(binary.BigEndian.AppendUint64(nil, digest))
}

// RepeatedIDs finds the ids (see EntryID) that two or more of a feed's
// entries have, holding 8 bytes an entry, where a State applying them
// holds two digests: a writer that replays its own long feed need only
// remember those (State.RememberOnly). Add names each entry in turn, by
// its type, endpoint id and key; IDs returns the repeated ids.
type RepeatedIDs struct {
	digests map[string][]uint64 // by type
}

// Add names one entry.
func (r *RepeatedIDs) Add(typ, endpointID, key string) {
	if r.digests == nil {
		r.digests = map[string][]uint64{}
	}
	r.digests[typ] = append(r.digests[typ], entryDigest(typ, endpointID, key))
}

// IDs returns the ids, on host, of two or more of the entries named, and
// lets go of the names.
func (r *RepeatedIDs) IDs(host string) map[string]bool {
	out := map[string]bool{}
	for typ, digests := range r.digests {
		slices.Sort(digests)
		for i := 1; i < len(digests); i++ {
			if digests[i] == digests[i-1] {
				out[entryID(host, typ, digests[i])] = true
			}
		}
	}
	r.digests = nil
	return out
}
