package main

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// A build names its stages only on a terminal: standard error that is a
// character device, never a pipe or a buffer.
func TestProgressOnlyOnATerminal(t *testing.T) {
	tty, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0) // a character device, as a terminal is
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, tc := range []struct {
		name   string
		stderr io.Writer
		want   bool
	}{
		{"character device", tty, true},
		{"pipe", w, false},
		{"buffer", new(bytes.Buffer), false},
	} {
		c := &cli{stdout: new(bytes.Buffer), stderr: tc.stderr}
		if got := c.progress() != nil; got != tc.want {
			t.Errorf("%s: progress shown %v, want %v", tc.name, got, tc.want)
		}
	}
}
