// Package toolserver is the MCP server the sync tests talk to: a server of
// the official Go SDK whose tools come from a JSON array of tool objects.
// The schemas are served byte for byte as given, so a test controls exactly
// what tools/list answers.
package toolserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// New returns a server named name at version that lists the tools in
// toolsJSON (a JSON array of tool objects), pageSize to a tools/list page.
func New(name, version string, toolsJSON []byte, pageSize int) (*mcp.Server, error) {
	var specs []struct {
		mcp.Tool
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	}
	if err := json.Unmarshal(toolsJSON, &specs); err != nil {
		return nil, fmt.Errorf("tools: %v", err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, &mcp.ServerOptions{PageSize: pageSize})
	for _, spec := range specs {
		t := spec.Tool
		t.InputSchema = spec.InputSchema
		if spec.OutputSchema != nil {
			t.OutputSchema = spec.OutputSchema
		}
		s.AddTool(&t, answer)
	}
	return s, nil
}

func answer(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{}, nil
}
