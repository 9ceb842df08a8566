// Package prereq decides what a test does when something it needs from
// outside the repository is missing (the upstream data in ../shared,
// Chromium, git): locally it is skipped with a message saying how to get it;
// in CI (CI=true), where .ci/run installs everything, it fails, because a
// skip there would hide a test that never ran.
package prereq

import (
	"fmt"
	"os"
	"testing"
)

// Missing skips t, or fails it under CI=true, with the message.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: a missing prerequisite fails instead of skipping)", msg)
	}
	t.Skip(msg)
}
