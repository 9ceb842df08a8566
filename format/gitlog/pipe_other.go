//go:build !linux

package gitlog

import "io"

// growPipe does nothing: only Linux lets a process size a pipe's buffer.
func growPipe(io.Reader) {}
