package timeline

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/tools"
)

// memoryStore is a Store in memory, for tests, that can be made to fail.
type memoryStore struct {
	mu         sync.Mutex
	kept       [][]byte
	keepFails  bool
	recallFail bool
	recalls    int
	lost       []error
}

func (s *memoryStore) Keep(b []byte) (uint64, error) {
	if s.keepFails {
		return 0, errors.New("disk full")
	}
	s.kept = append(s.kept, append([]byte(nil), b...))
	return uint64(len(s.kept)), nil
}

func (s *memoryStore) Recall(at uint64) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recalls++
	if s.recallFail {
		return nil, errors.New("gone")
	}
	return append([]byte(nil), s.kept[at-1]...), nil
}

func (s *memoryStore) Lost(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lost = append(s.lost, err)
}

// smallPastChunks has the test's histories keep n versions a chunk.
func smallPastChunks(t *testing.T, n int) {
	old := pastChunkSize
	pastChunkSize = n
	t.Cleanup(func() { pastChunkSize = old })
}

// longHistory replays commits that change one tool n times, one of them
// at a time a superseded version cannot hold compact (a fraction of a
// second), into a Builder that keeps its past versions in store (none
// for nil).
func longHistory(t *testing.T, n int, store Store) *Timeline {
	t.Helper()
	return replayLong(t, n, func(r *Builder) {
		if store != nil {
			r.KeepPastIn(store)
		}
	})
}

// replayLong replays longHistory's commits into a Builder set up so.
func replayLong(t *testing.T, n int, setup func(*Builder)) *Timeline {
	t.Helper()
	srcs := []string{v1, v2, v3, v4}
	r := NewBuilder(CompareObjects)
	setup(r)
	for i := range n {
		at := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
		if i == 5 {
			at = at.Add(time.Millisecond)
		}
		tl := tool(t, srcs[i%len(srcs)])
		slug := fmt.Sprintf("weather-%d", i/7) // a slug that changes now and then
		err := r.Commit(Commit{Hash: hash(i + 1), Time: at, Servers: []Server{{Name: "com.example/weather", Slug: slug,
			Version: "1.0.0", Endpoint: "https://example.com/mcp", Tools: map[string]tools.Tool{tl.Name: tl}}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	return r.Timeline()
}

// versions reads every version of the history's one tool, newest first
// when backwards, with Object dropped (only the latest has it).
func versions(th *ToolHistory, backwards bool) []Version {
	out := make([]Version, th.Len())
	for k := range th.Len() {
		i := k
		if backwards {
			i = th.Len() - 1 - k
		}
		out[i] = *th.At(i)
		out[i].Tool.Object = nil
	}
	return out
}

// A history that keeps its past versions in a store, a chunk at a time,
// makes every version and event as one that holds them, read forwards,
// backwards or in events' order; it holds the versions after its last
// chunk and the chunk it read last, and reads a chunk back once for
// each pass over it.
func TestPastVersionsKeptInAStore(t *testing.T) {
	smallPastChunks(t, 4)
	const n = 30
	want := longHistory(t, n, nil)
	wantVersions := versions(want.Servers[0].Tools[0], false)
	store := &memoryStore{}
	got := longHistory(t, n, store)
	th := got.Servers[0].Tools[0]
	if len(store.kept) != (n-1)/4 || len(th.past.tail) != (n-1)%4 {
		t.Fatalf("%d chunks kept and %d versions held; want %d and %d", len(store.kept), len(th.past.tail), (n-1)/4, (n-1)%4)
	}
	if th.odd[5] == nil {
		t.Fatal("version 5 is not kept as it was")
	}
	for _, backwards := range []bool{false, true} {
		store.recalls = 0
		if v := versions(th, backwards); !reflect.DeepEqual(v, wantVersions) {
			t.Errorf("backwards %v: versions made as\n%+v\nwant\n%+v", backwards, v, wantVersions)
		}
		if store.recalls > len(store.kept) {
			t.Errorf("backwards %v: %d chunks read back for %d kept", backwards, store.recalls, len(store.kept))
		}
	}
	if got.EventCount() != want.EventCount() {
		t.Fatalf("%d events, want %d", got.EventCount(), want.EventCount())
	}
	for i := range want.EventCount() {
		g, w := got.Event(i), want.Event(i)
		gt, gs, gp := g.Texts()
		wt, ws, wp := w.Texts()
		if g.Key != w.Key || g.Commit != w.Commit || !g.Time.Equal(w.Time) || gt != wt || gs != ws || !reflect.DeepEqual(gp, wp) {
			t.Errorf("event %d made as %s %q %v, want %s %q %v", i, g.Key, gt, gp, w.Key, wt, wp)
		}
	}
	if len(store.lost) != 0 {
		t.Errorf("lost: %v", store.lost)
	}
	// Versions read on every core, as a feed's entries sign, are each
	// made as they were.
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for k := range th.Len() {
				i := (k*7 + w) % th.Len()
				if v := *th.At(i); v.Version != wantVersions[i].Version || v.Commit != wantVersions[i].Commit {
					t.Errorf("read on every core, version %d made as %s at %s", i, v.Version, v.Commit)
				}
			}
		})
	}
	wg.Wait()
}

// A chunk the store cannot keep is held; one it cannot give back is made
// of versions that say nothing, and the store is told.
func TestPastVersionsAStoreFailsWith(t *testing.T) {
	smallPastChunks(t, 4)
	want := versions(longHistory(t, 30, nil).Servers[0].Tools[0], false)
	full := &memoryStore{keepFails: true}
	th := longHistory(t, 30, full).Servers[0].Tools[0]
	if v := versions(th, false); !reflect.DeepEqual(v, want) || len(full.lost) != 0 {
		t.Errorf("with chunks not kept: versions made as\n%+v\nwant\n%+v; lost %v", v, want, full.lost)
	}
	gone := &memoryStore{}
	th = longHistory(t, 30, gone).Servers[0].Tools[0]
	gone.recallFail = true
	v := versions(th, false)
	if len(gone.lost) != len(gone.kept) {
		t.Errorf("%d chunks not read back, store told %d times", len(gone.kept), len(gone.lost))
	}
	if v[0].Version != "" || v[len(v)-1].Version != want[len(v)-1].Version || v[5].Version != want[5].Version {
		t.Errorf("versions not read back made as %q, %q, %q", v[0].Version, v[5].Version, v[len(v)-1].Version)
	}
	if v[1].Slug != "" || v[1].Tool.File != "" {
		t.Errorf("a version not read back names slug %q and file %q", v[1].Slug, v[1].Tool.File)
	}
	// As a build holds them: changes stored, named by handles. A version
	// not read back has an empty change, not none, and its event makes
	// its texts all the same.
	handled := &memoryStore{}
	tl := replayLong(t, 30, func(r *Builder) {
		r.StoreChanges(func(p schemadiff.Packed) tools.Stored { return storedChange{packed: []byte(p)} })
		r.HandleStored(&handleTable{})
		r.KeepPastIn(handled)
	})
	handled.recallFail = true
	th = tl.Servers[0].Tools[0]
	for i := 1; i < th.Len(); i++ {
		if d := th.At(i).Change(); d == nil {
			t.Fatalf("version %d, not read back, has no change", i)
		}
	}
	for e := range tl.Events() {
		if title, _, _ := e.Texts(); title == "" {
			t.Errorf("event %s has no title", e.Key)
		}
	}
	if len(handled.lost) == 0 {
		t.Error("the store was not told of the chunks it could not give back")
	}
}

// A chunk read back decodes as it was encoded. Bytes that are not a
// chunk (each one cut short, each byte changed) decode to other versions
// or fail, and never panic; at worst, the history's versions then say
// nothing.
func TestPastChunksDecodeAsEncoded(t *testing.T) {
	smallPastChunks(t, 4)
	store := &memoryStore{}
	th := longHistory(t, 9, store).Servers[0].Tools[0]
	if len(store.kept) != 2 {
		t.Fatalf("%d chunks kept, want 2", len(store.kept))
	}
	want := &decodedChunk{}
	if err := want.decode(store.kept[1], 4); err != nil {
		t.Fatal(err)
	}
	if before := th.At(3).Version; want.from != before || before == "" {
		t.Fatalf("the second chunk's versions follow %q, want %q", want.from, before)
	}
	if again := (&decodedChunk{from: want.from, list: want.list}).encode(); string(again) != string(store.kept[1]) {
		t.Errorf("encoded again as %x, want %x", again, store.kept[1])
	}
	kept := store.kept[1]
	for cut := range len(kept) {
		if (&decodedChunk{}).decode(kept[:cut], 4) == nil {
			t.Errorf("a chunk cut to %d bytes of %d decodes", cut, len(kept))
		}
	}
	for i := range kept {
		for _, b := range []byte{0x00, 0x7f, 0x80, 0xff} {
			store.kept[1] = append([]byte(nil), kept...)
			store.kept[1][i] = b
			th.past.read.Store(nil)
			for j := range th.Len() {
				_ = th.At(j)
				_, _, _, _ = th.step(j)
			}
		}
	}
}
