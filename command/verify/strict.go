package verify

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
)

// payloadKeys are the keys only one entry type's payload has: a signature
// covers the payload, not af:type, so the keys say which type was signed.
var payloadKeys = map[string]string{
	"endpoint": agentfeed.TypeAnnouncement, "protocol": agentfeed.TypeAnnouncement,
	"version": agentfeed.TypeAnnouncement, "asserted-at": agentfeed.TypeAnnouncement,
	"from-version": agentfeed.TypeSchemaChange, "to-version": agentfeed.TypeSchemaChange,
	"effective-at": agentfeed.TypeSchemaChange, "migration": agentfeed.TypeSchemaChange,
	"announced-at": agentfeed.TypeDeprecation, "sunset": agentfeed.TypeDeprecation,
	"replacement": agentfeed.TypeDeprecation, "reason": agentfeed.TypeDeprecation,
}

// payloadRef is what the strict rules read from a payload of any type.
type payloadRef struct {
	EndpointID  string `json:"endpoint-id"`
	Endpoint    string `json:"endpoint"`
	Version     string `json:"version"`
	FromVersion string `json:"from-version"`
	ToVersion   string `json:"to-version"`
}

// strictReader holds a feed to more than the reader contract, which passes
// over only an id repeated with other content: signed payloads can be
// copied, reordered and relabelled by anyone who serves the feed, and each
// of these can roll an endpoint back. So a payload whose keys are another
// type's, a payload already applied under another id (on this run or an
// earlier one), and a schema-change whose from-version is not the
// endpoint's current version (as this run replays it, and as earlier runs
// left it) are each refused.
type strictReader struct {
	earlier map[string]string // entry id → payload, applied on earlier runs
	// earlierIDs is the inverse of earlier.
	earlierIDs map[string]string
	ids        map[string]string // payload → entry id, applied on this run
	// versions is each endpoint's version as earlier runs left it, moved
	// on by the entries this run applies for the first time.
	versions map[string]string
}

func newStrictReader(origin *originState) *strictReader {
	r := &strictReader{
		earlier:    origin.Applied,
		earlierIDs: map[string]string{},
		ids:        map[string]string{},
		versions:   maps.Clone(origin.Versions),
	}
	if r.versions == nil {
		r.versions = map[string]string{}
	}
	for id, payload := range origin.Applied {
		r.earlierIDs[payload] = id
	}
	return r
}

// refuse returns the code and message of the rule e breaks, given the state
// replayed so far; "" when e may be applied.
func (r *strictReader) refuse(st *agentfeed.State, e agentfeed.Entry) (code, msg string) {
	payload := string(e.Content)
	if signed := typesOf(e.Content); len(signed) > 1 {
		return codeTypeMismatch, fmt.Sprintf("its payload has the keys of %s at once; not applied", strings.Join(signed, " and "))
	} else if len(signed) == 1 && signed[0] != e.Type {
		return codeTypeMismatch, fmt.Sprintf("af:type is %s, but its signed payload is of type %s (af:type is not signed); not applied", e.Type, signed[0])
	}
	if r.ids[payload] == e.ID {
		return "", "" // the same entry again: the contract passes it over
	}
	prev, known := r.earlier[e.ID]
	switch {
	case known && prev != payload:
		return codeReplayMismatch, "its payload differs from the one applied on an earlier run; not applied"
	case r.ids[payload] != "":
		return codeDuplicatePayload, fmt.Sprintf("the same signed payload as entry %s, copied under another id; not applied", r.ids[payload])
	case !known && r.earlierIDs[payload] != "":
		return codeDuplicatePayload, fmt.Sprintf("the same signed payload as entry %s, applied on an earlier run; not applied", r.earlierIDs[payload])
	case e.Type != agentfeed.TypeSchemaChange:
		return "", ""
	}
	var ref payloadRef
	if json.Unmarshal(e.Content, &ref) != nil {
		return "", "" // Apply reports it
	}
	if ep, ok := st.Endpoint(ref.EndpointID); ok && ep.Version != ref.FromVersion {
		return codeFromVersion, fmt.Sprintf("from-version is %s, but %s is at version %s here; not applied", ref.FromVersion, ref.EndpointID, ep.Version)
	}
	if v, ok := r.versions[ref.EndpointID]; ok && !known && v != ref.FromVersion {
		return codeFromVersion, fmt.Sprintf("from-version is %s, but an earlier run left %s at version %s; not applied", ref.FromVersion, ref.EndpointID, v)
	}
	return "", ""
}

// kept records an entry Apply took; passedOver says it changed nothing.
func (r *strictReader) kept(e agentfeed.Entry, passedOver bool) {
	r.ids[string(e.Content)] = e.ID
	if _, known := r.earlier[e.ID]; known || passedOver {
		return // versions already holds its effect, or it has none
	}
	var ref payloadRef
	if json.Unmarshal(e.Content, &ref) != nil {
		return
	}
	switch e.Type {
	case agentfeed.TypeAnnouncement:
		// An announcement without an endpoint-id is known by its URL, as
		// the contract says.
		r.versions[cmp.Or(ref.EndpointID, ref.Endpoint)] = ref.Version
	case agentfeed.TypeSchemaChange:
		r.versions[ref.EndpointID] = ref.ToVersion
	}
}

// typesOf lists, sorted, the entry types whose keys a payload has.
func typesOf(payload []byte) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(payload, &m) != nil {
		return nil
	}
	var types []string
	for k := range m {
		if t, ok := payloadKeys[k]; ok && !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	slices.Sort(types)
	return types
}
