package replay

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/format/canonjson"
	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

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
	// A replay that spools is a build's that writes once (Input.Spool):
	// no replay resumes from it, its commits are kept in the spool (see
	// commitList), and it lets go of each blob parsed once no later step
	// can ask for it (see letGo).
	st := &replayState{h: h, release: h.forms != nil, trees: make([]gitlog.Tree, len(h.repos)), servers: map[string]*serverFiles{},
		backfill: backfill, configured: map[string]bool{}, started: map[string]bool{}, clashes: map[string]*clash{},
		versions: map[string]string{}, unrecordable: map[string]site.Server{}, releases: make([][]release, len(h.repos)),
		fromTags: map[string]bool{}, startedAt: map[string]int{}}
	for i := range st.trees {
		st.trees[i] = gitlog.Tree{}
	}
	if st.release {
		h.countUses(steps)
	}
	st.refollow()
	st.ahead = h.compareAhead(steps)
	tl := timeline.NewBuilder(st.ahead.compare)
	if st.release {
		tl.StoreChanges(h.forms.storeChange)
		tl.HandleStored(h.forms.spool)
		tl.KeepPastIn(h.forms.spool)
	}
	// Commits the spool could not give back are what made a replay go
	// wrong, whatever it says.
	err = st.play(tl, steps)
	err = cmp.Or(h.commitsFailed(), err)
	// Making the timeline whole is when the replay holds the most: what
	// served the steps goes first, the comparisons' decoded versions and,
	// in a replay that lets go, the steps themselves.
	st.ahead.stop()
	st.ahead = nil
	if err != nil {
		return nil, err
	}
	if st.release {
		steps = nil
	}
	// A resumed replay compares the few versions its commits make itself.
	tl.SetCompare(h.forms.compare)
	r := &resumable{st: st, tl: tl, steps: steps}
	if !st.release {
		h.resume = r
	}
	return r.end(), nil
}

// play replays the steps into tl.
func (st *replayState) play(tl *timeline.Builder, steps []step) error {
	var gone []gitlog.ObjectID // the blobs a step takes out of the tree
	for i, at := range steps {
		if st.ahead != nil {
			st.ahead.at(i)
		}
		step := played{int(at.repo), st.h.commit(at)}
		if st.release {
			gone = replaced(st.trees[step.repo], *step.commit, gone[:0])
		}
		st.trees[step.repo].Apply(*step.commit)
		st.noteReleases(step)
		if step.repo == 0 && st.touchesConfig(*step.commit) {
			st.loadConfig(*step.commit)
		}
		c := st.snapshot(step)
		if st.err != nil {
			return st.err
		}
		if err := tl.Commit(c); err != nil {
			return err
		}
		if st.release {
			st.h.repos[step.repo].letGo(gone)
		}
	}
	return nil
}

// step is a commit of one of the repositories, in the order the replay
// takes them: where the commit is in its repository's list (see
// commitList), which keeps it.
type step struct {
	repo, at int32
}

// commit returns the commit of a step.
func (h *historyReader) commit(s step) *gitlog.Commit {
	return h.repos[s.repo].commits.At(int(s.at))
}

// played is a step as the replay plays it: its repository and its
// commit.
type played struct {
	repo   int
	commit *gitlog.Commit
}

// merged interleaves the repositories' commits by commit time, keeping each
// repository's own order (commit times need not increase along history).
func (h *historyReader) merged() []step {
	next := make([]int, len(h.repos))
	total := 0
	for _, rh := range h.repos {
		total += rh.commits.Len()
	}
	out := make([]step, 0, total)
	for {
		best := -1
		for i, rh := range h.repos {
			if next[i] == rh.commits.Len() {
				continue
			}
			if best < 0 || rh.commits.At(next[i]).Time.Before(h.repos[best].commits.At(next[best]).Time) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, step{int32(best), int32(next[best])})
		next[best]++
	}
}

// replayState is the state of the inputs at one point of the replay.
type replayState struct {
	h       *historyReader
	release bool         // let go of each commit once replayed, and of blobs (see replay)
	ahead   *comparisons // the whole history's replay's, told each step (see comparisons.at)
	trees   []gitlog.Tree
	config  *site.Config
	servers map[string]*serverFiles // by server name
	// serverStates is the slice of the servers' states each step hands
	// to the timeline (see snapshot).
	serverStates []timeline.Server
	err          error // a tool file over the limits: the replay stops

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

func (st *replayState) touchesConfig(c gitlog.Commit) bool {
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
func (st *replayState) loadConfig(c gitlog.Commit) {
	cfg, err := st.h.configAt(st.trees[0])
	if err != nil {
		st.h.out.Warnings = append(st.h.out.Warnings, diag.Errorf("", 0, "commit %s: %s is left out of the feed, and the version before it stays in force: %v", gitlog.Short(c.Hash), st.h.configPath, err))
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
func (h *historyReader) configAt(tree gitlog.Tree) (*site.Config, error) {
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
func (st *replayState) snapshot(s played) timeline.Commit {
	c := timeline.Commit{Hash: s.commit.Hash, Time: s.commit.Time}
	servers := st.serversAt(*s.commit)
	if !slices.Equal(servers, st.followed) {
		st.forgetUnfollowed(servers)
		st.followed = servers
	}
	// The timeline reads a commit during Commit only: one slice serves
	// every step, not one a step of a long history.
	c.Servers = st.serverStates[:0]
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
	st.serverStates = c.Servers
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
func (st *replayState) files(fl *follow, s played) *serverFiles {
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
				st.update(f, p, st.trees[fl.repo][p], *s.commit)
			}
		}
		st.judge(srv.Name, f, *s.commit)
		f.changed, f.judged = true, nil
		return f
	}
	fl.files = f
	f.changed, f.judged, f.renamed = false, nil, nil
	if s.repo != fl.repo || !fl.located || srv.Tools == "" {
		return f
	}
	for _, ch := range s.commit.Changes {
		st.update(f, ch.Path, ch.Blob, *s.commit)
	}
	f.judged = st.judge(srv.Name, f, *s.commit)
	f.renamed = st.renamedTools(f, s)
	return f
}

// renamedTools returns, for each tool the step removed whose file git sees
// renamed to a file declaring another tool, that tool's name; nil when the
// step removed none. git's rename detection reads blobs, so it runs only
// for the steps that remove a tool.
func (st *replayState) renamedTools(f *serverFiles, s played) map[string]string {
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
func (st *replayState) update(f *serverFiles, p string, blob gitlog.ObjectID, c gitlog.Commit) {
	if !f.matches(p) {
		return
	}
	var t tools.Tool
	if blob != "" {
		parsed, err := st.h.repos[f.repo].tool(p, blob)
		if err != nil {
			if st.err == nil {
				st.err = diag.Errorf("", 0, "commit %s: %s: %v", gitlog.Short(c.Hash), p, err)
			}
			return
		}
		if errors.Is(parsed.err(), tools.ErrLimit) && st.err == nil {
			// Refused, not skipped: the limits bound what every build costs,
			// and history is as open to a hostile commit as the working tree.
			st.err = diag.Errorf("", 0, "commit %s: %v", gitlog.Short(c.Hash), parsed.err()).
				WithHint("tool files in history are held to the same limits (wellknown's docs/limits.md); rewrite history to drop this version")
			return
		}
		if parsed.err() != nil {
			st.h.out.Warnings = append(st.h.out.Warnings, diag.Errorf("", 0, "commit %s: %v; this change of the file is left out of the feed", gitlog.Short(c.Hash), parsed.err()))
			return
		}
		t = parsed.tool(st.h.forms)
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

// parsedTool is a blob parsed as a tool file, or one asked for and not
// parsed yet (see earlyParse), as the blob table holds it (see blobTable).
// Its contents are not kept: the canonical form holds what the replay
// needs of them.
type parsedTool struct {
	at toolFile // the path it was parsed, or asked for, at, and the tool's name
	// sha256 is the canonical form's SHA256 when no handle names the
	// form; a handle's lies before the form in the spool (see
	// forms.store), and is read back when the tool is made.
	sha256 [sha256.Size]byte
	// handle names where the spool keeps the canonical form (see
	// bundle.Spool.Handle): as Spooled, a long history's forms cost an
	// allocation each until the replay was past them. tool makes the
	// Spooled again when the replay asks. 0 when form says.
	handle uint64
	// form is the canonical form otherwise: a tools.Stored a handle
	// cannot name, or the []byte itself; for a blob that is no tool file,
	// the error that says why, which few are.
	form any
}

// err returns why the blob is no tool file; nil for a tool file, or a
// blob not parsed yet.
func (p parsedTool) err() error {
	err, _ := p.form.(error)
	return err
}

// toolFile is a tool's name ("" for a blob not parsed yet, or no tool
// file) and a path it was parsed at.
type toolFile struct{ name, path string }

// compact returns the record of what parsing a blob at path p returned.
func (f *forms) compact(p string, t tools.Tool, err error) parsedTool {
	if err != nil {
		return parsedTool{at: toolFile{"", p}, form: err}
	}
	parsed := parsedTool{at: toolFile{t.Name, p}, form: t.Stored}
	if t.Stored == nil {
		parsed.form = t.Canonical
	} else if handle, ok := f.spool.Handle(t.Stored); ok {
		parsed.form, parsed.handle = nil, handle
		return parsed
	}
	// The parse wrote the hex digits of a sum it made: they decode.
	_, _ = hex.Decode(parsed.sha256[:], []byte(t.SHA256))
	return parsed
}

// tool returns the tool file parsed, as tools.ParseStored returned it,
// given the forms that parsed it.
func (p parsedTool) tool(f *forms) tools.Tool {
	t := tools.Tool{Name: p.at.name, File: p.at.path}
	if p.handle != 0 {
		t.Stored, t.SHA256 = f.spool.Stored(p.handle), f.digest(p.handle)
		return t
	}
	t.SHA256 = hex.EncodeToString(p.sha256[:])
	switch form := p.form.(type) {
	case []byte:
		t.Canonical = form
	case tools.Stored:
		t.Stored = form
	}
	return t
}

// tool returns the blob at path p parsed as a tool file, parsing it now if
// keepRead did not (it was first seen at a path no glob matched), without
// its decoded object (see parse): the comparisons decode what they
// compare, and the replay's end the latest version of each tool. Every
// blob the history names was read, so in a replay that lets go of blobs
// (see letGo) one neither parsed nor held was let go of too early: an
// error, since the feed would miss its change for good.
func (rh *repoHistory) tool(p string, blob gitlog.ObjectID) (parsedTool, error) {
	t, ok := rh.parsed.get(blob)
	if !ok {
		data, held := rh.blobs[blob]
		if !held && rh.letsGo {
			return parsedTool{}, fmt.Errorf("internal error: blob %s was let go of while the replay still needed it", blob)
		}
		t = rh.forms.parse(p, data)
		rh.parsed.put(blob, t)
	}
	return t, nil
}

// decode returns a tool with its object, decoded from its canonical form
// when it was kept without (see parse). The form was made from a decoded
// object held to the limits, so decoding it again cannot fail.
func (f *forms) decode(t tools.Tool) tools.Tool {
	if t.Object == nil {
		obj, _ := canonjson.Decode(f.canonical(t), canonjson.Limits{})
		t.Object, _ = obj.(map[string]any)
	}
	return t
}
