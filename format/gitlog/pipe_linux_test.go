package gitlog

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// grownPipes counts the pipes this process has open whose buffer is
// pipeSize.
func grownPipes(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	n := 0
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, _ := os.Readlink("/proc/self/fd/" + e.Name()); !strings.HasPrefix(target, "pipe:") {
			continue
		}
		if size, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0); err == nil && size == pipeSize {
			n++
		}
	}
	return n
}

// skipUnlessGrowable skips a test where a pipe cannot be given pipeSize,
// and growPipe leaves pipes as they are: a system whose limit is lower,
// or a user whose quota of pipe buffers is used up.
func skipUnlessGrowable(t *testing.T) {
	limit, err := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if err != nil {
		t.Skipf("no pipe-max-size: %v", err)
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(string(limit))); n < pipeSize {
		t.Skipf("pipes are limited to %d bytes here", n)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := unix.FcntlInt(r.Fd(), unix.F_SETPIPE_SZ, pipeSize); err != nil {
		t.Skipf("a pipe of %d bytes is refused here: %v", pipeSize, err)
	}
}

func TestGrowPipe(t *testing.T) {
	skipUnlessGrowable(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	growPipe(r)
	if size, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0); err != nil || size != pipeSize {
		t.Errorf("pipe buffer after growPipe: %d, %v; want %d", size, err, pipeSize)
	}
}

// The pipes git log and git cat-file write their output into are grown
// while they are read. The count is of the whole process's pipes: no test
// of the package runs in parallel with another.
func TestGitOutputPipesAreGrown(t *testing.T) {
	skipUnlessGrowable(t)
	r := newTestRepo(t)
	r.write("tools/a.json", `{"name":"a"}`)
	r.commit("a")
	repo := r.open()
	before := grownPipes(t)
	during := -1
	if err := repo.LogEach("HEAD", nil, func(Commit) error { during = grownPipes(t); return nil }); err != nil {
		t.Fatal(err)
	}
	if during != before+1 {
		t.Errorf("git log: %d grown pipes while it is read, %d before", during, before)
	}
	blobs, err := repo.Blobs()
	if err != nil {
		t.Fatal(err)
	}
	defer blobs.Close()
	if n := grownPipes(t); n != before+1 {
		t.Errorf("git cat-file: %d grown pipes while it runs, %d before", n, before)
	}
}
