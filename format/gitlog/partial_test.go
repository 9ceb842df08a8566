package gitlog

import (
	"os"
	"path/filepath"
	"testing"
)

// A blobless clone has the history but only the blobs of its checkout. Log
// reads none of the others; FetchMissing fetches them all in one git fetch,
// after which every blob reads without the remote.
func TestPartialClone(t *testing.T) {
	r := newTestRepo(t)
	for _, content := range []string{`{"v":1}`, `{"v":2}`, `{"v":3}`} {
		r.write("tools/a.json", content)
		r.commit("change")
	}
	r.git("config", "uploadpack.allowFilter", "true")
	clone := filepath.Join(t.TempDir(), "clone")
	r.git("clone", "--quiet", "--filter=blob:none", "file://"+filepath.ToSlash(r.dir), clone)

	if remote, err := r.open().PromisorRemote(); err != nil || remote != "" {
		t.Fatalf("PromisorRemote() of the origin = %q, %v; want none", remote, err)
	}
	repo, err := Open(clone)
	if err != nil {
		t.Fatal(err)
	}
	remote, err := repo.PromisorRemote()
	if err != nil || remote != "origin" {
		t.Fatalf("PromisorRemote() of the clone = %q, %v; want origin", remote, err)
	}
	log, err := repo.Log("HEAD", toolFiles)
	if err != nil {
		t.Fatal(err)
	}
	ids := BlobIDs(log)
	if missing, err := repo.missing(ids); err != nil || len(missing) != 2 {
		t.Fatalf("after Log, missing(%d blobs) = %q, %v; want the 2 not checked out", len(ids), missing, err)
	}
	if n, err := repo.FetchMissing(remote, ids); err != nil || n != 2 {
		t.Fatalf("FetchMissing() = %d, %v; want 2", n, err)
	}
	if n, err := repo.FetchMissing(remote, ids); err != nil || n != 0 {
		t.Fatalf("FetchMissing() again = %d, %v; want 0", n, err)
	}

	// extensions.partialClone, which older versions of git set, names the
	// remote first.
	(&testRepo{t: t, dir: clone}).git("config", "extensions.partialClone", "upstream")
	if got, err := repo.PromisorRemote(); err != nil || got != "upstream" {
		t.Errorf("PromisorRemote() with extensions.partialClone = %q, %v; want upstream", got, err)
	}

	// With the remote gone, a blob git had to fetch would fail to read.
	if err := os.Rename(r.dir, r.dir+".gone"); err != nil {
		t.Fatal(err)
	}
	blobs, err := repo.Blobs()
	if err != nil {
		t.Fatal(err)
	}
	defer blobs.Close()
	read := 0
	err = blobs.ReadEach(ids, func(string, []byte) error { read++; return nil })
	if err != nil || read != len(ids) {
		t.Errorf("reading the fetched blobs: %d of %d, %v", read, len(ids), err)
	}
}

// BlobIDs returns the blob ids that the changes of commits name, in order.
func BlobIDs(commits []Commit) []string {
	var ids []string
	for _, c := range commits {
		for _, ch := range c.Changes {
			if ch.Blob != "" {
				ids = append(ids, ch.Blob.String())
			}
		}
	}
	return ids
}
