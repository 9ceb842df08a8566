package inputfile

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// filesAt returns a Files whose clock is an hour ahead of the real one,
// so that every file the test writes is older than the racy window.
func filesAt() *Files {
	files := NewFiles()
	files.now = func() time.Time { return time.Now().Add(time.Hour) }
	return files
}

// readThrough reads name with a Reader of files and checks its bytes and
// how many files were opened so far.
func readThrough(t *testing.T, files *Files, root, name, want string, opens int) {
	t.Helper()
	data, err := files.NewReader(root, Secret{}).ReadFile(name, MaxSize)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != want {
		t.Errorf("read %q, want %q", data, want)
	}
	if files.opens != opens {
		t.Errorf("%d files opened, want %d", files.opens, opens)
	}
}

// rewrite writes body to name and gives it back its modification time, as
// an editor or rsync -t might; size and mtime then say nothing changed.
func rewrite(t *testing.T, name, body string) {
	t.Helper()
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(name, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
}

func changeTimeOf(t *testing.T, name string) int64 {
	t.Helper()
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	id, ok := identityOf(info)
	if !ok {
		t.Skip("this system gives no inode or ctime: Files keeps nothing")
	}
	return id.changed
}

func TestFilesReadsAFileAgainOnlyWhenItsStatChanged(t *testing.T) {
	root, _ := tree(t)
	name := filepath.Join(root, "a.txt")
	files := filesAt()
	readThrough(t, files, root, name, "a", 1)
	readThrough(t, files, root, name, "a", 1)
	// The same size and modification time; the status change time moves
	// on, once the clock has ticked since the last write.
	changed := changeTimeOf(t, name)
	rewrite(t, name, "b")
	for changeTimeOf(t, name) == changed {
		rewrite(t, name, "b")
	}
	readThrough(t, files, root, name, "b", 2)
	// Another file of the same size and modification time renamed over it.
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "sub", "c.txt")
	if err := os.WriteFile(other, []byte("c"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(other, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, name); err != nil {
		t.Fatal(err)
	}
	readThrough(t, files, root, name, "c", 3)
	readThrough(t, files, root, name, "c", 3)
}

// A file changed within the racy window before it was read is read again:
// an edit in the same clock tick would leave its stat as it was.
func TestFilesReadsARacyFileAgain(t *testing.T) {
	root, _ := tree(t)
	name := filepath.Join(root, "a.txt")
	files := NewFiles()
	changed := time.Unix(0, changeTimeOf(t, name))
	files.now = func() time.Time { return changed.Add(time.Millisecond) }
	readThrough(t, files, root, name, "a", 1)
	rewrite(t, name, "b")
	readThrough(t, files, root, name, "b", 2)
	readThrough(t, files, root, name, "b", 3)
}

// What Files keeps is read through the same checks as ever: a file
// swapped for a symlink out of the repository or a FIFO is refused, not
// answered from what was kept.
func TestFilesKeepsNoRefusedFile(t *testing.T) {
	root, outside := tree(t)
	name := filepath.Join(root, "a.txt")
	files := filesAt()
	readThrough(t, files, root, name, "a", 1)
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), name); err != nil {
		t.Fatal(err)
	}
	if data, err := files.NewReader(root, Secret{}).ReadFile(name, MaxSize); err == nil {
		t.Fatalf("read %q through a symlink out of the repository", data)
	}
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(name, 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := files.NewReader(root, Secret{}).ReadFile(name, MaxSize); err == nil {
		t.Fatalf("read %q from a FIFO", data)
	}
}

// Sum hashes what it is given, also the bytes Files kept of a file.
func TestFilesSum(t *testing.T) {
	root, _ := tree(t)
	name := filepath.Join(root, "sub", "b.txt")
	files := filesAt()
	data, err := files.NewReader(root, Secret{}).ReadFile(name, MaxSize)
	if err != nil {
		t.Fatal(err)
	}
	if _, kept := files.sums[&data[0]]; !kept {
		t.Fatal("the bytes read were not kept")
	}
	for _, b := range [][]byte{data, data[:1], []byte("bb"), nil} {
		if got, want := files.Sum(b), sha256.Sum256(b); got != want {
			t.Errorf("Sum(%q) = %x, want %x", b, got, want)
		}
	}
}

// A file whose times are whole seconds is on a file system of coarse
// times, and is trusted only seconds after its change.
func TestRacyBefore(t *testing.T) {
	start := time.Unix(1000, 500)
	for _, tc := range []struct {
		changed int64
		want    time.Duration
	}{
		{time.Unix(999, 0).UnixNano(), coarseRacyWindow},
		{time.Unix(999, 1).UnixNano(), fineRacyWindow},
	} {
		if got := racyBefore(start, tc.changed); got != start.Add(-tc.want).UnixNano() {
			t.Errorf("racyBefore(%v, %d) = %d, want %v before", start, tc.changed, got, tc.want)
		}
	}
}

// A Sweep forgets the files not read since the one before (a page deleted
// or renamed), and keeps those read.
func TestSweepForgetsUnreadFiles(t *testing.T) {
	root := t.TempDir()
	kept, gone := filepath.Join(root, "kept.md"), filepath.Join(root, "gone.md")
	for _, name := range []string{kept, gone} {
		if err := os.WriteFile(name, []byte("# "+filepath.Base(name)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := filesAt()
	readThrough(t, files, root, kept, "# kept.md\n", 1)
	readThrough(t, files, root, gone, "# gone.md\n", 2)
	files.Sweep()
	readThrough(t, files, root, kept, "# kept.md\n", 2)
	files.Sweep()
	if len(files.known) != 1 || len(files.sums) != 1 {
		t.Errorf("%d files and %d sums kept after a Sweep, want those of the one file read since the last", len(files.known), len(files.sums))
	}
	readThrough(t, files, root, kept, "# kept.md\n", 2)
	readThrough(t, files, root, gone, "# gone.md\n", 3)
}
