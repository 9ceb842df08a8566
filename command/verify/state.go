package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// stateVersion is the version of the state file's format.
const stateVersion = 1

// stateFile is what Options.StatePath remembers between runs (see the
// package documentation).
type stateFile struct {
	path    string
	Version int                     `json:"version"`
	Origins map[string]*originState `json:"origins"` // by origin URL
}

// originState is what a reader keeps about one origin.
type originState struct {
	// Revoked is why trust was withdrawn (feed-terminated, feed-migrated);
	// empty while trusted.
	Revoked string `json:"revoked,omitempty"`
	// Applied maps the id of every entry applied so far to its payload text.
	Applied map[string]string `json:"applied"`
	// Versions maps each endpoint id to its version after the entries
	// applied so far.
	Versions map[string]string `json:"versions,omitempty"`
}

// loadState reads the state file; a file that does not exist yet is an
// empty state. Without a path there is no state (nil).
func loadState(path string) (*stateFile, error) {
	if path == "" {
		return nil, nil
	}
	st := &stateFile{path: path, Version: stateVersion, Origins: map[string]*originState{}}
	data, err := inputfile.ReadFile("", path, inputfile.MaxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(st); err != nil {
		return nil, fmt.Errorf("state file %s: %v", path, err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("state file %s: version %d, want %d", path, st.Version, stateVersion)
	}
	for _, o := range st.Origins {
		if o.Applied == nil {
			o.Applied = map[string]string{}
		}
	}
	return st, nil
}

// origin returns the state of an origin, created empty on first use. Without
// a state file (a nil receiver) it is a fresh state that nothing keeps.
func (st *stateFile) origin(url string) *originState {
	if st == nil {
		return &originState{Applied: map[string]string{}}
	}
	if st.Origins == nil {
		st.Origins = map[string]*originState{}
	}
	o, ok := st.Origins[url]
	if !ok {
		o = &originState{Applied: map[string]string{}}
		st.Origins[url] = o
	}
	return o
}

// save writes the state file atomically: a crash leaves the old state or
// the new one, never half of one.
func (st *stateFile) save() error {
	if st == nil {
		return nil
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(st.path), filepath.Base(st.path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("state file %s: %w", st.path, err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), st.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("state file %s: %w", st.path, err)
	}
	return nil
}
