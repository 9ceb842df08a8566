package agentfeed

import "time"

// ContentType is the type a feed document is served with.
const ContentType = "application/atom+xml; charset=utf-8"

// MaxArchives bounds the prev-archive chain a reader follows (verify, the
// append-only check): far beyond any real history at the default page
// size, and a stop for a chain that goes on forever.
const MaxArchives = 1000

// Paginate splits a feed into RFC 5005 archived feeds (§4): archive
// documents of pageSize entries each, oldest first, and the subscription
// document, which keeps the newest 1 to pageSize entries (none only when the
// feed has none). Entries move into a new archive only when the
// subscription document would otherwise exceed pageSize, so archive n
// always holds entries (n-1)·pageSize+1 to n·pageSize of the history and,
// once written, never changes as the history grows.
//
// archiveURL(n) is the URL of archive n (from 1). Each archive links to the
// one before (prev-archive), to the subscription document (current, f's
// self link) and to itself (self), and is marked fh:archive; its updated is
// its newest entry's. The subscription document links to the newest
// archive. No archive links to the next one: that link would change the
// archive's bytes when the next archive appears.
func Paginate(f *Feed, pageSize int, archiveURL func(n int) string) (current *Feed, archives []*Feed) {
	entries := f.Entries
	full := 0
	if len(entries) > 0 {
		full = (len(entries) - 1) / pageSize
	}
	for n := 1; n <= full; n++ {
		a := *f
		a.Entries = entries[(n-1)*pageSize : n*pageSize]
		a.Updated = newest(a.Entries, f.Updated)
		a.SelfURL, a.Current, a.Archive = archiveURL(n), f.SelfURL, true
		a.PrevArchive = ""
		if n > 1 {
			a.PrevArchive = archiveURL(n - 1)
		}
		archives = append(archives, &a)
	}
	sub := *f
	sub.Entries = entries[full*pageSize:]
	if full > 0 {
		sub.PrevArchive = archiveURL(full)
	}
	return &sub, archives
}

// newest is the latest updated time of the entries, or otherwise when none
// parses.
func newest(entries []Entry, otherwise string) string {
	var latest time.Time
	for _, e := range entries {
		if t, err := time.Parse(time.RFC3339, e.Updated); err == nil && t.After(latest) {
			latest = t
		}
	}
	if latest.IsZero() {
		return otherwise
	}
	return FormatTime(latest)
}
