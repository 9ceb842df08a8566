// Package watch reports changes to the files a build reads, in batches.
//
// A Watcher covers Targets: directory trees, watched recursively (a .git
// directory inside a tree is not entered, nor build output: a directory
// holding paths.OutputMarker, which a build never reads), and single files,
// watched through their directory so that an editor's save-by-rename (write
// a temporary file, rename it over the original) keeps being seen. A target that does not exist
// yet is watched through its nearest existing ancestor, so its creation is
// seen too.
//
// Events are filtered (Chmod-only events and editors' temporary files are
// dropped; see Ignored) and batched: a batch is delivered once no event has
// arrived for the debounce window, or at the latest a second after its first
// event, so a long checkout still yields progress. Before a batch is
// delivered the watch list is brought up to date (unless every path of the
// batch is a file), so a directory created in the batch is watched before
// anyone rebuilds from it: a file written into it later is an event, one
// written earlier is read by that rebuild.
//
// With Options.Poll the Watcher polls instead, for file systems that deliver
// no events (network shares, some container bind mounts, WSL2's /mnt): at
// every interval it compares the size, modification time and kind of every
// path under the targets with the previous scan.
package watch

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/wellknown-dev/wellknown/format/paths"
)

// DefaultDebounce is the quiet time that ends a batch: long enough to join
// the several events of one save (they come within a millisecond or two)
// or one git command (within tens), short enough to go unnoticed, since it
// is most of the time from a save to the reload. A batch closed early costs
// one more rebuild, which reuses what did not change.
const DefaultDebounce = 50 * time.Millisecond

// maxBatchDelay bounds how long a steady stream of events defers its batch.
const maxBatchDelay = time.Second

// Targets are what a Watcher covers. Paths are made absolute and clean.
type Targets struct {
	Trees []string // directories, watched recursively
	Files []string // single files
}

// Options configure a Watcher.
type Options struct {
	Poll     time.Duration // > 0: poll at this interval instead of using file-system events
	Debounce time.Duration // 0: DefaultDebounce
}

// Watcher delivers batches of changed paths. Its methods may be called from
// any goroutine.
type Watcher struct {
	changes  chan []string
	errors   chan error
	retarget chan retarget
	done     chan struct{}
	stopped  chan struct{}
	stop     sync.Once
	debounce time.Duration

	// Owned by the loop goroutine once it runs.
	targets Targets
	notify  *fsnotify.Watcher // nil when polling
	poll    *poller           // nil unless polling
}

// New starts watching t. The error says why file-system events are not
// available (with the fix for an exhausted limit).
func New(t Targets, opt Options) (*Watcher, error) {
	w := &Watcher{
		changes:  make(chan []string),
		errors:   make(chan error),
		retarget: make(chan retarget),
		done:     make(chan struct{}),
		stopped:  make(chan struct{}),
		debounce: opt.Debounce,
		targets:  t.clean(),
	}
	if w.debounce <= 0 {
		w.debounce = DefaultDebounce
	}
	if opt.Poll > 0 {
		w.poll = &poller{every: opt.Poll}
		w.poll.scan(w.targets)
	} else {
		n, err := fsnotify.NewWatcher()
		if err != nil {
			return nil, describe("", err)
		}
		w.notify = n
		if err := w.sync(); err != nil {
			n.Close()
			return nil, err
		}
	}
	go w.loop()
	return w, nil
}

// Changes delivers batches: the changed paths, sorted, each once. It is
// closed by Close. A batch waiting to be received grows with new changes.
func (w *Watcher) Changes() <-chan []string { return w.changes }

// Errors delivers problems found while watching, such as a directory that
// could not be watched. Watching goes on. It is closed by Close.
func (w *Watcher) Errors() <-chan error { return w.errors }

// Watch replaces the targets (when a rebuilt site reads other paths). Once
// it returns, changes under the new targets are seen.
func (w *Watcher) Watch(t Targets) {
	r := retarget{t.clean(), make(chan struct{})}
	select {
	case w.retarget <- r:
		<-r.done
	case <-w.stopped:
	}
}

// retarget asks the loop to switch targets, and is closed when it has.
type retarget struct {
	targets Targets
	done    chan struct{}
}

// Close stops watching.
func (w *Watcher) Close() error {
	w.stop.Do(func() { close(w.done) })
	<-w.stopped
	if w.notify != nil {
		return w.notify.Close()
	}
	return nil
}

// batch collects changed paths until the debounce window closes.
type batch struct {
	paths map[string]bool
	first time.Time // when the first path arrived
}

// add records a path and returns how long to wait for more.
func (b *batch) add(p string, debounce time.Duration) time.Duration {
	now := time.Now()
	if len(b.paths) == 0 {
		b.paths, b.first = map[string]bool{}, now
	}
	b.paths[p] = true
	return max(0, min(debounce, maxBatchDelay-now.Sub(b.first)))
}

// filesOnly reports whether every path of the batch is a regular file
// now: then no directory was created, removed or renamed, and the watch
// list, which walking the trees again would rebuild, stands as it is.
func (b *batch) filesOnly() bool {
	for p := range b.paths {
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// take empties the batch into ready (a batch not yet received).
func (b *batch) take(ready []string) []string {
	for p := range b.paths {
		ready = append(ready, p)
	}
	b.paths = nil
	slices.Sort(ready)
	return slices.Compact(ready)
}

func (w *Watcher) loop() {
	defer close(w.stopped)
	defer close(w.changes)
	defer close(w.errors)

	var pending batch
	var ready []string
	var problems []error
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	defer quiet.Stop()

	var events <-chan fsnotify.Event
	var notifyErrors <-chan error
	var tick <-chan time.Time
	if w.notify != nil {
		events, notifyErrors = w.notify.Events, w.notify.Errors
	} else {
		t := time.NewTicker(w.poll.every)
		defer t.Stop()
		tick = t.C
	}
	note := func(p string) { quiet.Reset(pending.add(p, w.debounce)) }

	for {
		var out chan<- []string
		if len(ready) > 0 {
			out = w.changes
		}
		var errOut chan<- error
		var problem error
		if len(problems) > 0 {
			errOut, problem = w.errors, problems[0]
		}
		select {
		case <-w.done:
			return
		case ev, ok := <-events:
			switch {
			case !ok:
				events = nil
			case relevant(ev) && w.targets.covers(ev.Name):
				note(ev.Name)
			}
		case err, ok := <-notifyErrors:
			if !ok {
				notifyErrors = nil
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: anything may have changed.
				for _, p := range w.targets.all() {
					note(p)
				}
			}
			problems = append(problems, describe("", err))
		case <-tick:
			for _, p := range w.poll.scan(w.targets) {
				if !Ignored(p) {
					note(p)
				}
			}
		case <-quiet.C:
			if !pending.filesOnly() {
				if err := w.sync(); err != nil {
					problems = append(problems, err)
				}
			}
			ready = pending.take(ready)
		case out <- ready:
			ready = nil
		case errOut <- problem:
			problems = problems[1:]
		case r := <-w.retarget:
			if err := w.setTargets(r.targets); err != nil {
				problems = append(problems, err)
			}
			close(r.done)
		}
	}
}

// setTargets switches to new targets. A poller takes the new targets'
// current state as its baseline, so they don't all count as created.
func (w *Watcher) setTargets(t Targets) error {
	if t.equal(w.targets) {
		return nil
	}
	w.targets = t
	if w.poll != nil {
		w.poll.scan(t)
		return nil
	}
	return w.sync()
}

// sync makes the event watcher watch exactly the directories the targets
// need now.
func (w *Watcher) sync() error {
	if w.notify == nil {
		return nil
	}
	want := w.targets.dirs()
	var problems []error
	for _, d := range want {
		// Adding a watched directory again is harmless and cheaper than
		// tracking which watches the kernel dropped with their directory.
		if err := w.notify.Add(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			problems = append(problems, describe(d, err))
		}
	}
	for _, d := range w.notify.WatchList() {
		if _, found := slices.BinarySearch(want, d); !found {
			w.notify.Remove(d)
		}
	}
	return errors.Join(problems...)
}

// relevant reports whether an event can change what a build reads: it is
// not a Chmod alone (Spotlight, antivirus and editors send floods of those)
// and not about an editor's temporary file.
func relevant(ev fsnotify.Event) bool {
	return ev.Op&^fsnotify.Chmod != 0 && ev.Name != "" && !Ignored(ev.Name)
}

func (t Targets) clean() Targets {
	return Targets{Trees: cleanPaths(t.Trees), Files: cleanPaths(t.Files)}
}

// cleanPaths makes paths absolute and clean, sorted and without repeats.
func cleanPaths(ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if abs, err := filepath.Abs(p); err == nil {
			out = append(out, abs)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (t Targets) equal(u Targets) bool {
	return slices.Equal(t.Trees, u.Trees) && slices.Equal(t.Files, u.Files)
}

// all returns every target path.
func (t Targets) all() []string { return append(slices.Clone(t.Trees), t.Files...) }

// covers reports whether a change at p matters: p is a file target, lies in
// a tree (outside any .git directory within it), or is an ancestor of a
// target (creating, removing or renaming it moves the target).
func (t Targets) covers(p string) bool {
	for _, f := range t.Files {
		if p == f || isAncestor(p, f) {
			return true
		}
	}
	for _, d := range t.Trees {
		if isAncestor(p, d) {
			return true
		}
		if rel, ok := below(d, p); ok && !inGitDir(rel) && !inOutput(d, p) {
			return true
		}
	}
	return false
}

// dirs returns the directories to watch now, sorted: every directory of
// every existing tree, and the nearest existing directory of every file and
// missing tree.
func (t Targets) dirs() []string {
	var out []string
	for _, f := range t.Files {
		out = append(out, existingDir(filepath.Dir(f)))
	}
	for _, d := range t.Trees {
		if !isDir(d) {
			out = append(out, existingDir(d))
			continue
		}
		out = append(out, treeDirs(d)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// treeDirs lists root and the directories under it, not entering .git or
// build output. Directories that can't be read are left out.
func treeDirs(root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || !d.IsDir():
			return nil
		case skipped(root, p, d):
			return filepath.SkipDir
		}
		out = append(out, p)
		return nil
	})
	return out
}

// existingDir returns p if it is a directory, or its nearest ancestor that
// is one.
func existingDir(p string) string {
	for !isDir(p) {
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
	return p
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// isAncestor reports whether dir strictly contains p.
func isAncestor(dir, p string) bool {
	rel, ok := below(dir, p)
	return ok && rel != "."
}

// below returns p relative to dir when p is dir or inside it.
func below(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// skipped reports whether the directory d at p, in the tree at root, is
// left out: a .git directory or build output.
func skipped(root, p string, d fs.DirEntry) bool {
	return d.Name() == ".git" && p != root || paths.IsOutput(p)
}

// inOutput reports whether p, in the tree at root, is build output or
// inside it.
func inOutput(root, p string) bool {
	for dir := p; ; dir = filepath.Dir(dir) {
		if paths.IsOutput(dir) {
			return true
		}
		if dir == root || dir == filepath.Dir(dir) {
			return false
		}
	}
}

// inGitDir reports whether a relative path goes through a .git directory.
func inGitDir(rel string) bool {
	return slices.Contains(strings.Split(rel, string(filepath.Separator)), ".git")
}
