package agentfeed

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// paginate splits f into its archive documents and its subscription
// document, as a writer of the whole feed does (see Archives).
func paginate(f *Feed, pageSize int, archiveURL func(n int) string) (current *Feed, archives []*Feed) {
	full := Archives(len(f.Entries), pageSize)
	for n := 1; n <= full; n++ {
		archives = append(archives, ArchivePage(f, f.Entries[(n-1)*pageSize:n*pageSize], n, archiveURL))
	}
	return SubscriptionPage(f, f.Entries[full*pageSize:], full, archiveURL), archives
}

func archiveURL(n int) string {
	return fmt.Sprintf("https://example.com/.well-known/agent-feed/archive-%d.xml", n)
}

// feedOfLength is the example feed with n entries, one minute apart.
func feedOfLength(t testing.TB, n int) *Feed {
	t.Helper()
	f := exampleFeed(t)
	f.Entries = nil
	for i := range n {
		updated := fmt.Sprintf("2026-05-01T%02d:%02d:00Z", i/60, i%60)
		e, err := NewEntry(testSigner(), fmt.Sprintf("urn:af:example.com:%d", i+1), TypeAnnouncement, updated, "",
			Announcement{EndpointID: fmt.Sprintf("t%d", i), Endpoint: "https://example.com/mcp", Protocol: "mcp-tool", Version: "1", AssertedAt: updated})
		if err != nil {
			t.Fatal(err)
		}
		f.Entries = append(f.Entries, e)
		f.Updated = updated
	}
	return f
}

// The subscription document keeps 1 to pageSize entries; archives are full.
func TestPaginateSizes(t *testing.T) {
	for _, tc := range []struct{ entries, archives, current int }{
		{0, 0, 0}, {1, 0, 1}, {5, 0, 5}, {6, 1, 1}, {10, 1, 5}, {11, 2, 1}, {23, 4, 3},
	} {
		sub, archives := paginate(feedOfLength(t, tc.entries), 5, archiveURL)
		if len(archives) != tc.archives || len(sub.Entries) != tc.current {
			t.Errorf("%d entries: %d archives and %d current entries, want %d and %d", tc.entries, len(archives), len(sub.Entries), tc.archives, tc.current)
			continue
		}
		next := 1
		for _, a := range append(archives, sub) {
			for _, e := range a.Entries {
				if want := fmt.Sprintf("urn:af:example.com:%d", next); e.ID != want {
					t.Fatalf("%d entries: entry %s where %s belongs", tc.entries, e.ID, want)
				}
				next++
			}
		}
		want := ""
		if tc.archives > 0 {
			want = archiveURL(tc.archives)
		}
		if sub.PrevArchive != want {
			t.Errorf("%d entries: prev-archive %q, want %q", tc.entries, sub.PrevArchive, want)
		}
	}
}

// Each archive links to the one before and to the subscription document,
// says it is an archive, and keeps those through encoding and decoding.
func TestArchiveLinksRoundTrip(t *testing.T) {
	sub, archives := paginate(feedOfLength(t, 12), 5, archiveURL)
	for i, a := range archives {
		data, err := Encode(a)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		wantPrev := ""
		if i > 0 {
			wantPrev = archiveURL(i)
		}
		if !got.Archive || got.SelfURL != archiveURL(i+1) || got.Current != sub.SelfURL || got.PrevArchive != wantPrev {
			t.Errorf("archive %d decodes as archive=%v self=%q current=%q prev=%q", i+1, got.Archive, got.SelfURL, got.Current, got.PrevArchive)
		}
		if want := a.Entries[len(a.Entries)-1].Updated; got.Updated != want {
			t.Errorf("archive %d: updated %s, want its newest entry's %s", i+1, got.Updated, want)
		}
	}
	data, err := Encode(sub)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("fh:")) || bytes.Contains(data, []byte(`rel="current"`)) {
		t.Errorf("the subscription document is marked as an archive:\n%s", data)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Archive || got.PrevArchive != archiveURL(2) || len(got.Entries) != 2 {
		t.Errorf("subscription decodes as archive=%v prev=%q with %d entries", got.Archive, got.PrevArchive, len(got.Entries))
	}
}

// A full archive's bytes do not change as the history grows.
func TestArchiveImmutable(t *testing.T) {
	encodeArchives := func(n int) [][]byte {
		_, archives := paginate(feedOfLength(t, n), 5, archiveURL)
		var docs [][]byte
		for _, a := range archives {
			data, err := Encode(a)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, data)
		}
		return docs
	}
	before := encodeArchives(11)
	after := encodeArchives(23)
	for i := range before {
		if !bytes.Equal(before[i], after[i]) {
			t.Errorf("archive %d changed as the history grew from 11 to 23 entries", i+1)
		}
	}
}

func TestDecodeRefusesTwoPrevArchives(t *testing.T) {
	sub, _ := paginate(feedOfLength(t, 7), 5, archiveURL)
	data, err := Encode(sub)
	if err != nil {
		t.Fatal(err)
	}
	link := `  <link rel="prev-archive" href="` + archiveURL(1) + `"/>` + "\n"
	twice := strings.Replace(string(data), link, link+strings.Replace(link, "archive-1", "archive-9", 1), 1)
	if _, err := Decode([]byte(twice)); err == nil || !strings.Contains(err.Error(), "more than one prev-archive link") {
		t.Errorf("Decode = %v, want an error about two prev-archive links", err)
	}
}
