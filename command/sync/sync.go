package sync

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/diag"
)

// Options say which server to sync, and where to.
type Options struct {
	Source       *Source
	Dir          string        // where the tool files go
	AllowInvalid bool          // write the valid tools when some are invalid
	Timeout      time.Duration // limit for the whole exchange with the server; 0: none
	// Site and Server, when set, are the site and its card for this server:
	// sync then warns when the server's serverInfo differs from the card, and
	// when the server's tools glob does not read the files it wrote.
	Site   *site.Config
	Server *site.Server
	// DryRun reports what would change without writing or removing a file
	// (wellknown sync --check).
	DryRun bool
}

// Kind says what happened to a tool's file.
type Kind string

// The kinds of change, in the order a Report lists them.
const (
	Added       Kind = "added"
	Changed     Kind = "changed"
	Removed     Kind = "removed"
	Reformatted Kind = "reformatted" // new bytes, same canonical JSON: no feed entry
)

var kindOrder = []Kind{Added, Changed, Removed, Reformatted}

// Change is what happened to one tool's file.
type Change struct {
	Tool string
	File string
	Kind Kind
	// Class is compatible for an added tool, breaking for a removed one, the
	// diff's class for a changed one, and "" for a reformatted file.
	Class schemadiff.Class
	Diff  []schemadiff.Change // what changed, for Changed

	data []byte // the new content, except for Removed
}

// Report is the outcome of a sync.
type Report struct {
	Server   ServerInfo
	Dir      string
	Pages    int      // tools/list pages read
	Tools    []string // the tools the directory now holds files of, sorted
	Changes  []Change // by kind (Added, Changed, Removed, Reformatted), then tool
	Skipped  []error  // invalid tools left out (AllowInvalid)
	Warnings []*diag.Error
}

// Run lists the server's tools and brings the tool files in opt.Dir in
// line with them. The error, when the server or its tools fail, lists every
// problem (each a *diag.Error with a hint where one is known); then nothing
// has been written.
func Run(ctx context.Context, opt Options) (*Report, error) {
	if opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Timeout)
		defer cancel()
	}
	l, err := fetch(ctx, opt.Source, opt.Timeout)
	if err != nil {
		return nil, err
	}
	c, err := checkTools(l.tools, opt.Dir, opt.Source)
	if err != nil {
		return nil, err
	}
	if len(c.invalid) > 0 && !opt.AllowInvalid {
		return nil, errors.Join(c.invalid...)
	}
	owned, others, err := readDir(opt.Dir)
	if err != nil {
		return nil, diag.Errorf(opt.Dir, 0, "cannot read the tool directory: %v", diag.Cause(err))
	}
	// The server's name and version are its own words: a server that echoes
	// a credential there must not get it printed.
	server := ServerInfo{Name: opt.Source.redact(l.server.Name), Version: opt.Source.redact(l.server.Version)}
	r := &Report{Server: server, Dir: opt.Dir, Pages: l.pages, Skipped: c.invalid}
	r.Changes = compare(owned, c)
	if !opt.DryRun {
		if err := apply(opt.Dir, r.Changes); err != nil {
			return nil, err
		}
	}
	r.Tools = holds(owned, r.Changes)
	r.Warnings = slices.Concat(
		checkCard(server, opt.Server),
		duplicates(append(others, readElsewhere(opt.Site, opt.Server, opt.Dir)...), c.valid),
		unread(opt.Site, opt.Server, c.valid),
	)
	if len(l.tools) == 0 {
		r.Warnings = append(r.Warnings, diag.Errorf("", 0, "%s lists no tools", opt.Source))
	}
	return r, nil
}

// checked is a server's listing, split into the tools sync writes and the
// problems of the others.
type checked struct {
	valid   []toolFile // sorted by name
	invalid []error
	// kept names the invalid tools whose existing files stay: the server
	// still lists them.
	kept map[string]bool
}

// checkTools encodes every listed tool and checks it as build checks tool
// files. A name listed twice is an error whatever AllowInvalid says: which
// of the two would be the tool?
func checkTools(raws []json.RawMessage, dir string, src *Source) (*checked, error) {
	c := &checked{kept: map[string]bool{}}
	var ts []tools.Tool
	for i, raw := range raws {
		label := fmt.Sprintf("tools/list item %d", i+1)
		f, err := checkTool(label, raw, src)
		if err != nil {
			c.invalid = append(c.invalid, invalidTool(src, err))
			c.kept[nameOf(raw)] = true
			continue
		}
		f.path = filepath.Join(dir, fileName(f.tool.Name))
		c.valid = append(c.valid, f)
		ts = append(ts, f.tool)
	}
	if err := tools.CheckUnique(ts); err != nil {
		return nil, err
	}
	slices.SortFunc(c.valid, func(a, b toolFile) int { return strings.Compare(a.tool.Name, b.tool.Name) })
	if err := checkCaseUnique(c.valid); err != nil {
		return nil, err
	}
	return c, nil
}

// checkCaseUnique refuses tool names that differ only in letter case (Ok,
// ok): on macOS and Windows their files are one file, so one tool would
// overwrite the other in a checkout there. Like a name listed twice, it is
// an error whatever AllowInvalid says.
func checkCaseUnique(valid []toolFile) error {
	var problems []error
	first := map[string]string{}
	for _, f := range valid {
		folded := strings.ToLower(f.tool.Name)
		if other, ok := first[folded]; ok {
			problems = append(problems, diag.Errorf("", 0, "tools %q and %q differ only in letter case: their files %s and %s are one file on macOS and Windows", other, f.tool.Name, fileName(other), fileName(f.tool.Name)).
				WithHint("rename one of the tools on the server"))
			continue
		}
		first[folded] = f.tool.Name
	}
	return errors.Join(problems...)
}

// reservedNames are the device names Windows reserves, with any
// extension: a file named CON.json cannot be created there.
var reservedNames = regexp.MustCompile(`(?i)^(CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9])(\.|$)`)

func checkTool(label string, raw json.RawMessage, src *Source) (toolFile, error) {
	data, err := encode(raw)
	if err != nil {
		return toolFile{}, diag.Errorf(label, 0, "invalid JSON: %v", err)
	}
	t, err := tools.Parse(label, data)
	if err != nil {
		return toolFile{}, err
	}
	if reservedNames.MatchString(t.Name) {
		return toolFile{}, diag.Errorf(label, 0, "tool %s: %s is a name Windows reserves for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9, with any extension), so its file cannot be written there", t.Name, fileName(t.Name))
	}
	if src.leaks(data) {
		return toolFile{}, diag.Errorf(label, 0, "tool %s holds the value of a --header; it must not be written to a file", t.Name)
	}
	return toolFile{data: data, tool: t}, nil
}

// invalidTool is the error reported for a tool that cannot be written.
func invalidTool(src *Source, err error) error {
	return diag.Errorf("", 0, "%s", src.redact(err.Error())).
		WithHint("fix the tool on the server, or pass --allow-invalid to write the other tools")
}

// nameOf returns the name of a tool object that failed the checks, or "".
func nameOf(raw json.RawMessage) string {
	var t struct {
		Name any `json:"name"`
	}
	json.Unmarshal(raw, &t)
	name, _ := t.Name.(string)
	return name
}

// compare returns the changes that turn the owned files into the listing.
func compare(owned map[string]toolFile, c *checked) []Change {
	var changes []Change
	listed := map[string]bool{}
	for _, f := range c.valid {
		listed[f.tool.Name] = true
		old, ok := owned[f.tool.Name]
		ch := Change{Tool: f.tool.Name, File: f.path, data: f.data}
		switch {
		case !ok:
			ch.Kind, ch.Class = Added, schemadiff.Compatible
		case bytes.Equal(old.data, f.data):
			continue
		case bytes.Equal(old.tool.Canonical, f.tool.Canonical):
			ch.Kind = Reformatted
		default:
			d := schemadiff.Compare(old.tool.Object, f.tool.Object)
			ch.Kind, ch.Class, ch.Diff = Changed, d.Class, d.Changes
		}
		changes = append(changes, ch)
	}
	for name, old := range owned {
		if !listed[name] && !c.kept[name] {
			changes = append(changes, Change{Tool: name, File: old.path, Kind: Removed, Class: schemadiff.Breaking})
		}
	}
	slices.SortFunc(changes, func(a, b Change) int {
		return cmp.Or(slices.Index(kindOrder, a.Kind)-slices.Index(kindOrder, b.Kind), strings.Compare(a.Tool, b.Tool))
	})
	return changes
}

// apply writes and removes files as changes say.
func apply(dir string, changes []Change) error {
	if len(changes) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return diag.Errorf(dir, 0, "cannot create the tool directory: %v", diag.Cause(err))
	}
	for _, ch := range changes {
		if ch.Kind == Removed {
			if err := os.Remove(ch.File); err != nil {
				return diag.Errorf(ch.File, 0, "cannot remove the file of tool %s: %v", ch.Tool, diag.Cause(err))
			}
			continue
		}
		if err := writeFile(ch.File, ch.data); err != nil {
			return diag.Errorf(ch.File, 0, "cannot write the file of tool %s: %v", ch.Tool, err)
		}
	}
	return nil
}

// holds returns the tools whose files the directory holds after changes.
func holds(owned map[string]toolFile, changes []Change) []string {
	has := map[string]bool{}
	for name := range owned {
		has[name] = true
	}
	for _, ch := range changes {
		has[ch.Tool] = ch.Kind != Removed
	}
	var names []string
	for name, ok := range has {
		if ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// checkCard compares what the server says it is with the site's card for
// it: a card must describe the server that answers.
func checkCard(info ServerInfo, card *site.Server) []*diag.Error {
	if card == nil {
		return nil
	}
	var w []*diag.Error
	if info.Name != card.Name {
		w = append(w, diag.Errorf("", 0, "the server calls itself %q, but the site's card for it is %q", info.Name, card.Name))
	}
	if info.Version != card.Version {
		w = append(w, diag.Errorf("", 0, "the server reports version %q, but the site's card for %s says %q", info.Version, card.Name, card.Version))
	}
	return w
}

// duplicates warns about other files of the directory that declare a tool
// sync wrote: build would find the tool declared twice.
func duplicates(others []tools.Tool, written []toolFile) []*diag.Error {
	var w []*diag.Error
	seen := map[string]bool{}
	for _, o := range others {
		if seen[o.File] {
			continue
		}
		seen[o.File] = true
		for _, f := range written {
			if o.Name == f.tool.Name {
				w = append(w, diag.Errorf("", 0, "%s also declares tool %s, which sync writes to %s", o.File, o.Name, f.path).
					WithHint("remove one of them, or build will fail"))
			}
		}
	}
	return w
}

// readElsewhere returns the tools the server's glob reads from files other
// than the ones sync owns in dir (<name>.json there): with a glob such as
// tools/**/*.json, a subdirectory may declare a tool sync writes too.
func readElsewhere(cfg *site.Config, s *site.Server, dir string) []tools.Tool {
	if cfg == nil || s == nil || s.Tools == "" {
		return nil
	}
	root := globRoot(cfg, s)
	files, err := tools.Glob(root, s.Tools)
	if err != nil {
		return nil
	}
	absDir, _ := filepath.Abs(dir)
	var out []tools.Tool
	for _, rel := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		abs, _ := filepath.Abs(p)
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		t, err := tools.Parse(p, data)
		if err != nil || abs == filepath.Join(absDir, fileName(t.Name)) {
			continue // not a tool file, or the one sync writes
		}
		out = append(out, t)
	}
	return out
}

// unread warns when the server's tools glob does not read some of the
// files written: build would not publish those tools.
func unread(cfg *site.Config, s *site.Server, written []toolFile) []*diag.Error {
	if cfg == nil || s == nil || s.Tools == "" {
		return nil
	}
	root, err := filepath.Abs(globRoot(cfg, s))
	if err != nil {
		return nil
	}
	var missed []string
	for _, f := range written {
		abs, err := filepath.Abs(f.path)
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || !tools.Match(s.Tools, filepath.ToSlash(rel)) {
			missed = append(missed, f.path)
		}
	}
	if len(missed) == 0 {
		return nil
	}
	return []*diag.Error{diag.Errorf("", 0, "the tools glob %q of server %s does not read %s, so build will not publish %s",
		s.Tools, s.Name, strings.Join(missed, ", "), plural(len(missed), "this tool", "these tools"))}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
