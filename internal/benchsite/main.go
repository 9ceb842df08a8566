// Command benchsite writes the same content twice, as a wellknown site and as
// a Hugo site, for comparing the two builds: -pages Markdown pages of about
// 460 words (three headings, a four-row table, a Go code block) in 20
// sections, and -tools tools with 2 to 10 parameters each, in 10 servers.
// The wellknown site is committed in one commit (its feed needs a history);
// Hugo gets each tool as a page with its parameters as a table, and minimal
// layouts of its own, so no theme is needed. The content is generated
// deterministically.
//
//	go run ./internal/benchsite -pages 2000 -tools 1000 DIR   # writes DIR/wellknown and DIR/hugo
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const (
	sections = 20
	servers  = 10
)

func main() {
	pages := flag.Int("pages", 2000, "number of Markdown pages")
	nTools := flag.Int("tools", 1000, "number of tools")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: benchsite [-pages N] [-tools N] DIR")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *pages, *nTools); err != nil {
		fmt.Fprintln(os.Stderr, "benchsite:", err)
		os.Exit(1)
	}
}

func run(dir string, nPages, nTools int) error {
	wk, hugo := filepath.Join(dir, "wellknown"), filepath.Join(dir, "hugo")
	rng := rand.New(rand.NewPCG(13, 2000))
	files := map[string]string{
		filepath.Join(wk, "site.toml"):                      wellknownConfig(),
		filepath.Join(hugo, "hugo.toml"):                    hugoConfig,
		filepath.Join(hugo, "layouts/_default/baseof.html"): hugoBaseof,
		filepath.Join(hugo, "layouts/_default/single.html"): hugoSingle,
		filepath.Join(hugo, "layouts/_default/list.html"):   hugoList,
		filepath.Join(hugo, "layouts/index.html"):           hugoList,
		filepath.Join(wk, "content/index.md"):               "# Benchmark\n\nA generated site.\n",
		filepath.Join(hugo, "content/_index.md"):            "---\ntitle: Benchmark\n---\nA generated site.\n",
	}
	for s := range sections {
		index := fmt.Sprintf("# Section %d\n\nPages of section %d.\n", s, s)
		files[filepath.Join(wk, fmt.Sprintf("content/pages/s%02d/index.md", s))] = index
		files[filepath.Join(hugo, fmt.Sprintf("content/s%02d/_index.md", s))] = hugoPage(index)
	}
	for i := range nPages {
		page := markdownPage(rng, i)
		files[filepath.Join(wk, fmt.Sprintf("content/pages/s%02d/page-%04d.md", i%sections, i))] = page
		files[filepath.Join(hugo, fmt.Sprintf("content/s%02d/page-%04d.md", i%sections, i))] = hugoPage(page)
	}
	for i := range nTools {
		t := newTool(rng, i)
		data, err := json.MarshalIndent(t, "", "  ")
		if err != nil {
			return err
		}
		files[filepath.Join(wk, fmt.Sprintf("tools/server-%d/%s.json", i%servers, t.Name))] = string(data) + "\n"
		files[filepath.Join(hugo, fmt.Sprintf("content/servers/server-%d/%s.md", i%servers, t.Name))] = t.markdown()
	}
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "the site"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=bench", "-c", "user.email=bench@example.com"}, args...)...)
		cmd.Dir, cmd.Stderr = wk, os.Stderr
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("git %s: %w", args[0], err)
		}
	}
	return nil
}

func wellknownConfig() string {
	s := "base_url = \"https://bench.example.com/\"\ntitle = \"Benchmark\"\n"
	for i := range servers {
		s += fmt.Sprintf("\n[[servers]]\nname = \"com.example.bench/server-%d\"\ndescription = \"Benchmark server %d.\"\nversion = \"1.0.0\"\ntools = \"tools/server-%d/*.json\"\n\n[[servers.remotes]]\ntype = \"streamable-http\"\nurl = \"https://bench.example.com/mcp/%d\"\n", i, i, i, i)
	}
	return s
}

var words = strings.Fields(`agent server tool schema request response token cache forecast alert
	region station value record field index query result error retry limit version change feed entry
	client transport stream session header payload signature key document card catalog parameter
	the a of to and in is that for with on as by it from at this be are or an which`)

// sentence returns n words, capitalised and ended with a full stop.
func sentence(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[rng.IntN(len(words))]
	}
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return strings.Join(w, " ") + "."
}

// paragraph returns about n words.
func paragraph(rng *rand.Rand, n int) string {
	var s []string
	for n > 0 {
		k := min(n, 8+rng.IntN(10))
		s = append(s, sentence(rng, k))
		n -= k
	}
	return strings.Join(s, " ")
}

// markdownPage is about 460 words: a title, three headings with two
// paragraphs each, a four-row table and a Go code block.
func markdownPage(rng *rand.Rand, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Page %d\n\n%s\n\n", i, paragraph(rng, 40))
	for h := range 3 {
		fmt.Fprintf(&b, "## Heading %d.%d\n\n%s\n\n%s\n\n", i, h, paragraph(rng, 60), paragraph(rng, 60))
	}
	b.WriteString("| name | type | default | description |\n|---|---|---|---|\n")
	for r := range 4 {
		fmt.Fprintf(&b, "| field_%d | string | `%d` | %s |\n", r, r, sentence(rng, 6))
	}
	fmt.Fprintf(&b, "\n```go\nfunc page%d(ctx context.Context, id string) (*Record, error) {\n\tr, err := store.Get(ctx, id)\n\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"page %d: %%w\", err)\n\t}\n\treturn r, nil\n}\n```\n\n%s\n", i, i, paragraph(rng, 40))
	return b.String()
}

// hugoPage turns a page's first heading into Hugo front matter.
func hugoPage(page string) string {
	title, body, _ := strings.Cut(strings.TrimPrefix(page, "# "), "\n")
	return fmt.Sprintf("---\ntitle: %q\n---\n%s", title, body)
}

type property struct {
	Type        string `json:"type"`
	Description string `json:"description"`
}

type schema struct {
	Type       string              `json:"type"`
	Properties map[string]property `json:"properties"`
	Required   []string            `json:"required"`
}

type tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema schema `json:"inputSchema"`
}

func newTool(rng *rand.Rand, i int) tool {
	t := tool{Name: fmt.Sprintf("tool_%04d", i), Description: sentence(rng, 12),
		InputSchema: schema{Type: "object", Properties: map[string]property{}}}
	for p := range 2 + rng.IntN(9) {
		name := fmt.Sprintf("param_%d", p)
		t.InputSchema.Properties[name] = property{Type: []string{"string", "integer", "boolean", "number"}[rng.IntN(4)], Description: sentence(rng, 8)}
		if p < 2 {
			t.InputSchema.Required = append(t.InputSchema.Required, name)
		}
	}
	return t
}

// markdown is the tool as a Hugo page: its description and a table of its
// parameters, as wellknown's tool page shows them.
func (t tool) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %q\n---\n%s\n\n| parameter | type | required | description |\n|---|---|---|---|\n", t.Name, t.Description)
	for p := range len(t.InputSchema.Properties) {
		name := fmt.Sprintf("param_%d", p)
		fmt.Fprintf(&b, "| %s | %s | %v | %s |\n", name, t.InputSchema.Properties[name].Type, p < 2, t.InputSchema.Properties[name].Description)
	}
	return b.String()
}

const hugoConfig = `baseURL = "https://bench.example.com/"
title = "Benchmark"
disableKinds = ["taxonomy", "term", "RSS", "sitemap"]
`

const hugoBaseof = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} · {{ site.Title }}</title></head>
<body><nav>{{ range site.Sections }}<a href="{{ .RelPermalink }}">{{ .Title }}</a> {{ end }}</nav>
<main>{{ block "main" . }}{{ end }}</main></body></html>
`

const hugoSingle = `{{ define "main" }}<h1>{{ .Title }}</h1>{{ .Content }}{{ end }}`

const hugoList = `{{ define "main" }}<h1>{{ .Title }}</h1>{{ .Content }}<ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}`
