package schemadiff

// Migration is the agent-feed "structural delta" of a schema-change entry.
// Every pointer is an RFC 6901 JSON Pointer with a leading "/", relative to
// the tool object as tools/list returns it (e.g. "/inputSchema/properties/city").
// Only the spec's four operators appear here; anything else a reader should
// know travels in x- prefixed payload keys.
type Migration struct {
	Add    []string          `json:"add,omitempty"`
	Remove []string          `json:"remove,omitempty"`
	Rename map[string]string `json:"rename,omitempty"` // old pointer → new pointer
	Retype map[string]Retype `json:"retype,omitempty"` // pointer → type change
}

// Retype is one type change. Tokens are the spec's: string, number, boolean,
// null, object, array, or nullable<T> for one of those.
type Retype struct {
	From string `json:"from"`
	To   string `json:"to"`
}
