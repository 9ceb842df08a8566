// Package sync pulls the tool schemas of a running MCP server into tool
// files, so the schemas a site publishes are the ones the server answers
// with. Committing the files it writes is what creates the history the
// change feed is derived from; in CI, a dry run (Options.DryRun, wellknown
// sync --check) tells whether the published schemas are stale.
//
// # Reaching the server
//
// A Source is either a Streamable HTTP endpoint (HTTP) or a command that
// speaks MCP on its standard input and output (Stdio). HTTP headers given by
// the user may reference environment variables ($NAME or ${NAME}); they are
// sent only to the endpoint's own origin (never to a host it redirects to),
// and their values never appear in a message or a written file (values
// shorter than four characters excepted: they are no credentials, and hiding
// them would garble messages). The command
// is split like a shell would split it, but no shell runs it: there are no
// expansions, pipes or redirections.
//
// The client is the official MCP Go SDK. Sync follows tools/list pagination
// to the end and keeps each tool object exactly as the server sent it: the
// SDK's typed Tool would drop members it does not know and add default
// annotation hints the server never sent, and a feed entry would then
// report a change that never happened.
//
// # Files
//
// Each tool is written to <dir>/<tool name>.json as stable, pretty JSON:
// keys sorted at every level, two-space indentation, a trailing newline,
// numbers exactly as the server spelled them, and <, > and & unescaped. The
// same answer always gives the same bytes, and an unchanged tool's file is
// not rewritten.
//
// A file belongs to sync when it could have written it: its name is
// <name>.json and its content is a valid tool object whose name is <name>.
// Such a file whose tool the server no longer lists is removed. Every other
// file in the directory is left alone.
//
// # Invalid tools
//
// Every tool the server lists is checked with tools.Parse, the check build
// applies to tool files. If any fails, nothing is written unless
// AllowInvalid is set; then the valid tools are written and the invalid
// ones are reported as skipped (an existing file of a skipped tool is kept:
// the server still lists that tool). A tool name listed twice is always an
// error.
//
// # Report
//
// Changes are classified with package schemadiff, the diff the feed uses: a
// new tool is compatible, a removed one breaking, and a changed one takes
// the class of its schema diff. A file rewritten without a change of its
// canonical (RFC 8785) form is reported as reformatted: the feed ignores it,
// but a diff of the files does.
package sync
