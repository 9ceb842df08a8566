package inputfile

import (
	"crypto/sha256"
	"io/fs"
	"sync"
	"time"
)

// The racy window is how long after a file's last change its stat is not
// trusted to tell a later change: a file whose status changed (ctime) less
// than this before it was read is read again by the next build.
// Timestamps are coarse (a clock tick), so an edit made just after a read
// can leave the stat as it was; git's index treats such "racily clean"
// entries the same way. A file system whose times have parts of a second
// keeps them to the clock's tick (at most 10 ms on Linux) or finer, which
// fineRacyWindow covers with room for a network file system's clock
// running a little behind; one whose times are whole seconds (FAT keeps 2
// s, HFS+ 1 s) gets coarseRacyWindow.
const (
	fineRacyWindow   = 100 * time.Millisecond
	coarseRacyWindow = 2 * time.Second
)

// racyBefore returns the time (ns) a file read at start must have changed
// before to be kept, given its status change time.
func racyBefore(start time.Time, changed int64) int64 {
	if changed%int64(time.Second) == 0 {
		return start.Add(-coarseRacyWindow).UnixNano()
	}
	return start.Add(-fineRacyWindow).UnixNano()
}

// Files keeps the bytes of the files read through it (a development
// server's rebuilds), so that a read of a file whose stat is what it was
// when it was read takes the kept bytes without opening it, the way make
// and git's index judge a file unchanged. The stat compared is the size,
// mode, modification time, inode, device and status change time (ctime);
// any write, rename over, chmod or touch sets the ctime to the present, so
// an edit is seen even when it keeps the size and the modification time
// (touch -r, rsync -t), except within the clock tick of the last read,
// which is why a file changed within the racy window before it was read
// is not kept. Where the system gives no inode or ctime (Windows), nothing
// is kept. What is kept of a file stays until the file is read again, or
// until a Sweep finds it unread since the one before: a deleted or renamed
// page's bytes go with the next build's Sweep. It is safe for concurrent use.
type Files struct {
	mu         sync.Mutex
	known      map[string]knownFile // by real path
	sums       map[*byte]knownFile  // by the first byte of their data
	sinceSweep map[string]bool      // the real paths read since the last Sweep
	now        func() time.Time     // the clock read before a file is opened
	opens      int                  // files read from disk since the Files was made
}

type knownFile struct {
	id   identity
	data []byte
	sum  [sha256.Size]byte // of data
}

// identity is what a stat says of a file that a change to it changes.
type identity struct {
	size, modified, changed int64 // bytes; modification and status change times in ns
	inode, device           uint64
	mode                    fs.FileMode
}

// NewFiles returns a Files that keeps nothing yet.
func NewFiles() *Files {
	return &Files{known: map[string]knownFile{}, sums: map[*byte]knownFile{}, sinceSweep: map[string]bool{}, now: time.Now}
}

// Sweep forgets the files not read since the last Sweep: a development
// server's build sweeps when it has read every input, so that what is kept
// is the files the site has now, not every file it ever had.
func (files *Files) Sweep() {
	files.mu.Lock()
	defer files.mu.Unlock()
	for real, k := range files.known {
		if !files.sinceSweep[real] {
			delete(files.known, real)
			delete(files.sums, &k.data[0])
		}
	}
	clear(files.sinceSweep)
}

// Sum returns the SHA-256 of data, hashed when the file was read if data
// is the very bytes Files kept of one: a cache keyed by the bytes of the
// files read then hashes only those read anew.
func (files *Files) Sum(data []byte) [sha256.Size]byte {
	if len(data) == 0 {
		return sha256.Sum256(data)
	}
	files.mu.Lock()
	k, ok := files.sums[&data[0]]
	files.mu.Unlock()
	if !ok || len(k.data) != len(data) {
		return sha256.Sum256(data)
	}
	return k.sum
}

// unchanged returns the bytes kept of the file at real path real, when
// info, its stat now, is the one it had when they were read and they fit
// within max.
func (files *Files) unchanged(real string, info fs.FileInfo, max int64) ([]byte, bool) {
	id, ok := identityOf(info)
	if !ok {
		return nil, false
	}
	files.mu.Lock()
	defer files.mu.Unlock()
	k, ok := files.known[real]
	if !ok || k.id != id || int64(len(k.data)) > max {
		return nil, false
	}
	files.sinceSweep[real] = true
	return k.data, true
}

// keep keeps data, read from the file at real path real whose stat was
// info when opened at start, unless the file changed within the racy
// window before start: then the next read reads it again.
func (files *Files) keep(real string, info fs.FileInfo, start time.Time, data []byte) {
	id, ok := identityOf(info)
	racy := racyBefore(start, id.changed)
	kept := ok && id.changed < racy && id.modified < racy && int64(len(data)) == id.size && len(data) > 0
	var k knownFile
	if kept {
		k = knownFile{id: id, data: data, sum: sha256.Sum256(data)}
	}
	files.mu.Lock()
	defer files.mu.Unlock()
	files.opens++
	if old, ok := files.known[real]; ok {
		delete(files.known, real)
		delete(files.sums, &old.data[0])
	}
	if kept {
		files.known[real], files.sums[&data[0]] = k, k
		files.sinceSweep[real] = true
	}
}
