package gitlog

import (
	"errors"
	"fmt"
)

// ErrMissing is returned, wrapped, by [Repo.ReadBlob] for a name that
// names no object: a path absent from the commit, or no such commit.
var ErrMissing = errors.New("no such object")

// BlobTooLarge is [Repo.ReadBlob]'s error for a blob over its limit, which
// is skipped as it streams past, never held.
type BlobTooLarge struct{ Size int }

func (e *BlobTooLarge) Error() string {
	return fmt.Sprintf("blob of %d bytes, over the size limit", e.Size)
}

// ReadBlob reads the blob name names (such as "<commit>:<path>"), at most
// limit bytes, through one git cat-file process: for the odd file, where
// [Repo.Blobs] serves many.
func (r *Repo) ReadBlob(name string, limit int) ([]byte, error) {
	blobs, err := r.Blobs()
	if err != nil {
		return nil, err
	}
	blobs.Limit = limit
	var data []byte
	ids := make(chan string, 1)
	ids <- name
	close(ids)
	err = blobs.ReadStream(ids, func(_ string, b []byte) error { data = b; return nil })
	if closeErr := blobs.Close(); err == nil {
		err = closeErr
	}
	if size, skipped := blobs.Skipped[name]; skipped {
		return nil, &BlobTooLarge{size}
	}
	if errors.Is(err, ErrMissing) {
		return nil, fmt.Errorf("%s: %w", name, ErrMissing)
	}
	return data, err
}
