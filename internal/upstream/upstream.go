// Package upstream gives tests access to the upstream data kept beside the
// repository in ../shared (JSON Schemas, their example documents, and test
// vectors). The data is never copied into this repository: a test that needs
// it is skipped, with a message, when the folder is absent.
package upstream

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wellknown-dev/wellknown/internal/gittest"
	"github.com/wellknown-dev/wellknown/internal/prereq"
)

// Dir returns the shared folder, skipping the test when it is absent.
func Dir(t testing.TB) string {
	t.Helper()
	root, err := gittest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(filepath.Dir(root), "shared")
	if _, err := os.Stat(dir); err != nil {
		prereq.Missing(t, "upstream data not found at ../shared (beside the repository; it comes with the project's workspace): %v", err)
	}
	return dir
}

// Path returns a file or folder under the shared folder.
func Path(t testing.TB, elem ...string) string {
	return filepath.Join(append([]string{Dir(t)}, elem...)...)
}

// Schemas of the upstream formats, by the name Validate takes: the schema
// file under shared/schemas and the location of the schema within it.
var Schemas = map[string]struct{ File, Fragment string }{
	"server-card":     {"mcp-server-card.schema.json", "#/$defs/ServerCard"},
	"registry-server": {"mcp-registry-server.schema.json", ""},
	"ai-cards":        {"ai-card-v0.schema.json", ""},
	"a2a-agent-card":  {"a2a-agent-card.schema.json", ""},
	"edp-entity-card": {"edp-entity-card.schema.json", ""},
}

var (
	compileOnce sync.Once
	compiled    map[string]*jsonschema.Schema
	compileErr  error
)

// Validate checks doc against the named upstream schema (see Schemas), with
// format assertions on, and returns the validation error.
func Validate(t testing.TB, name string, doc []byte) error {
	t.Helper()
	dir := Path(t, "schemas")
	compileOnce.Do(func() { compiled, compileErr = compileAll(dir) })
	if compileErr != nil {
		t.Fatal(compileErr)
	}
	s, ok := compiled[name]
	if !ok {
		t.Fatalf("no upstream schema named %q", name)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

func compileAll(dir string) (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	out := map[string]*jsonschema.Schema{}
	for name, s := range Schemas {
		data, err := os.ReadFile(filepath.Join(dir, s.File))
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		url := "file:///schemas/" + s.File
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
		if out[name], err = c.Compile(url + s.Fragment); err != nil {
			return nil, err
		}
	}
	return out, nil
}
