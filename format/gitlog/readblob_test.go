package gitlog

import (
	"errors"
	"strings"
	"testing"
)

func TestReadBlob(t *testing.T) {
	r := newTestRepo(t)
	r.write("tools/a.json", `{"name": "a"}`)
	r.write("tools/big.json", strings.Repeat("x", 100))
	commit := r.commit("tools")
	repo := r.open()

	if data, err := repo.ReadBlob(commit+":tools/a.json", 50); err != nil || string(data) != `{"name": "a"}` {
		t.Errorf("ReadBlob(a.json) = %q, %v", data, err)
	}
	var tooLarge *BlobTooLarge
	if _, err := repo.ReadBlob(commit+":tools/big.json", 50); !errors.As(err, &tooLarge) || tooLarge.Size != 100 {
		t.Errorf("ReadBlob(big.json) error = %v, want a blob of 100 bytes over the limit", err)
	}
	if _, err := repo.ReadBlob(commit+":tools/gone.json", 50); !errors.Is(err, ErrMissing) {
		t.Errorf("ReadBlob(gone.json) error = %v, want ErrMissing", err)
	}
	if _, err := repo.ReadBlob(commit+":tools", 50); err == nil || errors.Is(err, ErrMissing) {
		t.Errorf("ReadBlob(a tree) error = %v, want one saying it is no blob", err)
	}
}
