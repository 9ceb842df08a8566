package agentfeed

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// Endpoint is the current state of one endpoint, as the snapshot lists it.
type Endpoint struct {
	EndpointID string `json:"endpoint-id"`
	// Endpoint is the announced URL, or empty for an endpoint known only
	// from a schema change.
	Endpoint string `json:"endpoint"`
	// Protocol is the announced protocol, or empty for an endpoint known
	// only from a schema change.
	Protocol   string      `json:"protocol"`
	Version    string      `json:"version"`
	Deprecated *Deprecated `json:"deprecated"`
}

// Deprecated is the deprecation recorded for an endpoint.
type Deprecated struct {
	Sunset      string  `json:"sunset"`
	Replacement *string `json:"replacement,omitempty"` // an endpoint id
}

// SkipReason says why ApplyAll passed over an entry; the values are the
// reader contract's event names.
type SkipReason string

// The reasons ApplyAll passes over an entry.
const (
	SkipUnknownType          SkipReason = "unknown-entry-type"
	SkipReplayMismatch       SkipReason = "replay-mismatch"        // an id seen before, with other content
	SkipDeprecationOfUnknown SkipReason = "deprecation-of-unknown" // the endpoint was never announced
)

// Skipped is an entry that ApplyAll did not apply.
type Skipped struct {
	Index   int // position in the feed (see ApplyAll), from 0
	EntryID string
	Reason  SkipReason
}

// State is the current state a reader derives from a feed.
type State struct {
	Endpoints  []Endpoint        // in the order endpoints first appeared
	ByProtocol map[string]string // protocol → the endpoint id announced last with it
	Skipped    []Skipped

	index map[string]int // endpoint id → position in Endpoints
	// applied holds, by the SHA-256 of an entry id, the SHA-256 of the
	// content applied, to detect replays: digests, not the id and the
	// content, so that a long feed applied one page at a time is not
	// held whole, ids included. With RememberOnly, it holds only the
	// ids in only.
	applied map[[sha256.Size]byte][sha256.Size]byte
	only    map[string]bool
}

// RememberOnly makes st remember, from then on, only the entries whose
// ids are in ids: for a writer that replays its own long feed, and knows
// every other id it applies comes once (see RepeatedIDs), two digests an
// entry would be most of what the replay holds.
func (st *State) RememberOnly(ids map[string]bool) { st.only = ids }

// Endpoint returns the state of the endpoint with the given id.
func (st *State) Endpoint(id string) (Endpoint, bool) {
	i, ok := st.index[id]
	if !ok {
		return Endpoint{}, false
	}
	return st.Endpoints[i], true
}

// ApplyAll applies entries in document order, never by timestamp, as the
// reader contract says, the first at index first (a reader of a whole feed
// gives 0, a writer that replays a long feed a page at a time the page's
// offset):
//   - endpoint-announcement upserts the endpoint (its id, or its URL when
//     the payload has no endpoint-id), keeping any recorded deprecation;
//   - schema-change sets the version to to-version, first creating a
//     record (with no URL or protocol) when the endpoint is unknown;
//   - deprecation records sunset and replacement for a known endpoint.
//
// An id seen before is passed over, and reported when its content differs;
// entries of unknown types and deprecations of unknown endpoints are
// reported and passed over. A payload that is not valid JSON or lacks a
// field the state needs is an error, which names the entry; ApplyAll stops
// at it. It does not verify signatures: give it only entries that
// verified.
func (st *State) ApplyAll(first int, entries []Entry) error {
	for i, e := range entries {
		if err := st.Apply(first+i, e); err != nil {
			return fmt.Errorf("%s: %w", entryRef(first+i, e.ID), err)
		}
	}
	return nil
}

// NewState is the state of an empty feed, for a reader that applies entries
// one at a time.
func NewState() *State {
	return &State{
		ByProtocol: map[string]string{},
		index:      map[string]int{},
		applied:    map[[sha256.Size]byte][sha256.Size]byte{},
	}
}

// Apply applies the entry at index i as ApplyAll does; on an error the
// state is unchanged.
func (st *State) Apply(i int, e Entry) error {
	var id, sum [sha256.Size]byte
	remember := st.only == nil || st.only[e.ID]
	if remember {
		id, sum = sha256.Sum256([]byte(e.ID)), sha256.Sum256(e.Content)
		if prev, seen := st.applied[id]; seen {
			if prev != sum {
				st.skip(i, e, SkipReplayMismatch)
			}
			return nil
		}
	}
	if e.Type != TypeAnnouncement && e.Type != TypeSchemaChange && e.Type != TypeDeprecation {
		st.skip(i, e, SkipUnknownType)
		return nil
	}
	var err error
	switch e.Type {
	case TypeAnnouncement:
		err = st.announce(e.Content)
	case TypeSchemaChange:
		err = st.changeSchema(e.Content)
	case TypeDeprecation:
		var known bool
		known, err = st.deprecate(e.Content)
		if err == nil && !known {
			st.skip(i, e, SkipDeprecationOfUnknown)
		}
	}
	if err != nil {
		return fmt.Errorf("%s payload: %w", e.Type, err)
	}
	if remember {
		st.applied[id] = sum
	}
	return nil
}

func (st *State) skip(i int, e Entry, reason SkipReason) {
	st.Skipped = append(st.Skipped, Skipped{Index: i, EntryID: e.ID, Reason: reason})
}

func (st *State) announce(content []byte) error {
	var a Announcement
	if err := json.Unmarshal(content, &a); err != nil {
		return err
	}
	if a.EndpointID == "" {
		a.EndpointID = a.Endpoint
	}
	if err := require("endpoint", a.Endpoint, "protocol", a.Protocol, "version", a.Version); err != nil {
		return err
	}
	ep := st.upsert(a.EndpointID)
	ep.Endpoint, ep.Protocol, ep.Version = a.Endpoint, a.Protocol, a.Version
	st.ByProtocol[a.Protocol] = a.EndpointID
	return nil
}

func (st *State) changeSchema(content []byte) error {
	var c SchemaChange
	if err := json.Unmarshal(content, &c); err != nil {
		return err
	}
	if err := require("endpoint-id", c.EndpointID, "from-version", c.FromVersion, "to-version", c.ToVersion); err != nil {
		return err
	}
	// The contract creates an unknown endpoint at from-version and moves it
	// to to-version at once; only the latter is observable here.
	st.upsert(c.EndpointID).Version = c.ToVersion
	return nil
}

// deprecate records a deprecation and reports whether the endpoint is known.
func (st *State) deprecate(content []byte) (bool, error) {
	var d Deprecation
	if err := json.Unmarshal(content, &d); err != nil {
		return false, err
	}
	if err := require("endpoint-id", d.EndpointID, "sunset", d.Sunset); err != nil {
		return false, err
	}
	i, known := st.index[d.EndpointID]
	if known {
		st.Endpoints[i].Deprecated = &Deprecated{Sunset: d.Sunset, Replacement: d.Replacement}
	}
	return known, nil
}

// upsert returns the endpoint with the given id, appending it if new.
func (st *State) upsert(id string) *Endpoint {
	i, ok := st.index[id]
	if !ok {
		i = len(st.Endpoints)
		st.index[id] = i
		st.Endpoints = append(st.Endpoints, Endpoint{EndpointID: id})
	}
	return &st.Endpoints[i]
}

// require takes name, value pairs and names the first empty value.
func require(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return fmt.Errorf("no %s", pairs[i])
		}
	}
	return nil
}
