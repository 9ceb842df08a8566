package replay

import (
	"fmt"

	"github.com/wellknown-dev/wellknown/internal/diag"
)

// fetchMissingBlobs fetches, in one batch, those of the blobs ids that a
// partial ("blobless") clone lacks, before they are read: otherwise git
// fetches each on demand, one round trip at a time.
func (h *historyReader) fetchMissingBlobs(rh *repoHistory, remote string, ids []string) error {
	n, err := rh.repo.FetchMissing(remote, ids)
	if err != nil {
		return diag.Errorf("", 0, "%v", err).
			WithHint("a partial clone fetches the old versions of the input files from its remote %s: make it reachable, or clone without --filter", remote)
	}
	if n == 0 {
		return nil
	}
	h.out.Notices = append(h.out.Notices, fmt.Sprintf("%s is a partial clone: fetched its %d missing blobs from %s in one batch",
		dirName(rh.repo.Root()), n, remote))
	return nil
}
