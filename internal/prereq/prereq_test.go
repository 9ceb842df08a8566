package prereq

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Run in a child process: a missing prerequisite skips locally and fails
// under CI=true.
func TestMissing(t *testing.T) {
	if os.Getenv("PREREQ_CHILD") == "1" {
		Missing(t, "the frobnicator is not installed")
		return
	}
	for ci, want := range map[string]string{"": "--- SKIP", "true": "--- FAIL"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissing$", "-test.v")
		cmd.Env = append(os.Environ(), "PREREQ_CHILD=1", "CI="+ci)
		out, err := cmd.CombinedOutput()
		if !strings.Contains(string(out), want) || !strings.Contains(string(out), "the frobnicator is not installed") || (err != nil) != (ci == "true") {
			t.Errorf("CI=%q: want %s with the message (err %v), got:\n%s", ci, want, err, out)
		}
	}
}
