package sync

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/prettyjson"
)

// toolFile is a tool file's path, content, and parsed tool.
type toolFile struct {
	path string
	data []byte
	tool tools.Tool
}

// encode returns the content sync writes for a tool object: keys sorted at
// every level, two-space indentation, a trailing newline. Numbers keep the
// server's spelling; <, > and & stay as they are, for people reading diffs.
func encode(raw json.RawMessage) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return prettyjson.Marshal(v)
}

// fileName is the name of the file sync writes a tool to.
func fileName(tool string) string { return tool + ".json" }

// readDir reads the tool files in dir. owned are the files sync manages,
// by tool name: <name>.json holding a valid tool named <name>. others are
// the tools declared by the directory's other .json files. A missing
// directory is empty.
func readDir(dir string) (owned map[string]toolFile, others []tools.Tool, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]toolFile{}, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	owned = map[string]toolFile{}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		t, err := tools.Parse(path, data)
		switch {
		case err != nil:
			continue // not a tool file: not ours to touch
		case e.Name() == fileName(t.Name):
			owned[t.Name] = toolFile{path: path, data: data, tool: t}
		default:
			others = append(others, t)
		}
	}
	return owned, others, nil
}

// writeFile replaces path with data atomically: a reader (or an interrupted
// sync) sees the old file or the new one, never a part of either.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
