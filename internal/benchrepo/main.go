// Command benchrepo writes a synthetic site repository for benchmarks: one
// site.toml with four servers and -tools tool files, then -commits commits
// that each change one tool the way real schemas change (optional
// parameters added, descriptions edited, parameters renamed or retyped,
// files reformatted). The history is generated deterministically and
// written with git fast-import, so a 10,000-commit repository takes seconds.
// With -site-last, site.toml arrives in the last commit instead of the
// first, as when wellknown is added to a repository with a long history.
// With -profile heavy, the same history is written as tool files of 2-3 KB
// (long descriptions, enums, a nested options object), as real servers'
// tools are; the default profile, light, writes files of about 0.7 KB.
//
//	go run ./internal/benchrepo -tools 200 -commits 10000 [-site-last] [-profile heavy] DIR
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

const servers = 4

func main() {
	tools := flag.Int("tools", 200, "number of tools")
	commits := flag.Int("commits", 10000, "number of commits")
	siteLast := flag.Bool("site-last", false, "add site.toml in the last commit instead of the first")
	profile := flag.String("profile", "light", "tool files of about 0.7 KB (light) or 2-3 KB (heavy)")
	flag.Parse()
	if flag.NArg() != 1 || *profile != "light" && *profile != "heavy" {
		fmt.Fprintln(os.Stderr, "usage: benchrepo [-tools N] [-commits N] [-site-last] [-profile light|heavy] DIR")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *tools, *commits, *siteLast, *profile == "heavy"); err != nil {
		fmt.Fprintln(os.Stderr, "benchrepo:", err)
		os.Exit(1)
	}
}

func run(dir string, nTools, nCommits int, siteLast, heavy bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := git(dir, "init", "-q", "-b", "main"); err != nil {
		return err
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	w := bufio.NewWriterSize(in, 1<<20)
	h := newHistory(nTools, heavy)
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < nCommits; i++ {
		var files map[string][]byte
		if i == 0 {
			files = h.all()
		} else {
			files = h.step()
		}
		if i == 0 && !siteLast || i == nCommits-1 && siteLast {
			files["site.toml"] = siteTOML()
		}
		writeCommit(w, i, when.Add(time.Duration(i)*time.Minute), files)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return err
	}
	return git(dir, "checkout", "-q", "-f", "main")
}

func writeCommit(w *bufio.Writer, i int, when time.Time, files map[string][]byte) {
	msg := fmt.Sprintf("change %d", i)
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n", when.Unix(), len(msg), msg)
	for _, path := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n", path, len(files[path]))
		w.Write(files[path])
		w.WriteString("\n")
	}
}

func siteTOML() []byte {
	s := "base_url = \"https://bench.example.com/\"\ntitle = \"Benchmark\"\n"
	for i := 0; i < servers; i++ {
		s += fmt.Sprintf("\n[[servers]]\nname = \"com.example.bench/server-%d\"\ndescription = \"Benchmark server %d.\"\nversion = \"1.0.0\"\ntools = \"tools/server-%d/*.json\"\n\n[[servers.remotes]]\ntype = \"streamable-http\"\nurl = \"https://bench.example.com/mcp/%d\"\n", i, i, i, i)
	}
	return []byte(s)
}

// history is the evolving state of every tool.
type history struct {
	rng   *rand.Rand
	tools []*tool
	heavy bool // tool files of 2-3 KB (see tool.heavyJSON)
}

type tool struct {
	server      int
	name        string
	description int
	params      []param
	compact     bool // written without indentation
}

type param struct {
	name     string
	typ      string
	required bool
}

func newHistory(n int, heavy bool) *history {
	h := &history{rng: rand.New(rand.NewPCG(1, 2)), heavy: heavy}
	for i := 0; i < n; i++ {
		h.tools = append(h.tools, &tool{
			server: i % servers,
			name:   fmt.Sprintf("tool_%03d", i),
			params: []param{{"query", "string", true}, {"limit", "integer", false}},
		})
	}
	return h
}

func (h *history) all() map[string][]byte {
	files := map[string][]byte{}
	for _, t := range h.tools {
		files[t.path()] = h.file(t)
	}
	return files
}

// step changes one tool and returns its new file.
func (h *history) step() map[string][]byte {
	t := h.tools[h.rng.IntN(len(h.tools))]
	switch p := h.rng.IntN(100); {
	case p < 40 && len(t.params) < 10:
		t.params = append(t.params, param{fmt.Sprintf("option_%d", h.rng.IntN(1000)), "string", false})
	case p < 40:
		t.params = t.params[:2] // optional parameters removed: breaking
	case p < 65:
		t.description++
	case p < 80:
		i := h.rng.IntN(len(t.params))
		t.params[i].name = fmt.Sprintf("%s_%d", t.params[i].name[:min(len(t.params[i].name), 6)], h.rng.IntN(100))
	case p < 90:
		i := h.rng.IntN(len(t.params))
		t.params[i].typ = map[string]string{"string": "integer", "integer": "string"}[t.params[i].typ]
	default:
		t.compact = !t.compact // reformatted: no feed entry
	}
	return map[string][]byte{t.path(): h.file(t)}
}

// file returns a tool's file in the history's profile. Both profiles draw
// the same random numbers, so their histories change the same tools the
// same way at the same commits.
func (h *history) file(t *tool) []byte {
	if h.heavy {
		return t.heavyJSON()
	}
	return t.json()
}

func (t *tool) path() string {
	return filepath.ToSlash(fmt.Sprintf("tools/server-%d/%s.json", t.server, t.name))
}

func (t *tool) json() []byte {
	props := map[string]any{}
	var required []string
	for _, p := range t.params {
		props[p.name] = map[string]any{"type": p.typ, "description": "The " + p.name + "."}
		if p.required {
			required = append(required, p.name)
		}
	}
	return t.encode(map[string]any{
		"name":        t.name,
		"description": fmt.Sprintf("Benchmark tool %s, revision %d.", t.name, t.description),
		"inputSchema": map[string]any{"type": "object", "properties": props, "required": required},
		"annotations": map[string]any{"readOnlyHint": true},
	})
}

// heavyJSON is json with what makes real tool files 2-3 KB: a paragraph
// of description, a longer description and an enum on each string
// parameter, and a nested options object with an output schema.
func (t *tool) heavyJSON() []byte {
	props := map[string]any{}
	var required []string
	for _, p := range t.params {
		prop := map[string]any{"type": p.typ, "description": "The " + p.name +
			" the tool works on; the server's default when left out."}
		if p.typ == "string" {
			prop["enum"] = []string{"fast", "exact", "fuzzy"}
		} else {
			prop["minimum"], prop["maximum"] = 0, 1000
		}
		props[p.name] = prop
		if p.required {
			required = append(required, p.name)
		}
	}
	props["options"] = map[string]any{
		"type":        "object",
		"description": "Options that change how results are gathered and returned.",
		"properties": map[string]any{
			"format":   map[string]any{"type": "string", "enum": []string{"json", "text", "markdown"}, "description": "The format of each result."},
			"timeout":  map[string]any{"type": "integer", "minimum": 1, "maximum": 600, "description": "Seconds to wait before giving up."},
			"language": map[string]any{"type": "string", "description": "A BCP 47 language tag for the results, such as en or fr-CA."},
		},
	}
	return t.encode(map[string]any{
		"name":  t.name,
		"title": "Benchmark " + t.name,
		"description": fmt.Sprintf("Benchmark tool %s, revision %d. It searches the benchmark server's index and returns "+
			"the matching records, newest first. Results are paginated: pass the cursor of the previous answer to read "+
			"the next page. The tool never changes anything on the server, and answers within the timeout or not at all.",
			t.name, t.description),
		"inputSchema": map[string]any{"type": "object", "properties": props, "required": required},
		"outputSchema": map[string]any{"type": "object", "properties": map[string]any{
			"results": map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{
				"id":    map[string]any{"type": "string", "description": "The record's identifier."},
				"score": map[string]any{"type": "number", "description": "How well the record matches, from 0 to 1."},
			}}},
			"cursor": map[string]any{"type": "string", "description": "Pass it back to read the next page; absent on the last."},
		}},
		"annotations": map[string]any{"readOnlyHint": true, "openWorldHint": false},
	})
}

// encode writes a tool file, indented unless the tool is compact.
func (t *tool) encode(obj map[string]any) []byte {
	if t.compact {
		data, _ := json.Marshal(obj)
		return data
	}
	data, _ := json.MarshalIndent(obj, "", "  ")
	return data
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %v: %s", args, err, out)
	}
	return nil
}
