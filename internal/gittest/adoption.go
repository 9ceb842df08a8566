package gittest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// AdoptionStory says how the adoption story is laid out.
type AdoptionStory struct {
	// SiteFirst commits site.toml with the first tool files instead of in
	// the last commit.
	SiteFirst bool
	// Separate keeps site.toml in its own repository, beside the server's,
	// naming it with repo = "../server".
	Separate bool
}

// Adoption is a built adoption story.
type Adoption struct {
	Server *Repo  // the server's repository
	Site   *Repo  // the site's: Server itself unless Separate
	Config string // the path of site.toml
}

// The story's dates: a commit every three days for a year and more.
var (
	AdoptionStart = time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)
	adoptionStep  = 72 * time.Hour
)

// AdoptionCommits is the number of commits of tool history in the story.
const AdoptionCommits = 125

// AdoptionToolsDir is where the server keeps its tool snapshots.
const AdoptionToolsDir = "pkg/github/__toolsnaps__"

// adoptionSite is the site.toml of the story; %s is what locates the tools.
const adoptionSite = `base_url = "https://tracker.example.com/"
title = "Tracker MCP"

[[servers]]
%s
version_tags = "v*"
tools = "pkg/github/__toolsnaps__/**/*.snap"
exclude = ["**/*_ff_*.snap"]

[[servers.remotes]]
type = "streamable-http"
url = "https://tracker.example.com/mcp"
`

// The server.json of the story: its version is stamped at release.
const adoptionServerJSON = `{
  "name": "io.github.acme/tracker",
  "description": "Issues, code and files of Acme's tracker.",
  "version": "${VERSION}"
}
`

// NewAdoption builds, with real git and fixed dates, the history of a server
// repository that wellknown is added to after more than a year: tools added,
// optional and required parameters, renames, retypes, a removal and a
// return, a move into a subdirectory, feature-flag variants that declare the
// same names (left out by exclude), a server.json whose version is a
// placeholder, and release tags (on commits that change no tool) that give
// the server its versions. The same story gives the same tool history
// whatever opt says.
func NewAdoption(t testing.TB, opt AdoptionStory) *Adoption {
	t.Helper()
	root := t.TempDir()
	a := &Adoption{Server: New(t, filepath.Join(root, "server"))}
	a.Site = a.Server
	locate := `import = "server.json"`
	if opt.Separate {
		a.Site = New(t, filepath.Join(root, "site"))
		locate = "name = \"io.github.acme/tracker\"\ndescription = \"Issues, code and files of Acme's tracker.\"\nrepo = \"../server\""
	}
	a.Config = filepath.Join(a.Site.Dir, "site.toml")
	site := fmt.Sprintf(adoptionSite, locate)

	s := newStory(a.Server)
	for i := range AdoptionCommits {
		s.g.When = AdoptionStart.Add(time.Duration(i)*adoptionStep - time.Hour)
		msg := s.step(i)
		if i == 0 {
			s.g.Write("server.json", adoptionServerJSON)
			if opt.SiteFirst && !opt.Separate {
				s.g.Write("site.toml", site)
			}
		}
		s.g.Commit(msg)
		if i%30 == 29 { // a release: the changelog, tagged
			release := fmt.Sprintf("v0.%d.0", i/30+1)
			s.g.Write("CHANGELOG.md", "Released "+release+".\n")
			s.g.Commit("release " + release)
			s.g.Git("tag", release)
		}
	}
	last := AdoptionStart.Add(AdoptionCommits*adoptionStep - time.Hour)
	if opt.Separate {
		a.Site.When = last
		a.Site.Write("site.toml", site)
		a.Site.Commit("wellknown site for the tracker server")
		return a
	}
	s.g.When = last
	if opt.SiteFirst {
		s.g.Write("README.md", "Tracker MCP server.\n")
		s.g.Commit("README")
	} else {
		s.g.Write("site.toml", site)
		s.g.Commit("publish the server with wellknown")
	}
	return a
}

// story is the evolving state of the server's tools.
type story struct {
	g     *Repo
	tools map[string]*storyTool // live tools by name
	files map[string]string     // tool name → its file, relative to the tools directory
	gone  map[string]*storyTool // removed tools, kept to bring them back
	order []string              // tool names in order of creation
	added int                   // tools added by the rotation
}

type storyTool struct {
	name, description string
	props             []storyProp
	required          []string
}

type storyProp struct{ name, typ string }

func newStory(g *Repo) *story {
	s := &story{g: g, tools: map[string]*storyTool{}, files: map[string]string{}, gone: map[string]*storyTool{}}
	for _, name := range []string{"get_me", "list_issues", "create_issue", "search_code", "get_file"} {
		s.add(name)
	}
	return s
}

func (s *story) add(name string) {
	s.tools[name] = &storyTool{name: name, description: "Tool " + name + ".", props: []storyProp{{"owner", "string"}}, required: []string{"owner"}}
	s.files[name] = name + ".snap"
	s.order = append(s.order, name)
	s.write(name)
}

func (s *story) write(name string) {
	s.g.Write(AdoptionToolsDir+"/"+s.files[name], s.tools[name].json())
}

// step makes the story's change number i and returns its commit message.
func (s *story) step(i int) string {
	switch i {
	case 0:
		return "initial tools"
	case 30:
		s.g.Write(AdoptionToolsDir+"/get_me_ff_newflag.snap", `{"name": "get_me", "description": "Me, behind a flag.", "inputSchema": {"type": "object"}}`)
		s.g.Write(AdoptionToolsDir+"/list_issues_ff_newflag.snap", `{"name": "list_issues", "description": "Issues, behind a flag.", "inputSchema": {"type": "object"}}`)
		return "feature-flag variants of get_me and list_issues"
	case 45:
		s.gone["search_code"] = s.tools["search_code"]
		delete(s.tools, "search_code")
		s.g.Git("rm", "-q", AdoptionToolsDir+"/"+s.files["search_code"])
		return "remove search_code"
	case 60:
		if err := os.MkdirAll(filepath.Join(s.g.Dir, AdoptionToolsDir, "repos"), 0o755); err != nil {
			s.g.t.Fatal(err)
		}
		s.g.Git("mv", AdoptionToolsDir+"/get_file.snap", AdoptionToolsDir+"/repos/get_file.snap")
		s.files["get_file"] = "repos/get_file.snap"
		return "move get_file into repos/"
	case 85:
		t := s.gone["search_code"]
		t.props = append(t.props, storyProp{"query", "string"})
		s.tools["search_code"] = t
		s.write("search_code")
		return "bring search_code back, with a query"
	case 100:
		s.g.Git("rm", "-q", AdoptionToolsDir+"/get_me_ff_newflag.snap", AdoptionToolsDir+"/list_issues_ff_newflag.snap")
		return "newflag is on for everyone: drop the variants"
	}
	live := slices.DeleteFunc(slices.Clone(s.order), func(n string) bool { return s.tools[n] == nil })
	name := live[(i/6)%len(live)]
	t := s.tools[name]
	var msg string
	switch i % 6 {
	case 0:
		s.added++
		name = fmt.Sprintf("tool_%02d", s.added)
		s.add(name)
		return "add " + name
	case 1:
		p := fmt.Sprintf("opt_%d", i)
		t.props = append(t.props, storyProp{p, "string"})
		msg = fmt.Sprintf("%s takes an optional %s", name, p)
	case 2:
		p := t.props[len(t.props)-1].name
		if slices.Contains(t.required, p) {
			p = fmt.Sprintf("req_%d", i)
			t.props = append(t.props, storyProp{p, "string"})
		}
		t.required = append(t.required, p)
		msg = fmt.Sprintf("%s requires %s", name, p)
	case 3:
		last := &t.props[len(t.props)-1]
		old := last.name
		last.name = fmt.Sprintf("renamed_%d", i)
		if k := slices.Index(t.required, old); k >= 0 {
			t.required[k] = last.name
		}
		msg = fmt.Sprintf("%s: %s is now %s", name, old, last.name)
	case 4:
		last := &t.props[len(t.props)-1]
		last.typ = map[string]string{"string": "integer", "integer": "string"}[last.typ]
		msg = fmt.Sprintf("%s: %s is now an %s", name, last.name, last.typ)
	case 5:
		t.description = fmt.Sprintf("Tool %s, as of change %d.", name, i)
		msg = "describe " + name
	}
	s.write(name)
	return msg
}

func (t *storyTool) json() string {
	props := map[string]any{}
	for _, p := range t.props {
		props[p.name] = map[string]any{"type": p.typ}
	}
	data, err := json.MarshalIndent(map[string]any{
		"name":        t.name,
		"description": t.description,
		"inputSchema": map[string]any{"type": "object", "properties": props, "required": t.required},
	}, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(data) + "\n"
}
