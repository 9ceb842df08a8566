// Package diag defines the error every stage uses for a problem a user can
// fix: where it is (file and line, when known), what is wrong, and the fix
// when one is known. Several problems are joined with errors.Join; the CLI
// prints each on its own line.
package diag

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Error is one problem in the user's input.
type Error struct {
	File string // as the user would write it, e.g. "site.toml" or "content/tools/x.json"
	Line int    // 1-based; 0 when unknown
	Msg  string
	Hint string // a known fix; empty when none
}

// Errorf returns an Error at file:line (line 0: the file as a whole).
func Errorf(file string, line int, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// WithHint sets the fix and returns e.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

func (e *Error) Error() string {
	switch {
	case e.File == "":
		return e.Msg
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	default:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
}

// List returns the individual problems of an error built with errors.Join
// (depth first, in order), or err itself when it is a single error.
func List(err error) []error {
	if err == nil {
		return nil
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range joined.Unwrap() {
		out = append(out, List(e)...)
	}
	return out
}

// Hint returns the fix attached to err, if any.
func Hint(err error) string {
	var d *Error
	if errors.As(err, &d) {
		return d.Hint
	}
	return ""
}

// JSONError locates an encoding/json error in data: the line, and in the
// message the column and byte offset.
func JSONError(file string, data []byte, err error) *Error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var offset int64
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	default:
		return Errorf(file, 0, "invalid JSON: %v", err)
	}
	// Offset counts the bytes read, the offending one included.
	offset = max(offset-1, 0)
	line, col := 1, 1
	for _, b := range data[:min(int(offset), len(data))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return Errorf(file, line, "invalid JSON at column %d (byte offset %d): %s", col, offset, strings.TrimPrefix(err.Error(), "json: "))
}

// Cause strips the operation and path from a file-system error, for
// messages that already name the file.
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
