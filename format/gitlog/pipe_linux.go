package gitlog

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is the buffer of the pipes git writes a long output into: git
// log's and git cat-file's. Linux gives a pipe 64 KiB, which git filled
// whenever the build was busy on every core, and then slept until it was
// read: on a 10,000-commit history of 2-3 KB tool files that cost about
// a tenth of the history stage. 1 MiB is the most an unprivileged process
// may ask for by default.
const pipeSize = 1 << 20

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
