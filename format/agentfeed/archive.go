package agentfeed

import "time"

// ContentType is the type a feed document is served with.
const ContentType = "application/atom+xml; charset=utf-8"

// MaxArchives bounds the prev-archive chain a reader follows (verify, the
// append-only check): far beyond any real history at the default page
// size, and a stop for a chain that goes on forever.
const MaxArchives = 1000

// Archives is how many archive documents a feed of n entries has, pages
// of pageSize entries each (RFC 5005 §4): archive n always holds entries
// (n-1)·pageSize+1 to n·pageSize of the history, oldest first, and the
// subscription document the newest 1 to pageSize (none only when the feed
// has none). Entries move into a new archive only when the subscription
// document would otherwise exceed pageSize, so an archive, once written,
// never changes as the history grows.
func Archives(n, pageSize int) int {
	if n == 0 {
		return 0
	}
	return (n - 1) / pageSize
}

// ArchivePage is archive n of f, given its entries (see Archives); f's own
// entries are not read. archiveURL(n) is the URL of archive n (from 1). An
// archive links to the one before (prev-archive), to the subscription
// document (current, f's self link) and to itself (self), and is marked
// fh:archive; its updated is its newest entry's. No archive links to the
// next one: that link would change the archive's bytes when the next
// archive appears, so a writer makes a long feed one archive at a time.
func ArchivePage(f *Feed, entries []Entry, n int, archiveURL func(n int) string) *Feed {
	a := *f
	a.Entries = entries
	a.Updated = newest(entries, f.Updated)
	a.SelfURL, a.Current, a.Archive = archiveURL(n), f.SelfURL, true
	a.PrevArchive = ""
	if n > 1 {
		a.PrevArchive = archiveURL(n - 1)
	}
	return &a
}

// SubscriptionPage is the subscription document of f after full archives,
// given its entries (see Archives): it links to the newest archive.
func SubscriptionPage(f *Feed, entries []Entry, full int, archiveURL func(n int) string) *Feed {
	sub := *f
	sub.Entries = entries
	if full > 0 {
		sub.PrevArchive = archiveURL(full)
	}
	return &sub
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
