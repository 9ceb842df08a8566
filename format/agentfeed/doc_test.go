package agentfeed

import (
	"crypto/ed25519"
	"fmt"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/didweb"
)

// TestPackageDocExample keeps the worked example of the specification in
// doc.go true: the key, the signed bytes and the document it shows are what
// this package produces.
func TestPackageDocExample(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	spec := file.Doc.Text()

	f := exampleFeed(t)
	content := string(f.Entries[0].Content)
	key := didweb.EncodeBase64URLKey(testKey.Public().(ed25519.PublicKey))
	for _, want := range []string{key, fmt.Sprintf("these %d bytes", len(content)), "\t" + content + "\n"} {
		if !strings.Contains(spec, want) {
			t.Errorf("the package documentation lacks %q", want)
		}
	}

	start := strings.Index(spec, "\t<?xml")
	end := strings.Index(spec, "\t</feed>\n")
	if start < 0 || end < start {
		t.Fatal("the package documentation has no example feed")
	}
	shown := strings.ReplaceAll(spec[start:end+len("\t</feed>\n")], "\n\t", "\n")[1:]
	doc, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if shown != string(doc) {
		t.Errorf("the example feed in doc.go is out of date; Encode gives\n%s", doc)
	}
}
