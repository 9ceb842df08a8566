package gitlog

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is the buffer of the pipes git writes a long output into: git
// log's and git cat-file's. Linux gives a pipe 64 KiB, which git filled
// whenever the reader was busy on every core, and then slept until it was
// read, a context switch for both at every wake-up. With 1 MiB (the most
// an unprivileged process may ask for by default) git ran further ahead
// still, but a long history's build then held more memory while git's
// processes were alive beside it (BENCHMARKS.md). Each such pipe counts
// against its user's quota of pipe buffers (64 MiB by default), and a
// history is read through two at a time.
const pipeSize = 256 << 10

// growPipe gives the pipe r reads from a buffer of pipeSize, as far as
// the system allows; it leaves anything else, and a pipe the system
// refuses it for, as it is.
func growPipe(r io.Reader) {
	f, ok := r.(*os.File)
	if !ok {
		return
	}
	if c, err := f.SyscallConn(); err == nil {
		_ = c.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
	}
}
