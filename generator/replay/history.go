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

	"github.com/wellknown-dev/wellknown/generator/canonjson"
	"github.com/wellknown-dev/wellknown/generator/diag"
	"github.com/wellknown-dev/wellknown/generator/history"
	"github.com/wellknown-dev/wellknown/generator/site"
	"github.com/wellknown-dev/wellknown/generator/timeline"
	"github.com/wellknown-dev/wellknown/generator/tools"
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
}

// Output is a finished replay.
type Output struct {
	Timeline *timeline.Timeline // the committed history of the inputs
	Warnings []*diag.Error
	Notices  []string // what the replay did that is worth knowing but needs no action
	// CommitRepos are, by server name, the repository URLs its tools'
	// commits can be linked at (see findCommitLinks).
	CommitRepos map[string]string
	ReadTime    time.Duration // reading git history and blobs
	DiffTime    time.Duration // replaying it: parsing, diffing, versions, events
	// Resumed says the replay went on from an earlier one (see Cache) with
	// only the commits since, newCommits of which changed an input.
	Resumed    bool
	newCommits int

	sources []source   // the repositories read (see statesOf)
	resume  *resumable // what resume goes on from; nil once it has
}

// Read replays the committed history of the site's inputs (site.toml,
// imported server.json files, and every server's tool files, in whatever
// local repositories hold them) into a timeline. It runs one git log per
// repository for the inputs and one git cat-file process per repository
// for all the blobs. A second pass is needed only when an older site.toml
// named tool files or repositories the current one does not.
//
// A site outside git, or without commits, has an empty history: a warning,
// or an error when strict. A server whose committed version the feed cannot
// record is an error (see checkRecordable).
func Read(in Input) (*Output, error) {
	h := &historyReader{cfg: in.Config, in: in, out: &Output{}}
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
	siteRepo, err := history.Open(cfg.Dir)
	if err != nil {
		if errors.Is(err, history.ErrNotRepository) {
			return h.emptyHistory(diag.Errorf("", 0, "%s is not in a git repository, so the change feed has no history", dirName(cfg.Dir)).
				WithHint("the feed is derived from commits: git init -b main && git add -A && git commit"))
		}
		return nil, err
	}
	if err := h.addRepo(siteRepo); err != nil {
		return nil, err
	}
	if _, err := siteRepo.Head(); errors.Is(err, history.ErrNoCommits) {
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
	start = time.Now()
	defer func() { h.out.DiffTime = time.Since(start) }()
	return h.replay()
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
		if slices.ContainsFunc(remotes, func(u string) bool { return history.SameRepository(u, s.Repository.URL) }) {
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
	cfg *site.Config
	in  Input
	out *Output

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
	repo    *history.Repo
	paths   []string       // the pathspecs commits were read for
	globs   []*serverFiles // the servers' globs its blobs were parsed for
	commits []history.Commit
	blobs   map[string][]byte     // blob id → content, for every blob the commits name
	parsed  map[string]parsedTool // blob id → the tool file it holds
	tags    map[string][]string   // commit → the release tags on it, sorted (see readReleaseTags)
	// patterns are the version_tags of the servers whose tool files it
	// holds, in any configuration of the history.
	patterns []string
	shallow  bool // a shallow clone, read with AllowShallow
}

// addRepo adds a repository (once) and checks it is not shallow.
func (h *historyReader) addRepo(repo *history.Repo) error {
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
	h.repos = append(h.repos, &repoHistory{repo: repo, blobs: map[string][]byte{}, shallow: shallow})
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
	for _, c := range site0.commits {
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
	early := startEarlyParse(globs)
	commits, contents, skipped, err := rh.readLog(h.rev(i), paths, prefetch, early)
	parsed := early.finish()
	if err != nil {
		return err
	}
	rh.commits, rh.paths, rh.globs = history.Landings(commits), paths, globs
	at := firstPaths(commits)
	rh.keepBlobs(at, globs, contents, parsed)
	return rh.recordSkipped(at, skipped, globs)
}

// openRepos adds the repositories the configs' servers name.
func (h *historyReader) openRepos(configs []*site.Config) error {
	for _, c := range configs {
		for i, s := range c.Servers {
			if s.Repo == "" {
				continue
			}
			repo, err := history.Open(h.cfg.Path(s.Repo))
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
	return diag.Errorf(h.cfg.File, line, "at commit %s: server %s: repo %s: %v", history.Short(commit), s.Name, s.Repo, err).
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

// readLog reads the history of the paths pathspecs match and, while git log
// is still walking it, the contents of every blob it names that the
// repository's history does not hold yet, through one git cat-file: the
// floor of what reading this history costs is git's walk, not the two
// processes one after the other.
//
// In a partial clone, whose missing blobs git would fetch one at a time as
// they are asked for, prefetch (when not nil) gets the ids of every blob to
// read first, and they are asked for only once it has fetched them in one
// batch. early is told of every blob asked for and read.
func (rh *repoHistory) readLog(rev string, pathspecs []string, prefetch func(ids []string) error, early *earlyParse) ([]history.Commit, map[string][]byte, map[string]int, error) {
	b, err := rh.repo.Blobs()
	if err != nil {
		return nil, nil, nil, err
	}
	defer b.Close()
	// No input the replay reads may be larger than a tool file: the cap
	// bounds what a hostile blob in history costs every build.
	b.Limit = tools.MaxFileBytes
	ids := make(chan string, 256)
	contents := map[string][]byte{} // written by the reader only, read once it is done
	read := make(chan error, 1)
	go func() {
		read <- b.ReadStream(ids, func(id string, data []byte) error {
			contents[id] = data
			early.arrived(id, data)
			return nil
		})
	}()
	requested := map[string]bool{}
	var commits []history.Commit
	var held []string // the names asked for after prefetch, when there is one
	logErr := rh.repo.LogEach(rev, directories(pathspecs), func(c history.Commit) error {
		if c.Changes = matching(c.Changes, pathspecs); len(c.Changes) == 0 {
			return nil
		}
		commits = append(commits, c)
		for _, ch := range c.Changes {
			if ch.Blob != "" && !requested[ch.Blob] && !rh.holds(ch.Blob) {
				requested[ch.Blob] = true
				early.expect(ch.Blob, ch.Path)
				if prefetch != nil {
					held = append(held, ch.Blob)
				} else {
					ids <- ch.Blob
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
		return nil, nil, nil, err
	}
	slices.Reverse(commits)
	return commits, contents, b.Skipped, nil
}

// holds reports whether a blob was read before.
func (rh *repoHistory) holds(blob string) bool {
	_, parsed := rh.parsed[blob]
	return parsed || rh.blobs[blob] != nil
}

// firstPaths maps each blob the commits (oldest first) name to the first
// path they show it at: the path it is read as.
func firstPaths(commits []history.Commit) map[string]string {
	at := map[string]string{}
	for _, c := range commits {
		for _, ch := range c.Changes {
			if _, seen := at[ch.Blob]; !seen && ch.Blob != "" {
				at[ch.Blob] = ch.Path
			}
		}
	}
	return at
}

// matchesAny reports whether some server's glob (any of globs) matches p.
func matchesAny(globs []*serverFiles, p string) bool {
	return slices.ContainsFunc(globs, func(f *serverFiles) bool { return f.matches(p) })
}

// keepBlobs keeps the contents of blobs just read: parsed as a tool file
// when the path it is first seen at (at) is one some server's glob matches,
// as they are otherwise. A blob early parsed at that path is taken as it is;
// the others are parsed on every core.
func (rh *repoHistory) keepBlobs(at map[string]string, globs []*serverFiles, contents map[string][]byte, early map[string]parsedAt) {
	if rh.parsed == nil {
		rh.parsed = map[string]parsedTool{}
	}
	var toolBlobs []string
	for _, id := range slices.Sorted(maps.Keys(contents)) {
		if e, ok := early[id]; ok && e.path == at[id] {
			rh.parsed[id] = e.parsedTool
		} else if matchesAny(globs, at[id]) {
			toolBlobs = append(toolBlobs, id)
		} else {
			rh.blobs[id] = contents[id]
		}
	}
	parsed := make([]parsedTool, len(toolBlobs))
	parallel.For(len(toolBlobs), func(i int) {
		id := toolBlobs[i]
		parsed[i] = parse(at[id], contents[id])
	})
	for i, id := range toolBlobs {
		rh.parsed[id] = parsed[i]
	}
}

// recordSkipped turns the blobs too large to read into what the replay
// reports: a tool file over the limits, or an error for anything else.
func (rh *repoHistory) recordSkipped(at map[string]string, skipped map[string]int, globs []*serverFiles) error {
	for _, id := range slices.Sorted(maps.Keys(skipped)) {
		p := at[id]
		if !matchesAny(globs, p) {
			return diag.Errorf(p, 0, "a version of this file in git history (blob %s) is %d bytes; the limit is %d", id, skipped[id], tools.MaxFileBytes)
		}
		rh.parsed[id] = parsedTool{err: tools.Oversized(p, skipped[id])}
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

// replay walks the commits of all repositories in time order (each
// repository's own order kept) and replays the state of the inputs after
// each one into the timeline. The servers' tool maps change in place from one
// commit to the next, which the timeline allows (it reads a commit during
// Commit only, and is told which servers did not change).
func (h *historyReader) replay() (*timeline.Timeline, error) {
	backfill, err := h.backfill()
	if err != nil {
		return nil, err
	}
	if err := h.backfillReleases(backfill); err != nil {
		return nil, err
	}
	steps := h.merged()
	st := &replayState{h: h, trees: make([]history.Tree, len(h.repos)), servers: map[string]*serverFiles{},
		backfill: backfill, configured: map[string]bool{}, started: map[string]bool{}, clashes: map[string]*clash{},
		versions: map[string]string{}, unrecordable: map[string]site.Server{}, releases: make([][]release, len(h.repos)),
		fromTags: map[string]bool{}, startedAt: map[string]int{}}
	for i := range st.trees {
		st.trees[i] = history.Tree{}
	}
	st.refollow()
	ahead := h.compareAhead(steps)
	defer ahead.stop()
	tl := timeline.NewBuilder(ahead.compare)
	if err := st.play(tl, steps); err != nil {
		return nil, err
	}
	// A resumed replay compares the few versions its commits make itself.
	tl.SetCompare(compareDecoded)
	h.resume = &resumable{st: st, tl: tl, steps: steps}
	return h.resume.end(), nil
}

// play replays the steps into tl.
func (st *replayState) play(tl *timeline.Builder, steps []step) error {
	for _, step := range steps {
		st.trees[step.repo].Apply(step.commit)
		st.noteReleases(step)
		if step.repo == 0 && st.touchesConfig(step.commit) {
			st.loadConfig(step.commit)
		}
		c := st.snapshot(step)
		if st.err != nil {
			return st.err
		}
		if err := tl.Commit(c); err != nil {
			return err
		}
	}
	return nil
}

type step struct {
	repo   int
	commit history.Commit
}

// merged interleaves the repositories' commits by commit time, keeping each
// repository's own order (commit times need not increase along history).
func (h *historyReader) merged() []step {
	next := make([]int, len(h.repos))
	var out []step
	for {
		best := -1
		for i, rh := range h.repos {
			if next[i] == len(rh.commits) {
				continue
			}
			if best < 0 || rh.commits[next[i]].Time.Before(h.repos[best].commits[next[best]].Time) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, step{best, h.repos[best].commits[next[best]]})
		next[best]++
	}
}

// replayState is the state of the inputs at one point of the replay.
type replayState struct {
	h       *historyReader
	trees   []history.Tree
	config  *site.Config
	servers map[string]*serverFiles // by server name
	err     error                   // a tool file over the limits: the replay stops

	following []*follow // the servers of the configuration in force (see refollow)
	followed  []*follow // those followed at the last step

	backfill   *backfill         // servers as first configured, applied before that
	configured map[string]bool   // servers some site.toml so far has configured
	started    map[string]bool   // servers whose history has begun
	clashes    map[string]*clash // open clashes, by server and tool name

	versions     map[string]string      // the last version recorded, by server name
	unrecordable map[string]site.Server // servers whose version is now no version
	releases     [][]release            // by repository: the release tags reached, in order
	fromTags     map[string]bool        // servers whose version at the last step came from tags
	startedAt    map[string]int         // by server: how many releases its repository had reached when its history began
}

// serverFiles are the tool files of one server at one point of history.
type serverFiles struct {
	repo      int
	prefix    string
	glob      string
	exclude   []string
	under     string // the directory every file glob matches is under, with a trailing slash ("" for any)
	byPath    map[string]tools.Tool
	paths     map[string][]string // tool name → the paths declaring it, sorted
	byName    map[string]tools.Tool
	touched   map[string]bool   // tool names whose paths changed during the step
	deleted   map[string]string // tool name → the path of a file that declared it, deleted during the step
	renamed   map[string]string // tools gone at the last step → the tool their file was renamed to
	changed   bool              // byName changed at the last step
	judged    []string          // the names touched at the last step; nil when all may have changed
	forgotten bool              // no longer the server's: it was not followed for a while
}

func (st *replayState) touchesConfig(c history.Commit) bool {
	for _, ch := range c.Changes {
		if ch.Path == st.h.configPath || st.isImport(ch.Path) {
			return true
		}
	}
	return false
}

func (st *replayState) isImport(p string) bool {
	if st.config == nil {
		return false
	}
	for _, s := range st.config.Servers {
		if s.Import != "" && st.h.sitePath(s.Import) == p {
			return true
		}
	}
	return false
}

// loadConfig parses site.toml as of commit c; a version that does not parse
// is skipped with a warning, and the previous one stays in force.
func (st *replayState) loadConfig(c history.Commit) {
	cfg, err := st.h.configAt(st.trees[0])
	if err != nil {
		st.h.out.Warnings = append(st.h.out.Warnings, diag.Errorf("", 0, "commit %s: %s is left out of the feed, and the version before it stays in force: %v", history.Short(c.Hash), st.h.configPath, err))
		return
	}
	st.config = cfg
	for _, srv := range cfg.Servers {
		st.configured[srv.Name] = true
	}
	st.refollow()
}

// configAt parses site.toml as it is in the site repository's tree; nil
// when the tree has none.
func (h *historyReader) configAt(tree history.Tree) (*site.Config, error) {
	blobs := h.repos[0].blobs
	id, ok := tree[h.configPath]
	if !ok {
		return nil, nil
	}
	readImport := func(p string) ([]byte, bool) {
		data, ok := blobs[tree[h.sitePath(p)]]
		return data, ok && data != nil
	}
	cfg, err := site.ParseHistorical(blobs[id], readImport)
	if err == nil {
		err = uniqueServerNames(cfg)
	}
	return cfg, err
}

// uniqueServerNames rejects a site.toml that configures one server twice:
// which would be the server?
func uniqueServerNames(cfg *site.Config) error {
	seen := map[string]bool{}
	for _, s := range cfg.Servers {
		if seen[s.Name] {
			return fmt.Errorf("server %s is configured twice", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

// snapshot returns the state of the inputs after a step.
func (st *replayState) snapshot(s step) timeline.Commit {
	c := timeline.Commit{Hash: s.commit.Hash, Time: s.commit.Time}
	servers := st.serversAt(s.commit)
	if !slices.Equal(servers, st.followed) {
		st.forgetUnfollowed(servers)
		st.followed = servers
	}
	c.Servers = make([]timeline.Server, 0, len(servers))
	for _, fl := range servers {
		srv := fl.srv
		if srv.Name == "" {
			continue
		}
		files := st.files(fl, s)
		if !st.started[srv.Name] && srv.Tools != "" && len(files.byName) == 0 && !st.inForce(srv.Name) {
			continue // a backfilled server's history begins with its first tool
		}
		if !st.started[srv.Name] {
			st.started[srv.Name] = true
			st.startedAt[srv.Name] = len(st.releases[fl.repo])
		}
		version, late := st.recordableVersion(fl)
		c.Servers = append(c.Servers, timeline.Server{
			Name: srv.Name, Slug: srv.Slug, Version: version, Release: st.releaseAt(fl.repo, s.commit.Hash), Releases: late,
			Endpoint: fl.endpoint, Tools: files.byName, Unchanged: !files.changed, Touched: files.judged, Renamed: files.renamed,
		})
	}
	if st.config == nil {
		return c
	}
	for _, d := range st.config.Deprecations {
		c.Deprecations = append(c.Deprecations, timeline.Deprecation{Endpoint: d.Endpoint, AnnouncedAt: d.AnnouncedAt, Sunset: d.Sunset, Replacement: d.Replacement, Reason: d.Reason})
	}
	return c
}

// files returns the server's tool files after step s, updated from the
// step's changes; changed says whether its tools differ from the last step.
func (st *replayState) files(fl *follow, s step) *serverFiles {
	srv := fl.srv
	f := fl.files
	if f == nil || f.forgotten {
		f = st.servers[srv.Name]
	}
	if f == nil || f.repo != fl.repo || f.prefix != fl.prefix || f.glob != srv.Tools || !slices.Equal(f.exclude, fl.exclude) {
		f = newServerFiles(fl.repo, fl.prefix, srv.Tools, fl.exclude)
		st.servers[srv.Name] = f
		fl.files = f
		if fl.located && srv.Tools != "" {
			for _, p := range slices.Sorted(maps.Keys(st.trees[fl.repo])) {
				st.update(f, p, st.trees[fl.repo][p], s.commit)
			}
		}
		st.judge(srv.Name, f, s.commit)
		f.changed, f.judged = true, nil
		return f
	}
	fl.files = f
	f.changed, f.judged, f.renamed = false, nil, nil
	if s.repo != fl.repo || !fl.located || srv.Tools == "" {
		return f
	}
	for _, ch := range s.commit.Changes {
		st.update(f, ch.Path, ch.Blob, s.commit)
	}
	f.judged = st.judge(srv.Name, f, s.commit)
	f.renamed = st.renamedTools(f, s)
	return f
}

// renamedTools returns, for each tool the step removed whose file git sees
// renamed to a file declaring another tool, that tool's name; nil when the
// step removed none. git's rename detection reads blobs, so it runs only
// for the steps that remove a tool.
func (st *replayState) renamedTools(f *serverFiles, s step) map[string]string {
	defer clear(f.deleted)
	var gone []string
	for name := range f.deleted {
		if _, still := f.byName[name]; !still {
			gone = append(gone, name)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	c := s.commit
	renames, err := st.h.repos[f.repo].repo.Renames(cmp.Or(c.First, c.Hash)+"^", c.Hash)
	if err != nil {
		st.err = cmp.Or(st.err, err)
		return nil
	}
	out := map[string]string{}
	for _, name := range gone {
		if t, ok := f.byPath[renames[f.deleted[name]]]; ok && t.Name != name {
			out[name] = t.Name
		}
	}
	return out
}

// update applies one file change to a server's files. A file that is not a
// valid tool keeps its previous state. The tools it names are judged once
// the whole commit is applied, so a file moved is not a clash.
func (st *replayState) update(f *serverFiles, p, blob string, c history.Commit) {
	if !f.matches(p) {
		return
	}
	var t tools.Tool
	if blob != "" {
		parsed := st.h.repos[f.repo].tool(p, blob)
		if errors.Is(parsed.err, tools.ErrLimit) && st.err == nil {
			// Refused, not skipped: the limits bound what every build costs,
			// and history is as open to a hostile commit as the working tree.
			st.err = diag.Errorf("", 0, "commit %s: %v", history.Short(c.Hash), parsed.err).
				WithHint("tool files in history are held to the same limits (wellknown's docs/limits.md); rewrite history to drop this version")
			return
		}
		if parsed.err != nil {
			st.h.out.Warnings = append(st.h.out.Warnings, diag.Errorf("", 0, "commit %s: %v; this change of the file is left out of the feed", history.Short(c.Hash), parsed.err))
			return
		}
		t = parsed.tool
	}
	if old, had := f.byPath[p]; had {
		if blob == "" {
			f.deleted[old.Name] = p
		}
		delete(f.byPath, p)
		f.paths[old.Name] = slices.DeleteFunc(f.paths[old.Name], func(q string) bool { return q == p })
		f.touched[old.Name] = true
	}
	if blob == "" {
		return
	}
	f.byPath[p] = t
	names := append(f.paths[t.Name], p)
	slices.Sort(names)
	f.paths[t.Name] = names
	f.touched[t.Name] = true
}

// newServerFiles returns a server's tool files, none read yet, for the glob
// (relative to prefix in repository repo) and exclude globs.
func newServerFiles(repo int, prefix, glob string, exclude []string) *serverFiles {
	under := path.Join(prefix, tools.Dir(glob))
	if under != "" {
		under += "/"
	}
	return &serverFiles{repo: repo, prefix: prefix, glob: glob, exclude: exclude, under: under,
		byPath: map[string]tools.Tool{}, paths: map[string][]string{}, byName: map[string]tools.Tool{}, touched: map[string]bool{}, deleted: map[string]string{}}
}

// matches reports whether a repository path is one of the server's tool
// files: matched by its glob, and by none of its exclude globs. Most paths
// of a commit are another server's, which the literal directory before the
// glob's first wildcard rules out without matching.
func (f *serverFiles) matches(p string) bool {
	if !strings.HasPrefix(p, f.under) {
		return false
	}
	rel, ok := p, true
	if f.prefix != "" {
		rel, ok = strings.CutPrefix(p, f.prefix+"/")
	}
	return ok && tools.Match(f.glob, rel) && !tools.MatchAny(f.exclude, rel)
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

// matching returns the changes of paths one of pathspecs matches: what git
// log would have returned for the pathspecs themselves.
func matching(changes []history.Change, pathspecs []string) []history.Change {
	return slices.DeleteFunc(changes, func(ch history.Change) bool {
		return !slices.ContainsFunc(pathspecs, func(spec string) bool { return matchesPathspec(spec, ch.Path) })
	})
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

// parsedTool is a blob parsed as a tool file. Its contents are not kept:
// the canonical form holds what the replay needs of them.
type parsedTool struct {
	tool tools.Tool
	err  error
}

// tool returns the blob at path p parsed as a tool file, parsing it now if
// keepBlobs did not (it was first seen at a path no glob matched), without
// its decoded object (see parse): the comparisons decode what they
// compare, and the replay's end the latest version of each tool.
func (rh *repoHistory) tool(p, blob string) parsedTool {
	t, ok := rh.parsed[blob]
	if !ok {
		t = parse(p, rh.blobs[blob])
		rh.parsed[blob] = t
	}
	return t
}

// decode returns a tool with its object, decoded from its canonical form
// when it was kept without (see parse). The form was made from a decoded
// object held to the limits, so decoding it again cannot fail.
func decode(t tools.Tool) tools.Tool {
	if t.Object == nil {
		obj, _ := canonjson.Decode(t.Canonical, canonjson.Limits{})
		t.Object, _ = obj.(map[string]any)
	}
	return t
}

// literal is a pathspec that matches exactly one path.
func literal(p string) string { return ":(literal)" + p }
