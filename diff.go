package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/english"
	"github.com/wellknown-dev/wellknown/internal/inputfile"
)

// diffSummary is what diff --json prints.
type diffSummary struct {
	Old       string               `json:"old"` // a file, or REV:path
	New       string               `json:"new"`
	Tool      string               `json:"tool"`            // the tool's name in the new version
	Class     schemadiff.Class     `json:"class,omitempty"` // the most serious change; absent when nothing changed
	Breaking  bool                 `json:"breaking"`
	Changes   []diffChange         `json:"changes"`
	Migration schemadiff.Migration `json:"migration"`
	Errors    []jsonError          `json:"errors,omitempty"`
}

type diffChange struct {
	Pointer string           `json:"pointer"`
	Class   schemadiff.Class `json:"class"`
	Text    string           `json:"text"`
}

// diff compares two versions of one tool, as the feed classifies them, and
// exits 1 when the change is breaking: a check any CI can run on a tool
// file. A file it cannot read or parse exits 2, as a usage error does, so
// that "breaking" is never confused with "not compared".
func (c *cli) diff(args []string) int {
	fs := c.newFlags("diff", "[--json] OLD NEW | --rev A..B FILE")
	rev := fs.String("rev", "", "compare FILE at two revisions of its git repository, A..B (B defaults to HEAD)")
	asJSON := fs.Bool("json", false, "print the changes as JSON")
	if code, done := c.parse(fs, args); done {
		return code
	}
	var old, new versionRef
	switch {
	case *rev != "" && fs.NArg() == 1:
		a, b, ok := strings.Cut(*rev, "..")
		if !ok || a == "" || strings.HasPrefix(b, ".") {
			c.errorf("--rev %q is not A..B", *rev)
			c.hintf("name two revisions, e.g. --rev origin/main..HEAD (B defaults to HEAD: --rev v1.2.0..)")
			return 2
		}
		old, new = versionRef{file: fs.Arg(0), rev: a}, versionRef{file: fs.Arg(0), rev: b}
		if b == "" {
			new.rev = "HEAD"
		}
	case *rev == "" && fs.NArg() == 2:
		old, new = versionRef{file: fs.Arg(0)}, versionRef{file: fs.Arg(1)}
	default:
		c.errorf("diff takes two tool files, or one with --rev A..B (got %s)", english.Count(fs.NArg(), "argument"))
		c.hintf("wellknown diff old.json new.json, or wellknown diff --rev origin/main..HEAD tools/get_forecast.json")
		return 2
	}
	before, after, err := readVersions(old, new)
	if err != nil {
		if *asJSON {
			c.printJSON(diffSummary{Old: old.String(), New: new.String(), Changes: []diffChange{}, Errors: jsonErrors(err)})
		}
		c.fail(err)
		return 2
	}
	res := schemadiff.Compare(before.Object, after.Object)
	if *asJSON {
		c.printJSON(summarizeDiff(old, new, after.Name, res))
	} else {
		c.printDiff(after.Name, res)
	}
	if res.Class == schemadiff.Breaking {
		return 1
	}
	return 0
}

// versionRef names one version of a tool: a file, or a file at a revision.
type versionRef struct{ file, rev string }

func (v versionRef) String() string {
	if v.rev == "" {
		return v.file
	}
	return v.rev + ":" + filepath.ToSlash(v.file)
}

// readVersions reads and parses both versions, within the limits of a tool
// file of a build.
func readVersions(old, new versionRef) (before, after tools.Tool, err error) {
	if old.rev == "" {
		before, err = readToolFile(old.file)
		if err == nil {
			after, err = readToolFile(new.file)
		}
		return before, after, err
	}
	repo, path, err := openRepoOf(old.file)
	if err != nil {
		return before, after, err
	}
	if before, err = readToolAt(repo, old.rev, path, old); err == nil {
		after, err = readToolAt(repo, new.rev, path, new)
	}
	return before, after, err
}

// readToolFile reads and parses a tool file of the working tree.
func readToolFile(name string) (tools.Tool, error) {
	data, err := inputfile.ReadFile("", name, tools.MaxFileBytes)
	if err != nil {
		return tools.Tool{}, diag.Errorf(name, 0, "%v", diag.Cause(err))
	}
	return tools.Parse(name, data)
}

// openRepoOf opens the git repository holding file and returns file's
// path in it, slash-separated, as git names it in a revision.
func openRepoOf(file string) (*gitlog.Repo, string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, "", err
	}
	// The file may be gone from the working tree (deleted since A); its
	// directory, with symlinks resolved as git resolves the top level,
	// places it.
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return nil, "", diag.Errorf(file, 0, "%v", diag.Cause(err))
	}
	repo, err := gitlog.Open(dir)
	if err != nil {
		return nil, "", diag.Errorf(file, 0, "%v", err).WithHint("--rev reads the file from the git repository that holds it")
	}
	rel, err := filepath.Rel(repo.Root(), filepath.Join(dir, filepath.Base(abs)))
	if err != nil {
		return nil, "", err
	}
	return repo, filepath.ToSlash(rel), nil
}

// readToolAt reads and parses the tool file at path as it is at rev; ref
// names it in errors.
func readToolAt(repo *gitlog.Repo, rev, path string, ref versionRef) (tools.Tool, error) {
	commit, err := repo.Resolve(rev)
	if err != nil {
		return tools.Tool{}, err
	}
	if commit == "" {
		return tools.Tool{}, diag.Errorf("", 0, "--rev: %s is not a commit of the repository of %s", rev, ref.file).
			WithHint("name a branch, tag or commit; a branch of the remote may need fetching first (git fetch origin)")
	}
	data, err := repo.ReadBlob(commit+":"+path, tools.MaxFileBytes)
	var oversized *gitlog.BlobTooLarge
	switch {
	case errors.Is(err, gitlog.ErrMissing):
		return tools.Tool{}, diag.Errorf(ref.String(), 0, "no such file at %s (%s)", rev, gitlog.Short(commit)).
			WithHint("a tool file added or removed between the revisions is a new or removed tool: there is no other version to compare")
	case errors.As(err, &oversized):
		return tools.Tool{}, tools.Oversized(ref.String(), oversized.Size)
	case err != nil:
		return tools.Tool{}, diag.Errorf(ref.String(), 0, "%v", err)
	}
	return tools.Parse(ref.String(), data)
}

// printDiff prints the changes, the most serious first, one a line: class,
// JSON Pointer, text.
func (c *cli) printDiff(name string, res schemadiff.Result) {
	if len(res.Changes) == 0 {
		fmt.Fprintf(c.stdout, "%s: no change\n", name)
		return
	}
	fmt.Fprintf(c.stdout, "%s: %s (%s)\n", name, res.Class, english.Count(len(res.Changes), "change"))
	width := 0
	for _, ch := range res.Changes {
		width = max(width, len(ch.Pointer))
	}
	for _, ch := range res.MostSeriousFirst() {
		fmt.Fprintf(c.stdout, "  %-10s  %-*s  %s\n", ch.Class, width, ch.Pointer, ch.Text)
	}
}

func summarizeDiff(old, new versionRef, name string, res schemadiff.Result) diffSummary {
	s := diffSummary{Old: old.String(), New: new.String(), Tool: name, Class: res.Class,
		Breaking: res.Class == schemadiff.Breaking, Changes: []diffChange{}, Migration: res.Migration}
	for _, ch := range res.MostSeriousFirst() {
		s.Changes = append(s.Changes, diffChange(ch))
	}
	return s
}
