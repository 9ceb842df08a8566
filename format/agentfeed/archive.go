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
	full := Archives(len(entries), pageSize)
	for n := 1; n <= full; n++ {
		archives = append(archives, ArchivePage(f, entries[(n-1)*pageSize:n*pageSize], n, archiveURL))
	}
	return SubscriptionPage(f, entries[full*pageSize:], full, archiveURL), archives
}

// Archives is how many archive documents Paginate makes of a feed of n
// entries.
func Archives(n, pageSize int) int {
	if n == 0 {
		return 0
	}
	return (n - 1) / pageSize
}

// ArchivePage is archive n of f as Paginate makes it, given its entries: f
// without its entries, for a writer that makes a long feed one archive at
// a time, since no archive depends on a later one.
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

// SubscriptionPage is the subscription document of f as Paginate makes it
// after full archives, given its entries (see ArchivePage).
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
