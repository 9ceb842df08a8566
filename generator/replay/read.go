// Package replay reads the committed history of a site's inputs from git
// and replays it commit by commit into a timeline: which site.toml was in
// force, each server's tool files and version, clashes, release tags, and
// servers adopted with their tools' earlier history.
package replay

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/parallel"
)

// Input is what a replay reads besides the repositories themselves.
type Input struct {
	// Config is the site.toml being built. Read sets the version of each of
	// its servers with version_tags to the one its history ends with.
	Config *site.Config
	// Rev is the commit of the site's repository whose history is replayed;
	// empty means HEAD.
	Rev string
	// Revs are the commits other repositories (servers' repo =) are read
	// at, by their root directory as git reports it; HEAD when absent.
	Revs map[string]string
	// AllowShallow replays a shallow clone, with a warning.
	AllowShallow bool
	// Strict makes a missing history an error instead of a warning.
	Strict bool
	// Endpoint is a server's endpoint URL in the feed.
	Endpoint func(site.Server) string
	// Progress, when set, is told when the replay starts (the build's
	// Diff stage), once the history is read.
	Progress func(stage string)
	// Spool, when set, keeps the canonical form of every tool version
	// (tools.Tool.Stored) from the moment it is parsed, and every
	// version's change: for a build that writes once, whose bundle keeps
	// its archive there (bundle.NewSpooled). The Output can be read until
	// the spool is closed; a change that cannot be read back is empty,
	// and the spool says so (bundle.Spool.ReadFailed). Such a replay
	// keeps the commits it read there too, and lets go of each blob
	// parsed once no later step can ask for it; no replay resumes from it.
	Spool *bundle.Spool
}

// Output is a finished replay.
type Output struct {
	Timeline *timeline.Timeline // the committed history of the inputs
	Warnings []*diag.Error
	Notices  []string // what the replay did that is worth knowing but needs no action
	// CommitRepos are, by server name, the repository URLs its tools'
	// commits can be linked at (see findCommitLinks).
	CommitRepos map[string]string
	// ReadTime is how long reading git history and blobs took, of the
	// whole Read: the rest is the replay.
	ReadTime time.Duration
	// Resumed says the replay went on from an earlier one (see Cache) with
	// only the commits since, newCommits of which changed an input.
	Resumed    bool
	newCommits int

	sources []source   // the repositories read (see statesOf)
	resume  *resumable // what resume goes on from; nil once it has
}

// readAndPlay replays the committed history of the site's inputs (site.toml,
// imported server.json files, and every server's tool files, in whatever
// local repositories hold them) into a timeline. It runs one git log per
// repository for the inputs and one git cat-file process per repository
// for all the blobs. A second pass is needed only when an older site.toml
// named tool files or repositories the current one does not.
//
// A site outside git, or without commits, has an empty history: a warning,
// or an error when strict. A server whose committed version the feed cannot
// record is an error (see checkRecordable).
func readAndPlay(in Input) (*Output, error) {
	h := &historyReader{cfg: in.Config, in: in, out: &Output{}, forms: newForms(in.Spool)}
	tl, err := h.read()
	if err != nil {
		return nil, err
	}
	h.out.Timeline = tl
	if err := h.checkRecordable(); err != nil {
		return nil, err
	}
	h.out.applyTo(h.cfg)
	h.out.sources = h.sources()
	h.out.resume = h.resume
	return h.out, nil
}

func (h *historyReader) read() (*timeline.Timeline, error) {
	start := time.Now()
	cfg := h.cfg
	siteRepo, err := gitlog.Open(cfg.Dir)
	if err != nil {
		if errors.Is(err, gitlog.ErrNotRepository) {
			return h.emptyHistory(diag.Errorf("", 0, "%s is not in a git repository, so the change feed has no history", dirName(cfg.Dir)).
				WithHint("the feed is derived from commits: git init -b main && git add -A && git commit"))
		}
		return nil, err
	}
	if err := h.addRepo(siteRepo); err != nil {
		return nil, err
	}
	if _, err := siteRepo.Head(); errors.Is(err, gitlog.ErrNoCommits) {
		return h.emptyHistory(diag.Errorf("", 0, "the repository of %s has no commits yet, so the change feed is empty", dirName(cfg.Dir)).
			WithHint("commit the site (git add -A && git commit); its first commit is enough for the feed to replay every tool's history, also in a repo = repository"))
	} else if err != nil {
		return nil, err
	}
	if err := h.locateConfig(); err != nil {
		return nil, err
	}
	if err := h.readRepos([]*site.Config{cfg}); err != nil {
		return nil, err
	}
	if err := h.readRepos(append(h.configHistory(), cfg)); err != nil {
		return nil, err
	}
	if err := h.findCommitLinks(); err != nil {
		return nil, err
	}
	h.out.ReadTime = time.Since(start)
	h.progress()
	tl, err := h.replay()
	if err == nil {
		err = h.forms.failed()
	}
	return tl, err
}

// progress tells Input.Progress that the replay starts.
func (h *historyReader) progress() {
	if h.in.Progress != nil {
		h.in.Progress("diff: replaying the history")
	}
}

// findCommitLinks records, for each server whose repository URL names the
// repository its tool files' commits are in (one of its remotes), that URL:
// the pages link each version's commit there. Elsewhere a commit is shown
// by its short hash, since a link would name a commit of another
// repository.
func (h *historyReader) findCommitLinks() error {
	h.out.CommitRepos = map[string]string{}
	remotesOf := map[int][]string{} // by repository: servers often share one
	for _, s := range h.cfg.Servers {
		if s.Repository == nil || s.Repository.URL == "" {
			continue
		}
		i, _, ok := h.toolsLocation(s)
		if !ok {
			continue
		}
		remotes, read := remotesOf[i]
		if !read {
			var err error
			if remotes, err = h.repos[i].repo.RemoteURLs(); err != nil {
				return err
			}
			remotesOf[i] = remotes
		}
		if slices.ContainsFunc(remotes, func(u string) bool { return gitlog.SameRepository(u, s.Repository.URL) }) {
			h.out.CommitRepos[s.Name] = s.Repository.URL
		}
	}
	return nil
}

func (h *historyReader) emptyHistory(why *diag.Error) (*timeline.Timeline, error) {
	if h.in.Strict {
		return nil, why
	}
	h.out.Warnings = append(h.out.Warnings, why)
	return &timeline.Timeline{}, nil
}

func dirName(dir string) string {
	if dir == "." || dir == "" {
		return "the site directory"
	}
	return dir
}

// historyReader holds what one history read needs.
type historyReader struct {
	cfg   *site.Config
	in    Input
	out   *Output
	forms *forms // where the tool versions' canonical forms are kept (see Input.Spool)

	repos      []*repoHistory // the site's repository first
	siteDir    string         // the site directory, relative to the site repository's root ("" at the root)
	configPath string         // site.toml, relative to the site repository's root

	siteStart time.Time            // the site-wide history_from
	starts    map[string]time.Time // servers' own history_from, by name
	excludes  map[string][]string  // servers' exclude globs now, by name

	pastConfigs  map[*site.Config]string // the commit each past site.toml was read at
	unrecordable []site.Server           // servers whose committed version is none (see checkRecordable)
	resume       *resumable              // the replay, to go on from (nil before it ran)
}

// repoHistory is one repository's part of the history.
type repoHistory struct {
	repo    *gitlog.Repo
	paths   []string                   // the pathspecs commits were read for
	globs   []*serverFiles             // the servers' globs its blobs were parsed for
	commits commitList                 // oldest first, joined into landings
	blobs   map[gitlog.ObjectID][]byte // blob id → content, for every blob the commits name
	parsed  *blobTable                 // blob id → the tool file it holds
	forms   *forms                     // where the tool files' canonical forms are kept
	tags    map[string][]string        // commit → the release tags on it, sorted (see readReleaseTags)
	// patterns are the version_tags of the servers whose tool files it
	// holds, in any configuration of the history.
	patterns []string
	shallow  bool // a shallow clone, read with AllowShallow
	letsGo   bool // the replay lets go of the blobs it parsed (see letGo)
}

// addRepo adds a repository (once) and checks it is not shallow.
func (h *historyReader) addRepo(repo *gitlog.Repo) error {
	for _, known := range h.repos {
		if known.repo.Root() == repo.Root() {
			return nil
		}
	}
	shallow, err := repo.IsShallow()
	if err != nil {
		return err
	}
	if shallow {
		e := diag.Errorf("", 0, "%s is a shallow clone: its history, and the change feed derived from it, would be cut off", dirName(repo.Root())).
			WithHint("fetch the whole history (git fetch --unshallow; on GitHub Actions, actions/checkout with fetch-depth: 0); " +
				"wellknown build --allow-shallow and wellknown serve build a preview from it")
		if !h.in.AllowShallow {
			return e
		}
		// The preview is what was asked for: the warning leaves out the hint.
		h.out.Warnings = append(h.out.Warnings, diag.Errorf(e.File, e.Line, "%s (a preview)", e.Msg))
	}
	h.repos = append(h.repos, &repoHistory{repo: repo, blobs: map[gitlog.ObjectID][]byte{}, shallow: shallow, forms: h.forms})
	return nil
}

// locateConfig finds the site directory and site.toml within the site's
// repository.
func (h *historyReader) locateConfig() error {
	repo := h.repos[0].repo
	var err error
	if h.siteDir, err = repo.Rel(h.cfg.Dir); err != nil {
		return err
	}
	h.configPath, err = repo.Rel(h.cfg.File)
	return err
}

// configHistory parses every committed version of site.toml, oldest first,
// as far as it names servers' tools and repositories (imports are read during
// the replay). A version that does not parse is left out here and reported
// then.
func (h *historyReader) configHistory() []*site.Config {
	site0 := h.repos[0]
	// Identities are not needed to learn the paths: any import will do.
	anyImport := func(string) ([]byte, bool) { return []byte("{}"), true }
	var configs []*site.Config
	h.pastConfigs = map[*site.Config]string{}
	for c := range site0.commits.All() {
		for _, ch := range c.Changes {
			if ch.Path != h.configPath || ch.Blob == "" {
				continue
			}
			if old, err := site.ParseHistorical(site0.blobs[ch.Blob], anyImport); err == nil {
				configs = append(configs, old)
				h.pastConfigs[old] = c.Hash
			}
		}
	}
	return configs
}

// readRepos reads, in each repository, the history of every path the
// configs make an input, and the blobs it names. A repository already read
// for the same paths is not read again.
func (h *historyReader) readRepos(configs []*site.Config) error {
	if err := h.openRepos(configs); err != nil {
		return err
	}
	specs := make([]map[string]bool, len(h.repos))
	globs := make([][]*serverFiles, len(h.repos))
	releases := make([][]string, len(h.repos)) // version_tags patterns
	for i := range specs {
		specs[i] = map[string]bool{}
	}
	specs[0][literal(h.configPath)] = true
	for _, c := range configs {
		for _, s := range c.Servers {
			if p, ok := h.importPath(s.Import); ok {
				specs[0][literal(p)] = true
			}
			if s.Tools == "" {
				continue
			}
			if i, prefix, ok := h.toolsLocation(s); ok {
				specs[i][":(glob)"+path.Join(prefix, s.Tools)] = true
				globs[i] = append(globs[i], newServerFiles(i, prefix, s.Tools, s.Exclude))
				if s.VersionTags != "" {
					releases[i] = append(releases[i], s.VersionTags)
				}
			}
		}
	}
	for i, rh := range h.repos {
		paths := slices.Sorted(maps.Keys(specs[i]))
		patterns := slices.Compact(slices.Sorted(slices.Values(releases[i])))
		if !slices.Equal(paths, rh.paths) {
			if err := h.readRepo(i, paths, globs[i]); err != nil {
				return err
			}
		} else if slices.Equal(patterns, rh.patterns) {
			continue
		}
		// Release tags are facts about commits: an earlier site.toml's
		// version_tags reads them as much as the one being built.
		rh.patterns = patterns
		if err := h.readReleaseTags(i, patterns); err != nil {
			return err
		}
	}
	return nil
}

// readRepo reads the history of paths in repository i, whose tool files
// are those globs match, and the blobs it names; commits one "rebase and
// merge" wrote are one landing.
func (h *historyReader) readRepo(i int, paths []string, globs []*serverFiles) error {
	rh := h.repos[i]
	prefetch, err := h.prefetcher(rh)
	if err != nil {
		return err
	}
	early := startEarlyParse(globs, rh.forms)
	commits, contents, skipped, err := rh.readLog(h.rev(i), paths, prefetch, early)
	asked, moved := early.finish()
	if err != nil {
		return err
	}
	rh.commits, rh.paths, rh.globs = landings(&commits), paths, globs
	if err := rh.commits.failed(); err != nil {
		return err
	}
	return rh.keepRead(globs, asked, moved, contents, skipped)
}

// keepRead keeps the blobs a read of history asked for (see earlyParse):
// those early parsed at the path they are read as (see oldest) as they
// are; the others read (contents, and the moved ones read again) parsed
// as a tool file when that path is one some server's glob matches, on
// every core, and as they are otherwise; those too large to read as
// recordSkipped says.
func (rh *repoHistory) keepRead(globs []*serverFiles, asked *blobTable, moved map[gitlog.ObjectID]string, contents map[gitlog.ObjectID][]byte, skipped map[string]int) error {
	if err := rh.readMoved(moved, contents, skipped); err != nil {
		return err
	}
	var toolBlobs []gitlog.ObjectID
	for _, id := range slices.Sorted(maps.Keys(contents)) {
		if matchesAny(globs, oldest(asked, moved, id)) {
			toolBlobs = append(toolBlobs, id)
		} else {
			rh.blobs[id] = contents[id]
			asked.remove(id)
		}
	}
	parsed := make([]parsedTool, len(toolBlobs))
	parallel.For(len(toolBlobs), func(i int) {
		id := toolBlobs[i]
		parsed[i] = rh.forms.parse(oldest(asked, moved, id), contents[id])
	})
	for i, id := range toolBlobs {
		asked.put(id, parsed[i])
	}
	if err := recordSkipped(asked, moved, skipped, globs); err != nil {
		return err
	}
	// What is left is parsed: the table, the size of the history, is
	// made once.
	if rh.parsed == nil {
		rh.parsed = asked
	} else {
		rh.parsed.merge(asked)
	}
	return nil
}

// oldest returns the path a blob asked for is read as: the one the
// history shows it at first.
func oldest(asked *blobTable, moved map[gitlog.ObjectID]string, id gitlog.ObjectID) string {
	if p, ok := moved[id]; ok {
		return p
	}
	p, _ := asked.get(id)
	return p.at.path
}

// readMoved reads again, into contents, the blobs the early parse read at
// another path than the one they are read as (see oldest): it kept no
// contents, and a blob is parsed, or kept as it is, as that first path
// decides. Only a file moved unchanged is, which few commits do.
func (rh *repoHistory) readMoved(moved map[gitlog.ObjectID]string, contents map[gitlog.ObjectID][]byte, skipped map[string]int) error {
	var again []gitlog.ObjectID
	for id := range moved {
		_, read := contents[id]
		_, tooLarge := skipped[id.String()]
		if !read && !tooLarge {
			again = append(again, id)
		}
	}
	if len(again) == 0 {
		return nil
	}
	slices.Sort(again)
	ids := make(chan string, len(again))
	for _, id := range again {
		ids <- id.String()
	}
	close(ids)
	b, err := rh.repo.Blobs()
	if err != nil {
		return err
	}
	defer b.Close()
	b.Limit = tools.MaxFileBytes
	return b.ReadStream(ids, func(name string, data []byte) error {
		id, _ := gitlog.ParseObjectID(name)
		contents[id] = data
		return nil
	})
}

// openRepos adds the repositories the configs' servers name.
func (h *historyReader) openRepos(configs []*site.Config) error {
	for _, c := range configs {
		for i, s := range c.Servers {
			if s.Repo == "" {
				continue
			}
			repo, err := gitlog.Open(h.cfg.Path(s.Repo))
			if err != nil {
				return h.repoError(c, i, err)
			}
			if err := h.addRepo(repo); err != nil {
				return err
			}
		}
	}
	return nil
}

// repoError reports the repo of server i of c that cannot be opened, at
// the line that names it. A past site.toml may name a repository that is
// gone since: the line is then the one of site.toml at that commit, which
// the message names.
func (h *historyReader) repoError(c *site.Config, i int, err error) error {
	s := c.Servers[i]
	if info, statErr := os.Stat(h.cfg.Path(s.Repo)); statErr != nil || !info.IsDir() {
		err = errors.New("no such directory")
	}
	line := c.Line(fmt.Sprintf("servers.%d.repo", i))
	commit, past := h.pastConfigs[c]
	if !past {
		return diag.Errorf(h.cfg.File, line, "server %s: repo %s: %v", s.Name, s.Repo, err)
	}
	return diag.Errorf(h.cfg.File, line, "at commit %s: server %s: repo %s: %v", gitlog.Short(commit), s.Name, s.Repo, err).
		WithHint("the feed replays every committed %s, so each repository one of them names must be there: put a clone of it at %s (resolved against the site directory)", filepath.Base(h.cfg.File), s.Repo)
}

// prefetcher returns, for a partial clone, what fetches the blobs its
// history names before they are read (see fetchMissingBlobs); nil for a
// whole clone.
func (h *historyReader) prefetcher(rh *repoHistory) (func(ids []string) error, error) {
	remote, err := rh.repo.PromisorRemote()
	if err != nil || remote == "" {
		return nil, err
	}
	return func(ids []string) error { return h.fetchMissingBlobs(rh, remote, ids) }, nil
}

// readLog reads the history of the paths pathspecs match, newest first as
// git log prints it, and, while git log is still walking it, the contents
// of every blob it names that the repository's history does not hold yet,
// through one git cat-file: the floor of what reading this history costs
// is git's walk, not the two processes one after the other.
//
// In a partial clone, whose missing blobs git would fetch one at a time as
// they are asked for, prefetch (when not nil) gets the ids of every blob to
// read first, and they are asked for only once it has fetched them in one
// batch. early is told of every blob the history names (see
// earlyParse.ask) and of every one read; contents holds those it did not
// take to parse.
func (rh *repoHistory) readLog(rev string, pathspecs []string, prefetch func(ids []string) error, early *earlyParse) (commitList, map[gitlog.ObjectID][]byte, map[string]int, error) {
	b, err := rh.repo.Blobs()
	if err != nil {
		return commitList{}, nil, nil, err
	}
	defer b.Close()
	// No input the replay reads may be larger than a tool file: the cap
	// bounds what a hostile blob in history costs every build.
	b.Limit = tools.MaxFileBytes
	b.Buffer = early.buffer
	ids := make(chan string, 256)
	contents := map[gitlog.ObjectID][]byte{} // written by the reader only, read once it is done
	read := make(chan error, 1)
	go func() {
		read <- b.ReadStream(ids, func(name string, data []byte) error {
			id, _ := gitlog.ParseObjectID(name)
			if !early.arrived(id, data) {
				contents[id] = data
			}
			return nil
		})
	}()
	inputs := pathspecTest(pathspecs)
	commits := spooledCommits(rh.spool(), nil)
	var held []string // the names asked for after prefetch, when there is one
	logErr := rh.repo.LogEach(rev, directories(pathspecs), func(c gitlog.Commit) error {
		if c.Changes = matching(c.Changes, inputs); len(c.Changes) == 0 {
			return nil
		}
		commits.Append(c)
		for _, ch := range c.Changes {
			if ch.Blob != "" && !rh.holds(ch.Blob) && early.ask(ch.Blob, ch.Path) {
				if prefetch != nil {
					held = append(held, ch.Blob.String())
				} else {
					ids <- ch.Blob.String()
				}
			}
		}
		return nil
	})
	if logErr == nil && prefetch != nil {
		logErr = prefetch(held)
	}
	for _, id := range held {
		if logErr != nil {
			break
		}
		ids <- id
	}
	close(ids)
	if err := cmp.Or(logErr, <-read); err != nil {
		return commitList{}, nil, nil, err
	}
	return commits, contents, b.Skipped, nil
}

// holds reports whether a blob was read before.
func (rh *repoHistory) holds(blob gitlog.ObjectID) bool {
	return rh.parsed.has(blob) || rh.blobs[blob] != nil
}

// matchesAny reports whether some server's glob (any of globs) matches p.
func matchesAny(globs []*serverFiles, p string) bool {
	return slices.ContainsFunc(globs, func(f *serverFiles) bool { return f.matches(p) })
}

// recordSkipped turns the blobs too large to read into what the replay
// reports: a tool file over the limits, or an error for anything else.
func recordSkipped(asked *blobTable, moved map[gitlog.ObjectID]string, skipped map[string]int, globs []*serverFiles) error {
	for _, name := range slices.Sorted(maps.Keys(skipped)) {
		id, _ := gitlog.ParseObjectID(name)
		p := oldest(asked, moved, id)
		if !matchesAny(globs, p) {
			return diag.Errorf(p, 0, "a version of this file in git history (blob %s) is %d bytes; the limit is %d", name, skipped[name], tools.MaxFileBytes)
		}
		known, _ := asked.get(id)
		asked.put(id, parsedTool{at: known.at, form: tools.Oversized(p, skipped[name])})
	}
	return nil
}

// rev is the revision read in repository i: Input.Rev for the site's,
// Input.Revs for the others, else HEAD.
func (h *historyReader) rev(i int) string {
	rev := h.in.Revs[h.repos[i].repo.Root()]
	if i == 0 {
		rev = h.in.Rev
	}
	return cmp.Or(rev, "HEAD")
}

// toolsLocation says which repository holds a server's tool files, and the
// directory within it its glob is relative to.
func (h *historyReader) toolsLocation(s site.Server) (repo int, prefix string, ok bool) {
	if s.Repo == "" {
		return 0, h.siteDir, true
	}
	dir := h.cfg.Path(s.Repo)
	for i, rh := range h.repos {
		if rel, err := rh.repo.Rel(dir); err == nil && !strings.HasPrefix(rel, "..") {
			return i, rel, true
		}
	}
	return 0, "", false
}

// sitePath turns a path relative to the site directory into one relative to
// the site repository's root.
func (h *historyReader) sitePath(p string) string { return path.Join(h.siteDir, filepath.ToSlash(p)) }

// importPath returns where an import file is in the site's repository; ok is
// false when there is none or it is outside the repository, whose history
// cannot hold it (a past site.toml naming one is then left out, with a
// warning, when it is replayed).
func (h *historyReader) importPath(imp string) (p string, ok bool) {
	if imp == "" || filepath.IsAbs(imp) {
		return "", false
	}
	p = h.sitePath(imp)
	return p, p != ".." && !strings.HasPrefix(p, "../")
}

// directories returns pathspecs git log reads at least the paths of
// pathspecs with, cheaper for git to match: each :(glob) pathspec becomes the
// literal directory before its first wildcard (which git matches with less
// work), unless that is the repository's root. matching then matches the
// files in Go.
func directories(pathspecs []string) []string {
	var out []string
	for _, spec := range pathspecs {
		if glob, ok := strings.CutPrefix(spec, ":(glob)"); ok {
			if dir := tools.Dir(glob); dir != "" {
				spec = literal(dir)
			}
		}
		if !slices.Contains(out, spec) {
			out = append(out, spec)
		}
	}
	return out
}

// matching returns the changes of the paths inputs matches (see
// pathspecTest): what git log would have returned for the pathspecs
// themselves.
func matching(changes []gitlog.Change, inputs *pathTest) []gitlog.Change {
	return slices.DeleteFunc(changes, func(ch gitlog.Change) bool { return !inputs.matches(ch.Path) })
}

// pathspecTest tells the paths one of pathspecs matches.
func pathspecTest(pathspecs []string) *pathTest {
	return newPathTest(func(p string) bool {
		return slices.ContainsFunc(pathspecs, func(spec string) bool { return matchesPathspec(spec, p) })
	})
}

// pathTest is a test of paths that keeps its answers: a long history
// changes the same files again and again, and a site has a glob for
// each server to try. It is not safe for concurrent use.
type pathTest struct {
	test    func(p string) bool
	answers map[string]bool
}

func newPathTest(test func(p string) bool) *pathTest {
	return &pathTest{test: test, answers: map[string]bool{}}
}

func (t *pathTest) matches(p string) bool {
	answer, known := t.answers[p]
	if !known {
		answer = t.test(p)
		t.answers[p] = answer
	}
	return answer
}

// matchesPathspec reports whether a :(literal) or :(glob) pathspec matches
// path p as git matches it: a literal one matches the path itself and the
// files under it; a glob one is the language of tools.Match.
func matchesPathspec(spec, p string) bool {
	if lit, ok := strings.CutPrefix(spec, ":(literal)"); ok {
		return p == lit || strings.HasPrefix(p, lit+"/")
	}
	glob, ok := strings.CutPrefix(spec, ":(glob)")
	return ok && tools.Match(glob, p)
}

// literal is a pathspec that matches exactly one path.
func literal(p string) string { return ":(literal)" + p }
