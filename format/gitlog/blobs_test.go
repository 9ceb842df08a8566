package gitlog

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestBlobs(t *testing.T) {
	r := newTestRepo(t)
	contents := map[string]string{
		"tools/empty.json":  "",
		"tools/binary.bin":  "\x00\xff\n\x00 missing\n\r\n",
		"tools/large.json":  strings.Repeat(`{"large":true}`, 20000), // larger than the read buffer
		"tools/newline.txt": "\n",
	}
	for i := range 200 {
		contents[fmt.Sprintf("tools/t%03d.json", i)] = fmt.Sprintf(`{"name":"t%d"}`+"\n", i)
	}
	for path, content := range contents {
		r.write(path, content)
	}
	log, blobs := commitForBlobs(t, r, "blobs")

	checkRead := func(path, id string) {
		t.Helper()
		got, err := readOne(blobs, id)
		if err != nil {
			t.Fatalf("Read(%s) for %s: %v", id, path, err)
		}
		if !bytes.Equal(got, []byte(contents[path])) {
			t.Errorf("Read(%s) for %s = %.40q, want %.40q", id, path, got, contents[path])
		}
	}
	for _, c := range log[0].Changes {
		checkRead(c.Path, c.Blob.String())
	}
	if len(log[0].Changes) != len(contents) {
		t.Errorf("read %d blobs, want %d", len(log[0].Changes), len(contents))
	}

	emptyID := r.blob("").String()
	for _, bad := range []struct{ id, want string }{
		{strings.Repeat("0", 40), "missing"},
		{"no-such-object", "missing"},
		{r.git("rev-parse", "HEAD^{tree}"), "is a tree, not a blob"},
		{"two\nlines", "invalid object name"},
		{"", "invalid object name"},
	} {
		if _, err := readOne(blobs, bad.id); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Read(%q) error = %v, want one saying %q", bad.id, err, bad.want)
		}
		checkRead("tools/empty.json", emptyID) // the reader still works
	}
	checkRead("tools/binary.bin", "HEAD:tools/binary.bin")

	if err := blobs.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if err := blobs.Close(); err != nil {
		t.Errorf("second Close() = %v", err)
	}
	if _, err := readOne(blobs, emptyID); err == nil {
		t.Error("Read after Close succeeded")
	}
}

func TestBlobsReadEach(t *testing.T) {
	r := newTestRepo(t)
	contents := map[string]string{}
	for i := range 200 {
		path := fmt.Sprintf("tools/t%03d.json", i)
		contents[path] = strings.Repeat(fmt.Sprintf("blob %d\n", i), i%50)
		r.write(path, contents[path])
	}
	r.commit("many blobs")
	repo := r.open()
	log, err := repo.Log("HEAD", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	want := map[string]string{} // blob id → contents
	// Enough requests to fill the pipes both ways.
	for range 20 {
		for _, c := range log[0].Changes {
			ids = append(ids, c.Blob.String())
			want[c.Blob.String()] = contents[c.Path]
		}
	}
	blobs, err := repo.Blobs()
	if err != nil {
		t.Fatal(err)
	}
	defer blobs.Close()

	var got []string
	err = blobs.ReadEach(ids, func(id string, data []byte) error {
		if string(data) != want[id] {
			t.Errorf("ReadEach gave %s = %.40q, want %.40q", id, data, want[id])
		}
		got = append(got, id)
		return nil
	})
	if err != nil || !slices.Equal(got, ids) {
		t.Fatalf("ReadEach = %v after calling fn for %d of %d ids in order", err, len(got), len(ids))
	}

	// A limit skips the larger blobs, records them, and keeps the reader in
	// step for the rest.
	var small, large string
	for _, c := range log[0].Changes {
		n := len(contents[c.Path])
		if n > 0 && (small == "" || n < len(want[small])) {
			small = c.Blob.String()
		}
		if large == "" || n > len(want[large]) {
			large = c.Blob.String()
		}
	}
	if len(want[large]) <= len(want[small]) {
		t.Fatal("the test repository needs blobs of different sizes")
	}
	limited, err := repo.Blobs()
	if err != nil {
		t.Fatal(err)
	}
	defer limited.Close()
	limited.Limit = len(want[small])
	var read []string
	if err := limited.ReadEach([]string{large, small, large, small}, func(id string, _ []byte) error { read = append(read, id); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(read, []string{small, small}) || limited.Skipped[large] != len(want[large]) {
		t.Errorf("with a limit, read %v and skipped %v", read, limited.Skipped)
	}

	missing := strings.Repeat("0", 40)
	stop := errors.New("stop")
	for _, tc := range []struct {
		ids   []string
		fnErr error
		want  string
		calls int
	}{
		{[]string{ids[0], missing, ids[1]}, nil, "blob " + missing + ": missing", 1},
		{ids, stop, "stop", 1},
		{[]string{ids[0], "two\nlines"}, nil, "invalid object name", 1},
	} {
		calls := 0
		err := blobs.ReadEach(tc.ids, func(string, []byte) error { calls++; return tc.fnErr })
		if err == nil || !strings.Contains(err.Error(), tc.want) || calls != tc.calls {
			t.Errorf("ReadEach: error %v after %d calls, want %q after %d", err, calls, tc.want, tc.calls)
		}
		if data, err := readOne(blobs, ids[1]); err != nil || string(data) != want[ids[1]] {
			t.Errorf("Read after a failed ReadEach = %q, %v", data, err)
		}
	}
}

// readOne reads one blob.
func readOne(b *Blobs, id string) ([]byte, error) {
	var data []byte
	err := b.ReadEach([]string{id}, func(_ string, d []byte) error {
		data = d
		return nil
	})
	return data, err
}

// TestBlobsReadStream sends names one at a time, each only after the answer
// to the one before: a reader that held requests back until the channel is
// closed would never answer the first.
func TestBlobsReadStream(t *testing.T) {
	r := newTestRepo(t)
	for i := range 3 {
		r.write(fmt.Sprintf("t%d.json", i), fmt.Sprintf("blob %d\n", i))
	}
	log, blobs := commitForBlobs(t, r, "three blobs")
	ids := make(chan string)
	answered := make(chan string)
	go func() {
		for _, c := range log[0].Changes {
			ids <- c.Blob.String()
			<-answered
		}
		ids <- "two\nlines"
		ids <- log[0].Changes[0].Blob.String() // read to the end, never sent
		close(ids)
	}()
	var got []string
	err := blobs.ReadStream(ids, func(id string, data []byte) error {
		got = append(got, string(data))
		answered <- id
		return nil
	})
	if want := []string{"blob 0\n", "blob 1\n", "blob 2\n"}; !slices.Equal(got, want) || err == nil || !strings.Contains(err.Error(), "invalid object name") {
		t.Fatalf("ReadStream gave %q, %v; want %q and an invalid name", got, err, want)
	}
	if data, err := readOne(blobs, log[0].Changes[1].Blob.String()); err != nil || string(data) != "blob 1\n" {
		t.Errorf("Read after ReadStream = %q, %v", data, err)
	}
}

// commitForBlobs commits what r holds and returns the repository's log and
// a blob reader, closed when the test ends.
func commitForBlobs(t *testing.T, r *testRepo, message string) ([]Commit, *Blobs) {
	t.Helper()
	r.commit(message)
	repo := r.open()
	log, err := repo.Log("HEAD", nil)
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := repo.Blobs()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blobs.Close() })
	return log, blobs
}

// With Buffer set, each blob is read into the slice it returns, and its
// contents are whole.
func TestBlobsBuffer(t *testing.T) {
	r := newTestRepo(t)
	want := map[string]string{"a.json": `{"a":1}`, "b.json": strings.Repeat("b", 100), "c.json": ""}
	for path, content := range want {
		r.write(path, content)
	}
	log, blobs := commitForBlobs(t, r, "buffers")
	backing := make([]byte, 0, 1024)
	var asked []int
	blobs.Buffer = func(n int) []byte {
		asked = append(asked, n)
		backing = backing[len(backing):] // the next part, never handed out before
		return backing[:n]
	}
	paths := map[string]string{}
	for _, c := range log[0].Changes {
		paths[c.Blob.String()] = c.Path
	}
	err := blobs.ReadEach(slices.Sorted(maps.Keys(paths)), func(id string, data []byte) error {
		if string(data) != want[paths[id]] {
			t.Errorf("blob of %s = %q, want %q", paths[id], data, want[paths[id]])
		}
		if cap(data) > 0 && &data[:1][0] != &backing[:1][0] {
			t.Errorf("blob of %s was not read into the buffer given", paths[id])
		}
		return nil
	})
	if err != nil || len(asked) != len(want) {
		t.Fatalf("ReadEach: %v; %d buffers asked for %d blobs", err, len(asked), len(want))
	}
}
