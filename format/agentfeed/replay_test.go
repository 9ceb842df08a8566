package agentfeed

import (
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"
)

// replay applies entries to a new state, as a reader of a whole feed does.
func replay(entries []Entry) (*State, error) {
	st := NewState()
	if err := st.ApplyAll(0, entries); err != nil {
		return nil, err
	}
	return st, nil
}

// unsignedEntry is an entry for replay, which does not look at signatures.
func unsignedEntry(t *testing.T, id, typ string, payload any) Entry {
	t.Helper()
	content, err := Canonical(payload)
	if err != nil {
		t.Fatal(err)
	}
	return Entry{ID: id, Type: typ, Content: content}
}

// replayScenario exercises every rule of replay; replayScenarioState is the
// state it must lead to.
func replayScenario(t *testing.T) []Entry {
	announce := func(id, endpointID, url, protocol, version string) Entry {
		return unsignedEntry(t, id, TypeAnnouncement, Announcement{EndpointID: endpointID, Endpoint: url, Protocol: protocol, Version: version, AssertedAt: "t"})
	}
	return []Entry{
		announce("u1", "a", "https://x/a", "rest", "1.0"),
		announce("u2", "b", "https://x/b", "mcp", "1.0"),
		announce("u3", "c", "https://x/c", "rest", "2.0"),
		unsignedEntry(t, "u4", TypeSchemaChange, SchemaChange{EndpointID: "a", FromVersion: "1.0", ToVersion: "1.1", EffectiveAt: "t"}),
		unsignedEntry(t, "u5", TypeSchemaChange, SchemaChange{EndpointID: "z", FromVersion: "3", ToVersion: "4", EffectiveAt: "t"}),
		unsignedEntry(t, "u6", TypeDeprecation, Deprecation{EndpointID: "a", AnnouncedAt: "t", Sunset: "2027-01-01T00:00:00Z", Replacement: ptr("c")}),
		unsignedEntry(t, "u7", TypeDeprecation, Deprecation{EndpointID: "never-announced", AnnouncedAt: "t", Sunset: "s"}),
		unsignedEntry(t, "u8", "x-future-type", map[string]string{"endpoint-id": "a"}),
		announce("u1", "a", "https://x/a", "rest", "1.0"),        // the same entry again
		announce("u2", "b", "https://x/elsewhere", "mcp", "9.9"), // the same id, other content
		announce("u9", "a", "https://x/a2", "rest", "1.2"),
		unsignedEntry(t, "u10", TypeDeprecation, Deprecation{EndpointID: "b", AnnouncedAt: "t", Sunset: "2026-12-01T00:00:00Z"}),
		{ID: "u11", Type: TypeAnnouncement, Content: []byte(`{"endpoint":"https://x/d","protocol":"a2a","version":"1"}`)},
	}
}

var replayScenarioState = &State{
	Endpoints: []Endpoint{
		{EndpointID: "a", Endpoint: "https://x/a2", Protocol: "rest", Version: "1.2", Deprecated: &Deprecated{Sunset: "2027-01-01T00:00:00Z", Replacement: ptr("c")}},
		{EndpointID: "b", Endpoint: "https://x/b", Protocol: "mcp", Version: "1.0", Deprecated: &Deprecated{Sunset: "2026-12-01T00:00:00Z"}},
		{EndpointID: "c", Endpoint: "https://x/c", Protocol: "rest", Version: "2.0"},
		{EndpointID: "z", Version: "4"},
		{EndpointID: "https://x/d", Endpoint: "https://x/d", Protocol: "a2a", Version: "1"},
	},
	ByProtocol: map[string]string{"rest": "a", "mcp": "b", "a2a": "https://x/d"},
	Skipped: []Skipped{
		{Index: 6, EntryID: "u7", Reason: SkipDeprecationOfUnknown},
		{Index: 7, EntryID: "u8", Reason: SkipUnknownType},
		{Index: 9, EntryID: "u2", Reason: SkipReplayMismatch},
	},
}

func TestReplay(t *testing.T) {
	st, err := replay(replayScenario(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"endpoints", st.Endpoints, replayScenarioState.Endpoints},
		{"by-protocol", st.ByProtocol, replayScenarioState.ByProtocol},
		{"skipped", st.Skipped, replayScenarioState.Skipped},
	} {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("%s\n got %+v\nwant %+v", f.name, f.got, f.want)
		}
	}
	z, ok := st.Endpoint("z")
	if !ok || z.Version != "4" || z.Endpoint != "" || z.Protocol != "" {
		t.Errorf(`Endpoint("z") = %+v, %v; want the record a schema change created, at to-version 4, with no URL`, z, ok)
	}
	if _, ok := st.Endpoint("never-announced"); ok {
		t.Error("a deprecation of an unknown endpoint created a record")
	}
}

func TestReplayRejectsMalformedPayloads(t *testing.T) {
	for _, tc := range []struct{ name, typ, content, want string }{
		{"not JSON", TypeAnnouncement, `{`, "entry 1 (urn:af:x:1): endpoint-announcement payload: unexpected end of JSON input"},
		{"not an object", TypeSchemaChange, `[]`, "cannot unmarshal array"},
		{"number for a version", TypeAnnouncement, `{"endpoint":"/a","protocol":"rest","version":1.0}`, "cannot unmarshal number"},
		{"announcement without endpoint", TypeAnnouncement, `{"endpoint-id":"a","protocol":"rest","version":"1"}`, "payload: no endpoint"},
		{"announcement without protocol", TypeAnnouncement, `{"endpoint":"/a","version":"1"}`, "no protocol"},
		{"schema change without to-version", TypeSchemaChange, `{"endpoint-id":"a","from-version":"1","migration":{}}`, "schema-change payload: no to-version"},
		{"schema change with malformed migration", TypeSchemaChange, `{"endpoint-id":"a","from-version":"1","to-version":"2","migration":{"add":"/x"}}`, "cannot unmarshal string"},
		{"deprecation without sunset", TypeDeprecation, `{"endpoint-id":"a","replacement":null}`, "deprecation payload: no sunset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := replay([]Entry{{ID: "urn:af:x:1", Type: tc.typ, Content: []byte(tc.content)}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("replay = %+v, %v; want error containing %q", st, err, tc.want)
			}
		})
	}
}

// A state that remembers only the ids that repeat derives what one that
// remembers every id does, holding the digests of those alone.
func TestReplayRememberingOnlyTheRepeatedIDs(t *testing.T) {
	entries := replayScenario(t)
	for i := range 300 {
		entries = append(entries, unsignedEntry(t, fmt.Sprint("v", i), TypeSchemaChange,
			SchemaChange{EndpointID: "c", FromVersion: fmt.Sprint(i), ToVersion: fmt.Sprint(i + 1), EffectiveAt: "t"}))
	}
	entries = append(entries, entries[3], entries[20]) // two more replays
	entries[len(entries)-1].Content = []byte(`{}`)     // the second one with other content
	want, err := replay(entries)
	if err != nil {
		t.Fatal(err)
	}
	seen, repeated := map[string]bool{}, map[string]bool{}
	for _, e := range entries {
		repeated[e.ID] = seen[e.ID]
		seen[e.ID] = true
	}
	maps.DeleteFunc(repeated, func(_ string, again bool) bool { return !again })
	st := NewState()
	st.RememberOnly(repeated)
	if err := st.ApplyAll(0, entries); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.Endpoints, want.Endpoints) || !reflect.DeepEqual(st.ByProtocol, want.ByProtocol) || !reflect.DeepEqual(st.Skipped, want.Skipped) {
		t.Errorf("the state is\n%+v\nwant, as remembering every id,\n%+v", st, want)
	}
	if len(repeated) != 4 || len(st.applied) != len(repeated) {
		t.Errorf("%d ids remembered, of %d that repeat; want the 4 that repeat", len(st.applied), len(repeated))
	}
}

// RepeatedIDs names the ids of the entries named more than once, and no
// other: an entry of another type with the same endpoint and key has
// another id.
func TestRepeatedIDs(t *testing.T) {
	var r RepeatedIDs
	for i := range 1000 {
		r.Add(TypeSchemaChange, "c", fmt.Sprint(i, " -> ", i+1))
		r.Add(TypeAnnouncement, "c", fmt.Sprint(i, " -> ", i+1))
	}
	r.Add(TypeSchemaChange, "c", "7 -> 8")
	r.Add(TypeDeprecation, "a", "s")
	r.Add(TypeDeprecation, "a", "s")
	r.Add(TypeDeprecation, "a", "s")
	got := r.IDs("example.com")
	want := map[string]bool{
		EntryID("example.com", TypeSchemaChange, "c", "7 -> 8"): true,
		EntryID("example.com", TypeDeprecation, "a", "s"):       true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("repeated ids %v, want %v", got, want)
	}
}
