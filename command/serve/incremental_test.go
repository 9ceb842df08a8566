package serve

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/generator"
	"github.com/wellknown-dev/wellknown/internal/gittest"
	"github.com/wellknown-dev/wellknown/internal/prereq"
)

// A server reuses what did not change from one rebuild to the next, and
// serves, after every kind of change, exactly what a full build of the
// same inputs makes: the same files, bytes, content types and headers.
func TestIncrementalMatchesFullBuild(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		prereq.Missing(t, "git is not installed (apt-get install git)")
	}
	config := exampleSite(t)
	dir := filepath.Dir(config)
	about := filepath.Join(dir, "content", "pages", "about.md")
	connecting := filepath.Join(dir, "content", "pages", "connecting.md")
	tools := filepath.Join(dir, "content", "servers", "forecast", "tools")
	writeFile(t, about, "# About\n\nWho runs these servers.\n")
	// A directory of pages: its index lists the others by title.
	install := filepath.Join(dir, "content", "pages", "guides", "install.md")
	writeFile(t, filepath.Join(dir, "content", "pages", "guides", "index.md"), "# Guides\n\nHow to use the servers.\n")
	writeFile(t, install, "# Install\n\nGet a client.\n")
	templates := filepath.Join(dir, "templates")
	if err := os.Mkdir(templates, 0o755); err != nil { // watched from the start
		t.Fatal(err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	// Each commit an hour after the one before: commits with one committer
	// time would be one landing ("rebase and merge").
	when := gittest.FirstCommit
	commit := func(message string) {
		git(t, dir, "add", "-A")
		when = when.Add(time.Hour)
		if _, err := gittest.Run(dir, when, "commit", "-q", "-m", message); err != nil {
			t.Fatal(err)
		}
	}
	commit("first")
	h := serveSite(t, config, Options{})
	h.matchesFullBuild(config)
	dotgit := filepath.Join(dir, ".git")

	resumed := func(r generator.Reuse) error {
		if r.Replay || !r.ReplayResumed {
			return fmt.Errorf("reused %+v after a commit, want the replay resumed", r)
		}
		return nil
	}
	replayedWhole := func(r generator.Reuse) error {
		if r.Replay || r.ReplayResumed {
			return fmt.Errorf("reused %+v, want the whole history replayed", r)
		}
		return nil
	}
	// A Markdown edit that keeps the page's title keeps the last build
	// but for that page (see generator.Cache.Changed); anything else
	// builds the site again.
	kept := func(r generator.Reuse) error {
		if !r.Build || r.PagesRendered != 1 {
			return fmt.Errorf("reused %+v, want the last build kept and one page rendered", r)
		}
		return nil
	}
	built := func(r generator.Reuse) error {
		if r.Build {
			return fmt.Errorf("reused %+v, want the site built again", r)
		}
		return nil
	}
	steps := []struct {
		name   string
		change func()
		cause  string // a path the rebuild is caused by
		check  func(generator.Reuse) error
	}{
		// The first rebuild reads every input: the watch began after the
		// first build read them.
		{"Markdown edit", func() { appendFile(t, connecting, "\nOne more paragraph.\n") }, connecting,
			func(r generator.Reuse) error {
				if r.Build || !r.Replay || !r.Feed || r.ToolFiles != 0 || r.PagesRendered != 1 {
					return fmt.Errorf("reused %+v, want the site built again, the replay and the feed reused, no tool file parsed and one page rendered", r)
				}
				return nil
			}},
		// Its size and modification time kept, as rsync -t or touch -r
		// leave them: its status change time, or that it changed just
		// after it was read, tells (see inputfile.Files).
		{"Markdown edit keeping size and mtime", func() {
			info, err := os.Stat(connecting)
			if err != nil {
				t.Fatal(err)
			}
			editFile(t, connecting, "One more paragraph.", "One more Paragraph.")
			if err := os.Chtimes(connecting, info.ModTime(), info.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, connecting, kept},
		// An editor's swap file is no input, and a file outside the
		// watched inputs none either.
		{"Markdown edit beside a swap file", func() {
			writeFile(t, filepath.Join(dir, "content", "pages", ".connecting.md.swp"), "swap")
			appendFile(t, connecting, "\nEdited in vim.\n")
		}, connecting, kept},
		{"Markdown edit with a change outside the inputs", func() {
			writeFile(t, filepath.Join(dir, "NOTES.txt"), "not an input")
			appendFile(t, connecting, "\nEdited again.\n")
		}, connecting, kept},
		{"a listed page's text", func() { appendFile(t, install, "\nThen connect it.\n") }, install, kept},
		// Its title is on its directory's page.
		{"a listed page's title", func() { editFile(t, install, "# Install", "# Installing") }, install, built},
		{"Markdown title", func() { editFile(t, about, "# About", "# About us") }, about,
			func(r generator.Reuse) error {
				if r.Build || !r.Replay || r.PagesRendered < 5 {
					return fmt.Errorf("reused %+v, want the replay and every page rendered (the navigation changed)", r)
				}
				return nil
			}},
		{"Markdown edit after it", func() { appendFile(t, about, "\nAnd who pays for them.\n") }, about, kept},
		{"new page", func() { writeFile(t, filepath.Join(dir, "content", "pages", "faq.md"), "# FAQ\n\nAsk.\n") },
			filepath.Join(dir, "content", "pages", "faq.md"), built},
		{"page renamed", func() {
			if err := os.Rename(filepath.Join(dir, "content", "pages", "faq.md"), filepath.Join(dir, "content", "pages", "questions.md")); err != nil {
				t.Fatal(err)
			}
		}, filepath.Join(dir, "content", "pages", "questions.md"), built},
		{"page removed", func() {
			if err := os.Remove(filepath.Join(dir, "content", "pages", "questions.md")); err != nil {
				t.Fatal(err)
			}
		}, filepath.Join(dir, "content", "pages", "questions.md"), built},
		{"Markdown and tool edit at once", func() {
			appendFile(t, connecting, "\nWith a tool edit.\n")
			editFile(t, filepath.Join(tools, "get_forecast.json"), `"description": "`, `"description": "At once. `)
		}, tools, built},
		{"tool edit", func() {
			editFile(t, filepath.Join(tools, "get_forecast.json"), `"description": "`, `"description": "Edited. `)
		}, tools, func(r generator.Reuse) error {
			// Its page, its server's, the home page and the changelog.
			if !r.Replay || !r.Feed || r.ToolFiles != 1 || r.PagesRendered != 4 {
				return fmt.Errorf("reused %+v, want the replay and the feed, one tool file parsed and four pages rendered", r)
			}
			return nil
		}},
		{"new tool file", func() {
			writeFile(t, filepath.Join(tools, "get_tides.json"), `{"name": "get_tides", "description": "Tide times.", "inputSchema": {"type": "object"}}`)
		}, tools, nil},
		{"commit", func() { commit("second") }, dotgit, func(r generator.Reuse) error {
			// The pages of the two tools with new versions, their server's,
			// the home page and the changelog; not the Markdown pages.
			if r.Replay || !r.ReplayResumed || r.Feed || r.PagesRendered != 5 {
				return fmt.Errorf("reused %+v after a commit, want the replay resumed, a new feed, and five pages rendered", r)
			}
			return nil
		}},
		{"another commit", func() {
			editFile(t, filepath.Join(tools, "get_tides.json"), "Tide times.", "Tide times and heights.")
			commit("third")
		}, dotgit, resumed},
		{"checkout of an older commit", func() { git(t, dir, "checkout", "-q", "HEAD~2") }, dotgit, replayedWhole},
		// A remote, which the pages link commits to, changes the
		// repository's state though no ref moved.
		{"a remote added", func() { git(t, dir, "remote", "add", "origin", "https://github.com/example/weather.git") }, dotgit,
			func(r generator.Reuse) error {
				if r.Replay {
					return fmt.Errorf("reused %+v after a remote was added, want the replay not reused", r)
				}
				return nil
			}},
		{"Markdown edit after the remote", func() { appendFile(t, connecting, "\nAnd another.\n") }, connecting,
			func(r generator.Reuse) error {
				if !r.Replay || r.PagesRendered != 1 {
					return fmt.Errorf("reused %+v, want the replay reused and one page rendered", r)
				}
				return nil
			}},
		{"site.toml edit", func() { editFile(t, config, `title = "Example Weather Co."`, `title = "Example Weather Company"`) }, config,
			func(r generator.Reuse) error {
				if r.Replay || r.Feed {
					return fmt.Errorf("reused %+v after site.toml changed, want a new replay and feed", r)
				}
				return nil
			}},
		// A tool page of the site's own, which lists every tool: each tool
		// page then changes with any tool.
		{"a template of the site's own", func() {
			writeFile(t, filepath.Join(templates, "tool.html"), `{{define "main"}}<h1>{{.Tool.Name}}</h1>{{range .Site.Servers}}{{range .Tools}}<p>{{.Name}}: {{.Description}}</p>{{end}}{{end}}{{end}}`)
		}, templates, nil},
		{"tool edit under it", func() {
			editFile(t, filepath.Join(tools, "get_current_conditions.json"), `"description": "`, `"description": "Edited. `)
		}, tools, nil},
		// The default template back: the templates kept parsed since the
		// first build are not those.
		{"the site's template removed", func() {
			if err := os.Remove(filepath.Join(templates, "tool.html")); err != nil {
				t.Fatal(err)
			}
		}, templates, nil},
	}
	for _, step := range steps {
		t.Logf("step: %s", step.name)
		n := len(h.rebuilds())
		step.change()
		if b := h.awaitRebuild(n, step.cause); b.Err != nil {
			t.Fatalf("%s: rebuild failed: %v", step.name, b.Err)
		}
		h.matchesFullBuild(config)
		if t.Failed() {
			t.Fatalf("after the step %q the server does not serve what a full build makes", step.name)
		}
		if step.check != nil {
			if err := anyRebuild(h.rebuilds()[n:], step.check); err != nil {
				t.Errorf("%s: %v", step.name, err)
			}
		}
	}
}

// anyRebuild checks the reuse of the rebuilds a step caused: one of them
// must pass. A git command writes several files, so a rebuild may start
// before it has finished (the index written, HEAD not yet moved) and
// another follow; the one that saw the whole change is the one checked.
func anyRebuild(builds []Build, check func(generator.Reuse) error) error {
	var errs []error
	for _, b := range builds {
		if b.Err != nil {
			continue
		}
		err := check(b.Result.Reuse)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// matchesFullBuild compares what the server serves, once its rebuilds have
// settled, with a full build (without a cache) of the same inputs.
func (h *harness) matchesFullBuild(config string) {
	t := h.t
	t.Helper()
	opt := previewBuild(buildOptions(config))
	opt.Cache = nil
	var full *generator.Result
	eventually(t, "the served state to be a full build's", func() error {
		var err error
		if full, err = generator.Build(opt); err != nil {
			return err
		}
		st := h.srv.state.Load()
		if want := newState(nil, full, nil).version; st.version != want {
			return fmt.Errorf("version %s, a full build's is %s", st.version, want)
		}
		return nil
	})
	st := h.srv.state.Load()
	files := full.Bundle.Files()
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if served := slices.Sorted(maps.Keys(st.files)); !slices.Equal(served, paths) {
		t.Fatalf("the server has %d files, a full build %d:\n%s\nwant\n%s", len(served), len(paths), strings.Join(served, "\n"), strings.Join(paths, "\n"))
	}
	snippet := renderSnippet(st.version, nil)
	for _, f := range files {
		e := st.files[f.Path]
		if !bytes.Equal(e.file.Body, f.Body) || e.file.ContentType != f.ContentType || fmt.Sprint(e.file.Header) != fmt.Sprint(f.Header) {
			t.Errorf("%s differs from a full build's", f.Path)
		}
		if hostOnly[f.Path] {
			continue
		}
		resp, body := h.get(f.Path)
		want := f.Body
		if isHTML(f) {
			want = inject(f.Body, snippet)
		}
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want) {
			t.Errorf("GET %s: %s, %d bytes; want a full build's %d bytes", f.Path, resp.Status, len(body), len(want))
		}
		for k, v := range f.Header {
			if got := resp.Header.Values(k); !slices.Equal(got, v) {
				t.Errorf("GET %s: %s = %q, a full build's is %q", f.Path, k, got, v)
			}
		}
		if got := resp.Header.Get("ETag"); got != etagOf(want) {
			t.Errorf("GET %s: ETag %s, want %s", f.Path, got, etagOf(want))
		}
	}
}

// A page symlinked to a file outside content/, and the content directory
// symlinked to another, are read through their links: an edit to what a
// link leads to, down to a subdirectory of a linked directory, rebuilds
// the site as an edit under content/ does.
func TestIncrementalFollowsSymlinks(t *testing.T) {
	config := gitExampleSite(t)
	dir := filepath.Dir(config)
	content := filepath.Join(dir, "content")
	if err := os.Rename(content, filepath.Join(dir, "site-content")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("site-content", content); err != nil {
		t.Fatal(err)
	}
	linkedPage := filepath.Join(dir, "notes", "linked.md")
	writeFile(t, linkedPage, "# Linked\n\nKept outside content/.\n")
	if err := os.Symlink("../../notes/linked.md", filepath.Join(content, "pages", "linked.md")); err != nil {
		t.Fatal(err)
	}
	commitAll(t, dir)
	h := serveSite(t, config, Options{})
	h.matchesFullBuild(config)
	for edited, page := range map[string]string{
		linkedPage: "/linked/",
		filepath.Join(dir, "site-content", "pages", "connecting.md"): "/connecting/",
	} {
		n := len(h.rebuilds())
		appendFile(t, edited, "\nEdited through a link.\n")
		if b := h.awaitRebuild(n, edited); b.Err != nil {
			t.Fatalf("after an edit to %s: %v", filepath.Base(edited), b.Err)
		}
		h.awaitPage(page, "Edited through a link.")
		h.matchesFullBuild(config)
	}
}

// A new signing key in the key file re-signs the feed and scans every file
// for the new key again, though the bodies were found clean of the old
// one: a page that holds the new key, encoded, fails the rebuild, and once
// it is gone the server serves a full build's files, signed with the new
// key.
func TestIncrementalNewKey(t *testing.T) {
	config := gitExampleSite(t)
	dir := filepath.Dir(config)
	keyFile := filepath.Join(dir, "keys", "signing.key")
	editFile(t, config, `key_env = "WELLKNOWN_SIGNING_KEY"`, "key_env = \"WELLKNOWN_SIGNING_KEY\"\nkey_file = \"keys/signing.key\"")
	writeKey := func(seed []byte) {
		if err := os.WriteFile(keyFile, []byte(base64.RawURLEncoding.EncodeToString(seed)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Dir(keyFile), 0o700); err != nil {
		t.Fatal(err)
	}
	writeKey(testSeed)
	newSeed := bytes.Repeat([]byte{0x17}, ed25519.SeedSize)
	leak := filepath.Join(dir, "content", "pages", "notes.md")
	writeFile(t, leak, "# Notes\n\n"+base64.RawURLEncoding.EncodeToString(newSeed)+"\n")
	writeFile(t, filepath.Join(dir, ".gitignore"), "keys/\n")
	commitAll(t, dir)
	opt := generator.Options{ConfigPath: config, Getenv: func(string) string { return "" }} // the key from the file
	h := serveSite(t, config, Options{Build: opt})

	n := len(h.rebuilds())
	writeKey(newSeed)
	if b := h.awaitRebuild(n, keyFile); b.Err == nil || !strings.Contains(b.Err.Error(), "would be published in /notes/index.html") {
		t.Fatalf("after the key changed to one a page holds: error %v, want the page refused", b.Err)
	}
	n = len(h.rebuilds())
	if err := os.Remove(leak); err != nil {
		t.Fatal(err)
	}
	if b := h.awaitRebuild(n, leak); b.Err != nil {
		t.Fatalf("after the page was removed: %v", b.Err)
	}
	full := previewBuild(opt)
	full.Cache = nil
	res, err := generator.Build(full)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.Key.Private.Seed(), newSeed) {
		t.Fatal("the full build does not sign with the new key; the test no longer tests what it says")
	}
	if got, want := h.srv.state.Load().version, newState(nil, res, nil).version; got != want {
		t.Errorf("the server serves version %s, a full build with the new key %s", got, want)
	}
}

// gitExampleSite is exampleSite, for a test that needs git.
func gitExampleSite(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		prereq.Missing(t, "git is not installed (apt-get install git)")
	}
	return exampleSite(t)
}

// commitAll makes dir a git repository whose one commit holds all it has.
func commitAll(t *testing.T, dir string) {
	t.Helper()
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "first")
}

// A page that is a link to a link: retargeting the link in the middle
// changes the page, though neither the page's own path nor the file it
// led to changed.
func TestIncrementalFollowsSymlinkChains(t *testing.T) {
	config := gitExampleSite(t)
	dir := filepath.Dir(config)
	notes := filepath.Join(dir, "notes")
	writeFile(t, filepath.Join(notes, "first.md"), "# Chained\n\nThe first text.\n")
	writeFile(t, filepath.Join(notes, "second.md"), "# Chained\n\nThe second text.\n")
	middle := filepath.Join(notes, "middle.md")
	if err := os.Symlink("first.md", middle); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../notes/middle.md", filepath.Join(dir, "content", "pages", "chained.md")); err != nil {
		t.Fatal(err)
	}
	commitAll(t, dir)
	h := serveSite(t, config, Options{})
	h.awaitPage("/chained/", "The first text.")
	n := len(h.rebuilds())
	retarget := filepath.Join(notes, "middle.new")
	if err := os.Symlink("second.md", retarget); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(retarget, middle); err != nil {
		t.Fatal(err)
	}
	if b := h.awaitRebuild(n, middle); b.Err != nil {
		t.Fatalf("after retargeting the middle link: %v", b.Err)
	}
	h.awaitPage("/chained/", "The second text.")
	h.matchesFullBuild(config)
}

// A page whose file becomes a link, its title kept, is a full build (the
// file it leads to may be another page's too), and the watch list follows
// the link: an edit to what it leads to rebuilds the site.
func TestIncrementalPageBecomesSymlink(t *testing.T) {
	config := gitExampleSite(t)
	dir := filepath.Dir(config)
	commitAll(t, dir)
	page := filepath.Join(dir, "content", "pages", "connecting.md")
	target := filepath.Join(dir, "notes", "connecting.md")
	h := serveSite(t, config, Options{})
	n := len(h.rebuilds())
	appendFile(t, page, "\nA first edit, which reads every input.\n")
	h.awaitRebuild(n, page)
	text, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, target, string(text)+"\nKept elsewhere.\n")
	// Made outside the inputs and renamed over the page: the page's path
	// is the one change.
	link := filepath.Join(dir, "notes", "link")
	if err := os.Symlink("../../notes/connecting.md", link); err != nil {
		t.Fatal(err)
	}
	n = len(h.rebuilds())
	if err := os.Rename(link, page); err != nil {
		t.Fatal(err)
	}
	if b := h.awaitRebuild(n, page); b.Err != nil || b.Result.Reuse.Build {
		t.Fatalf("after the page became a link: %v, reuse %+v; want a full build", b.Err, b.Result.Reuse)
	}
	h.awaitPage("/connecting/", "Kept elsewhere.")
	n = len(h.rebuilds())
	appendFile(t, target, "\nEdited through the link.\n")
	if b := h.awaitRebuild(n, target); b.Err != nil {
		t.Fatalf("after an edit to the link's target: %v", b.Err)
	}
	h.awaitPage("/connecting/", "Edited through the link.")
	h.matchesFullBuild(config)
}

// A Markdown file that two pages read, through a symlink or a hard link
// (another page, the home page), is saved at one name: the pages that read
// it at the other change too, so the rebuild is not the last build with
// the one page of that name rendered again.
func TestIncrementalLinkedMarkdown(t *testing.T) {
	for _, tc := range []struct {
		name, link, path string
		hard             bool
	}{
		{"a page a symlink", "pages/alias.md", "/alias/", false},
		{"a page a hard link", "pages/alias.md", "/alias/", true},
		{"the home page a symlink", "index.md", "/", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := gitExampleSite(t)
			dir := filepath.Dir(config)
			page := filepath.Join(dir, "content", "pages", "connecting.md")
			link := filepath.Join(dir, "content", filepath.FromSlash(tc.link))
			os.Remove(link)
			err := os.Link(page, link)
			if !tc.hard {
				target, _ := filepath.Rel(filepath.Dir(link), page)
				err = errors.Join(os.Remove(link), os.Symlink(target, link))
			}
			if err != nil {
				t.Fatal(err)
			}
			commitAll(t, dir)
			h := serveSite(t, config, Options{})
			for _, edit := range []string{"A first edit, which reads every input.", "A second edit."} {
				n := len(h.rebuilds())
				appendFile(t, page, "\n"+edit+"\n")
				if b := h.awaitRebuild(n, page); b.Err != nil {
					t.Fatal(b.Err)
				}
				if got := h.page(tc.path); !strings.Contains(got, edit) {
					t.Errorf("%s, which reads the file through a link, does not show %q", tc.path, edit)
				}
			}
			h.matchesFullBuild(config)
		})
	}
}
