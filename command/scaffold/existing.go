package scaffold

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wellknown-dev/wellknown/format/gitlog"
)

// maxCandidate caps the size of a JSON file read to tell whether it is a
// tool: a tool definition is a few kilobytes.
const maxCandidate = 1 << 20

// FindTools lists the files under dir that hold an MCP tool (a JSON object
// with a name and an inputSchema object), slash-separated and relative to
// dir, sorted: those in the working tree and those in the first-parent
// history of HEAD of the git repository dir is in, where one was deleted
// since. A directory outside any repository, or one without commits, is
// searched in the working tree only.
func FindTools(dir string) ([]string, error) {
	found := map[string]bool{}
	if err := findInTree(dir, found); err != nil {
		return nil, err
	}
	if err := findInHistory(dir, found); err != nil {
		return nil, err
	}
	return slices.Sorted(func(yield func(string) bool) {
		for p, ok := range found {
			if ok && !yield(p) {
				return
			}
		}
	}), nil
}

// findInTree marks each JSON file of the working tree under dir: true when
// it holds a tool. Hidden directories (.git among them) and dependencies
// are not entered.
func findInTree(dir string, found map[string]bool) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // an unreadable corner holds no tool we could use
		case d.IsDir() && p != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "vendor"):
			return filepath.SkipDir
		case !d.Type().IsRegular() || !strings.EqualFold(path.Ext(d.Name()), ".json"):
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > maxCandidate {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		found[filepath.ToSlash(rel)] = isTool(data)
		return nil
	})
}

// findInHistory adds the JSON files under dir that history holds and the
// working tree does not, judged by their last content.
func findInHistory(dir string, found map[string]bool) error {
	repo, err := gitlog.Open(dir)
	if errors.Is(err, gitlog.ErrNotRepository) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := repo.Head(); errors.Is(err, gitlog.ErrNoCommits) {
		return nil
	}
	prefix, err := repo.Rel(dir)
	if err != nil {
		return err
	}
	last := map[string]string{} // path relative to dir → its newest blob
	err = repo.LogEach("HEAD", []string{":(glob,icase)" + path.Join(prefix, "**/*.json")}, func(c gitlog.Commit) error {
		for _, ch := range c.Changes {
			rel := strings.TrimPrefix(ch.Path, prefix+"/")
			if _, seen := last[rel]; !seen && ch.Blob != "" {
				if _, inTree := found[rel]; !inTree {
					last[rel] = ch.Blob.String()
				}
			}
		}
		return nil
	})
	if err != nil || len(last) == 0 {
		return err
	}
	return readBlobs(repo, last, found)
}

// readBlobs marks each path of blobs (path → blob id) that holds a tool.
func readBlobs(repo *gitlog.Repo, blobs map[string]string, found map[string]bool) error {
	b, err := repo.Blobs()
	if err != nil {
		return err
	}
	defer b.Close()
	byID := map[string][]string{}
	ids := make(chan string, len(blobs))
	for p, id := range blobs {
		if byID[id] == nil {
			ids <- id
		}
		byID[id] = append(byID[id], p)
	}
	close(ids)
	return b.ReadStream(ids, func(id string, data []byte) error {
		for _, p := range byID[id] {
			found[p] = len(data) <= maxCandidate && isTool(data)
		}
		return nil
	})
}

// isTool reports whether data is a JSON object with a name and an
// inputSchema object, as tools/list returns each tool.
func isTool(data []byte) bool {
	var t struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if json.Unmarshal(data, &t) != nil || t.Name == "" {
		return false
	}
	var schema map[string]any
	return json.Unmarshal(t.InputSchema, &schema) == nil && schema != nil
}

// ToolsGlob proposes the tools glob that matches the tool files found: the
// files' one directory with *.json, or their deepest common directory with
// **/*.json. Files elsewhere that match it are left for the user to
// exclude. With no file, it returns "".
func ToolsGlob(files []string) string {
	if len(files) == 0 {
		return ""
	}
	dirs := map[string]bool{}
	common := path.Dir(files[0])
	for _, f := range files {
		d := path.Dir(f)
		dirs[d] = true
		for common != "." && d != common && !strings.HasPrefix(d, common+"/") {
			common = path.Dir(common)
		}
	}
	name := "*.json"
	if len(dirs) > 1 {
		name = "**/*.json"
	}
	if common == "." {
		return name
	}
	return common + "/" + name
}

// MergeLines returns existing with the lines of wanted it lacks appended
// (blank lines and comments of wanted are not compared), and the lines
// added. Nothing of existing is changed or reordered.
func MergeLines(existing, wanted []byte) ([]byte, []string) {
	have := map[string]bool{}
	for _, l := range strings.Split(string(existing), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var added []string
	for _, l := range strings.Split(string(wanted), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") && !have[l] {
			added = append(added, l)
			have[l] = true
		}
	}
	if len(added) == 0 {
		return existing, nil
	}
	out := slices.Clone(existing)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, "\n# Added by wellknown init: the build output, the development key and\n# every signing key stay out of git.\n"...)
	out = append(out, strings.Join(added, "\n")+"\n"...)
	return out, added
}
