package agentfeed

import "github.com/wellknown-dev/wellknown/format/schemadiff"

// Namespace is the agent-feed extension namespace, bound to the prefix "af".
const Namespace = "https://agent-feed.dev/ns/v0"

// SpecVersion is the af:spec-version this package writes.
const SpecVersion = "0"

// Entry types (the text of af:type and of the entry's title).
const (
	TypeAnnouncement = "endpoint-announcement"
	TypeSchemaChange = "schema-change"
	TypeDeprecation  = "deprecation"
)

// Status is the text of af:feed-status.
type Status string

// The feed statuses v0 defines.
const (
	StatusActive     Status = "active"
	StatusTerminated Status = "terminated"
	StatusMigrated   Status = "migrated"
)

func (s Status) known() bool {
	return s == StatusActive || s == StatusTerminated || s == StatusMigrated
}

// Announcement is the payload of an endpoint-announcement entry.
type Announcement struct {
	EndpointID string `json:"endpoint-id"`
	Endpoint   string `json:"endpoint"`
	Protocol   string `json:"protocol"`
	Version    string `json:"version"`
	AssertedAt string `json:"asserted-at"`
	// SchemaSHA256 binds the archived tool version to the signature.
	SchemaSHA256 string `json:"x-schema-sha256,omitempty"`
	// Tools, on a server's release, lists the tool versions the release
	// ships: "name@version" by name, space-separated (payload values are
	// strings), so a reader can tell which release first carried a change.
	Tools string `json:"x-tools,omitempty"`
}

// SchemaChange is the payload of a schema-change entry.
type SchemaChange struct {
	EndpointID  string `json:"endpoint-id"`
	FromVersion string `json:"from-version"`
	ToVersion   string `json:"to-version"`
	EffectiveAt string `json:"effective-at"`
	// Migration is a struct, not a pointer, so the required "migration"
	// key is always written, as {} when the delta is empty.
	Migration    schemadiff.Migration `json:"migration"`
	Compat       string               `json:"x-compat,omitempty"`
	SchemaSHA256 string               `json:"x-schema-sha256,omitempty"`
}

// Deprecation is the payload of a deprecation entry. Replacement (an
// endpoint id) and Reason are written as null when nil.
type Deprecation struct {
	EndpointID  string  `json:"endpoint-id"`
	AnnouncedAt string  `json:"announced-at"`
	Sunset      string  `json:"sunset"`
	Replacement *string `json:"replacement"`
	Reason      *string `json:"reason"`
}
