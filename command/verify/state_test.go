package verify

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/paths"
)

// statePath is a state file in a new temporary directory.
func statePath(t *testing.T) string { return filepath.Join(t.TempDir(), "state.json") }

func readState(t *testing.T, path string) stateFile {
	t.Helper()
	var st stateFile
	if err := json.Unmarshal(readFile(t, path), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// A known id that comes back with another payload is a replay-mismatch on
// the next run, and the payload first applied stays the one remembered.
func TestStateReplayMismatch(t *testing.T) {
	o := newOrigin(t, hostHeaders)
	state := statePath(t)
	opt := Options{Target: o.base.String(), StatePath: state}

	first := announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0")
	o.minimal(first)
	if rep := run(t, opt); !rep.OK {
		t.Fatalf("first run failed:%s", dump(rep))
	}
	if got := readState(t, state).Origins[o.base.String()].Applied["urn:af:test:1"]; got != string(first.Content) {
		t.Fatalf("state holds %q, want the applied payload", got)
	}

	// Same id, another payload, validly signed: the publisher rewrote history.
	o.minimal(announce(t, o.signer(), "urn:af:test:1", "orders-api", "2.0"))
	rep := run(t, opt)
	if got := codes(rep, SeverityError); !slices.Equal(got, []string{codeReplayMismatch}) {
		t.Fatalf("errors = %v, want replay-mismatch:%s", got, dump(rep))
	}
	if f := findings(rep, codeReplayMismatch); f[0].Entry != "urn:af:test:1" {
		t.Errorf("replay-mismatch names %q", f[0].Entry)
	}
	if got := readState(t, state).Origins[o.base.String()].Applied["urn:af:test:1"]; got != string(first.Content) {
		t.Errorf("state now holds %q: a mismatching payload replaced the applied one", got)
	}

	// Without --state, the same feed is fine: there is nothing to replay against.
	if rep := run(t, Options{Target: o.base.String()}); !rep.OK {
		t.Errorf("a run without state failed:%s", dump(rep))
	}
}

// An applied id that disappears fails the run (rollback): an older bundle
// is genuinely signed, and serving it again is how an endpoint is rolled
// back.
func TestStateVanishedEntry(t *testing.T) {
	o := newOrigin(t, hostHeaders)
	opt := Options{Target: o.base.String(), StatePath: statePath(t)}
	o.minimal(
		announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0"),
		announce(t, o.signer(), "urn:af:test:2", "users-api", "1.0"),
	)
	run(t, opt)
	o.minimal(announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0"))
	rep := run(t, opt)
	if rep.OK {
		t.Fatalf("a vanished entry passed:%s", dump(rep))
	}
	if f := findings(rep, codeRollback); len(f) != 1 || f[0].Entry != "urn:af:test:2" || f[0].Severity != SeverityError {
		t.Errorf("rollback findings = %+v", f)
	}
}

// A feed served again as it was before a schema change takes the endpoint
// back from 2.0 to 1.0: that fails, once for the entry that vanished and
// once for the version. --allow-rollback accepts it as a warning and makes
// the state forget what is gone, so the next run passes without it.
func TestStateRollback(t *testing.T) {
	o := newOrigin(t, hostHeaders)
	opt := Options{Target: o.base.String(), StatePath: statePath(t)}
	v1 := announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0")
	o.minimal(v1, change(t, o.signer(), "urn:af:test:2", "orders-api", "1.0", "2.0"))
	if rep := run(t, opt); !rep.OK {
		t.Fatalf("first run failed:%s", dump(rep))
	}

	o.minimal(v1)
	rep := run(t, opt)
	if got := codes(rep, SeverityError); !slices.Equal(got, []string{codeRollback}) {
		t.Fatalf("errors = %v, want rollback:%s", got, dump(rep))
	}
	f := findings(rep, codeRollback)
	if len(f) != 2 || f[0].Entry != "urn:af:test:2" || f[1].Message != "orders-api is at version 1.0 in the feed, but an earlier run left it at 2.0" {
		t.Fatalf("rollback findings = %+v", f)
	}
	if !strings.Contains(f[0].Hint, "--allow-rollback") {
		t.Errorf("no hint to --allow-rollback: %+v", f[0])
	}
	if got := readState(t, opt.StatePath).Origins[o.base.String()].Versions["orders-api"]; got != "2.0" {
		t.Errorf("a failed run left orders-api at %q in the state, want 2.0", got)
	}

	reset := opt
	reset.AllowRollback = true
	rep = run(t, reset)
	if !rep.OK || !slices.Contains(codes(rep, SeverityWarning), codeRollback) {
		t.Fatalf("--allow-rollback:%s", dump(rep))
	}
	if rep := run(t, opt); !rep.OK {
		t.Errorf("the run after the reset failed:%s", dump(rep))
	}
}

// A feed seen terminated stays distrusted when it turns active again, until
// the operator resets trust; nothing is applied meanwhile.
func TestStateTerminatedThenActive(t *testing.T) {
	o := newOrigin(t, hostHeaders)
	state := statePath(t)
	opt := Options{Target: o.base.String(), StatePath: state}
	one := announce(t, o.signer(), "urn:af:test:1", "orders-api", "1.0")
	two := announce(t, o.signer(), "urn:af:test:2", "users-api", "1.0")

	o.minimal(one)
	run(t, opt)
	o.put(paths.Feed, feedOf(t, o.did(), agentfeed.StatusTerminated, "", one), nil)
	if rep := run(t, opt); !slices.Equal(codes(rep, SeverityError), []string{codeTerminated}) {
		t.Fatalf("terminated run: errors %v", codes(rep, SeverityError))
	}

	o.minimal(one, two) // active again, with a new entry
	rep := run(t, opt)
	if got := codes(rep, SeverityError); !slices.Equal(got, []string{codeTrustNotRestored}) {
		t.Fatalf("errors = %v, want trust-not-restored:%s", got, dump(rep))
	}
	if rep.Origins[0].Trusted {
		t.Error("the flip back to active restored trust")
	}
	st := readState(t, state).Origins[o.base.String()]
	if st.Revoked != codeTerminated {
		t.Errorf("revoked = %q", st.Revoked)
	}
	if _, applied := st.Applied["urn:af:test:2"]; applied {
		t.Error("an entry of a distrusted origin was applied")
	}
	if _, kept := st.Applied["urn:af:test:1"]; !kept {
		t.Error("the state applied before termination was deleted")
	}

	opt.ResetTrust = true
	rep = run(t, opt)
	if !rep.OK || !rep.Origins[0].Trusted {
		t.Fatalf("--reset-trust: ok %v, trusted %v:%s", rep.OK, rep.Origins[0].Trusted, dump(rep))
	}
	st = readState(t, state).Origins[o.base.String()]
	if st.Revoked != "" || st.Applied["urn:af:test:2"] != string(two.Content) {
		t.Errorf("after --reset-trust the state is %+v", st)
	}

	// Once reset, trust holds without the flag.
	opt.ResetTrust = false
	if rep := run(t, opt); !rep.OK {
		t.Errorf("the run after the reset failed:%s", dump(rep))
	}
}

// Two runs over the same site write the same state file, byte for byte.
func TestStateDeterministic(t *testing.T) {
	o := newOrigin(t, hostHeaders)
	o.minimal(
		announce(t, o.signer(), "urn:af:test:b", "users-api", "1.0"),
		announce(t, o.signer(), "urn:af:test:a", "orders-api", "1.0"),
	)
	var files [][]byte
	for range 2 {
		state := statePath(t)
		run(t, Options{Target: o.base.String(), StatePath: state})
		files = append(files, readFile(t, state))
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Errorf("state files differ:\n%s\n%s", files[0], files[1])
	}
}

// A state file that is not one stops the run before any check.
func TestStateUnreadable(t *testing.T) {
	o := newOrigin(t, hostHeaders)
	o.minimal()
	for name, content := range map[string]string{
		"not JSON":        "{",
		"unknown member":  `{"version": 1, "origins": {}, "extra": true}`,
		"another version": `{"version": 2, "origins": {}}`,
	} {
		state := statePath(t)
		if err := os.WriteFile(state, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(t.Context(), Options{Target: o.base.String(), StatePath: state}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// --follow verifies the origin a migrated feed moved to, and stops at a
// circle of migrations.
func TestFollowMigration(t *testing.T) {
	old, moved := newOrigin(t, hostHeaders), newOrigin(t, hostHeaders)
	moved.minimal()
	old.minimal()
	old.put(paths.Feed, feedOf(t, old.did(), agentfeed.StatusMigrated, moved.url(paths.Feed)), nil)

	rep := run(t, Options{Target: old.base.String()})
	if rep.OK || len(rep.Origins) != 1 {
		t.Errorf("without --follow: ok %v, %d origins", rep.OK, len(rep.Origins))
	}

	rep = run(t, Options{Target: old.base.String(), Follow: true})
	if !rep.OK || len(rep.Origins) != 2 {
		t.Fatalf("with --follow: ok %v, %d origins:%s", rep.OK, len(rep.Origins), dump(rep))
	}
	if got := rep.Origins[1]; got.URL != moved.base.String() || !got.Trusted || got.Verified != 1 {
		t.Errorf("followed origin = %+v", got)
	}
	if f := findings(rep, codeMigrated); len(f) != 1 || f[0].Severity != SeverityWarning {
		t.Errorf("feed-migrated findings = %+v, want one warning", f)
	}

	// The new origin migrates back: a circle.
	moved.put(paths.Feed, feedOf(t, moved.did(), agentfeed.StatusMigrated, old.url(paths.Feed)), nil)
	rep = run(t, Options{Target: old.base.String(), Follow: true})
	if len(rep.Origins) != 2 || len(findings(rep, codeFollowLimit)) != 1 || rep.OK {
		t.Errorf("circle: %d origins, ok %v:%s", len(rep.Origins), rep.OK, dump(rep))
	}
}

// --follow follows at most MaxFollow migrations.
func TestFollowLimit(t *testing.T) {
	chain := make([]*origin, MaxFollow+2)
	for i := range chain {
		chain[i] = newOrigin(t, hostHeaders)
		chain[i].minimal()
	}
	for i, o := range chain[:len(chain)-1] {
		o.put(paths.Feed, feedOf(t, o.did(), agentfeed.StatusMigrated, chain[i+1].url(paths.Feed)), nil)
	}
	rep := run(t, Options{Target: chain[0].base.String(), Follow: true})
	if len(rep.Origins) != MaxFollow+1 || len(findings(rep, codeFollowLimit)) != 1 || rep.OK {
		t.Errorf("%d origins, ok %v:%s", len(rep.Origins), rep.OK, dump(rep))
	}
}
