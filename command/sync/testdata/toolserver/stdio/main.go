// Command stdio serves package toolserver's server over standard input and
// output.
//
//	stdio -tools FILE [-name NAME] [-version V] [-page-size N] [-crash MESSAGE]
//
// With -crash, it prints MESSAGE to standard error and exits with status 1
// before the handshake.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/wellknown/command/sync/testdata/toolserver"
)

func main() {
	file := flag.String("tools", "", "JSON array of tool objects")
	name := flag.String("name", "toolserver", "serverInfo name")
	version := flag.String("version", "1.0.0", "serverInfo version")
	pageSize := flag.Int("page-size", 2, "tools per tools/list page")
	crash := flag.String("crash", "", "print this to standard error and exit 1")
	flag.Parse()
	if *crash != "" {
		fmt.Fprintln(os.Stderr, *crash)
		os.Exit(1)
	}
	data, err := os.ReadFile(*file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s, err := toolserver.New(*name, *version, data, *pageSize)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
