// Package paths names where each published document lives in the bundle
// (the table of docs/output.md): the stages that write the
// documents and the pages that link to them agree on these paths without
// depending on each other. It also names the marker of an output directory
// (OutputMarker), which the writer puts there and every walk of the inputs
// skips.
package paths

import (
	"os"
	"path/filepath"
	"strconv"
)

// Paths of the site-wide documents.
const (
	Catalog         = "/.well-known/ai-catalog.json"
	ServerCardAlias = "/.well-known/mcp/server-card.json"
	ServerList      = "/.well-known/mcp-servers.json"
	AICards         = "/.well-known/ai-cards.json"
	AgentCard       = "/.well-known/agent-card.json"
	EntityCard      = "/.well-known/entity-card.json"
	Feed            = "/.well-known/agent-feed.xml"
	// FeedArchives holds the feed's archive documents (FeedArchive).
	FeedArchives = "/.well-known/agent-feed/"
	// FeedStylesheet is the XSLT style sheet a browser shows the feed with.
	FeedStylesheet = "/assets/feed.xsl"
	// SchemaArchive holds every published version of every tool (ToolVersion).
	SchemaArchive = "/.well-known/mcp/schemas/"
)

// Paths of the feed's companions.
const (
	Snapshot = "/.well-known/agent-card.json"
	// SnapshotBesideA2A is where the snapshot goes when an A2A Agent Card
	// holds Snapshot (the agent-feed spec and A2A both claim it).
	SnapshotBesideA2A = "/.well-known/agent-feed-snapshot.json"
)

// ServerCardOf is where a server's card is published.
func ServerCardOf(slug string) string { return "/mcp/" + slug + "/server-card.json" }

// AgentCardOf is where an agent's card is published; the first agent's is
// also at AgentCard.
func AgentCardOf(slug string) string { return "/a2a/" + slug + "/agent-card.json" }

// ToolVersion is where one version of a tool is kept, immutable.
func ToolVersion(serverSlug, tool, version string) string {
	return ToolVersions(serverSlug, tool) + version + ".json"
}

// ToolVersions is the folder of a tool's versions (ToolVersion), with its
// final slash.
func ToolVersions(serverSlug, tool string) string {
	return SchemaArchive + serverSlug + "/" + tool + "/"
}

// FeedArchive is where archive document n (from 1, oldest first) of the
// feed is published: archive n holds entries (n-1)·page_size+1 to
// n·page_size, so its path and bytes stay the same as the history grows.
func FeedArchive(n int) string {
	return FeedArchives + "archive-" + strconv.Itoa(n) + ".xml"
}

// OutputMarker is written into every output directory a build creates. Only
// a directory holding it is ever written into or deleted from; while a
// build writes, it holds a lock on the marker, so builds into one directory
// take turns.
const OutputMarker = ".wellknown-output"

// IsOutput reports whether dir is build output: it holds the OutputMarker.
// Input walks skip such a directory, so a build never reads its own output.
func IsOutput(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, OutputMarker))
	return err == nil
}
