package generator

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/wellknown/format/agentfeed"
	"github.com/wellknown-dev/wellknown/format/paths"
	"github.com/wellknown-dev/wellknown/internal/diag"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// toolsRepo commits the fixture site with pageSize feed entries a page, and
// then one tool per commit for i from 1 to n: tool(i) is its file, and ""
// commits a note instead, so later commits keep their times. The feed's
// first entry announces the server.
func toolsRepo(t *testing.T, pageSize, n int, tool func(i int) string) (*gittest.Repo, string) {
	t.Helper()
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", strings.Replace(fixtureSite, "%s", "1.0.0", 1)+fmt.Sprintf("\n[feed]\npage_size = %d\n", pageSize))
	for i := 1; i <= n; i++ {
		if body := tool(i); body != "" {
			g.Write(fmt.Sprintf("tools/tool_%02d.json", i), body)
		} else {
			g.Write(fmt.Sprintf("notes/%02d.txt", i), "no tool")
		}
		g.Commit(fmt.Sprintf("tool %d", i))
	}
	return g, filepath.Join(g.Dir, "site.toml")
}

func plainTool(i int) string {
	return fmt.Sprintf(`{"name": "tool_%02d", "description": "Tool %d.", "inputSchema": {"type": "object"}}`, i, i)
}

// feedDocuments returns the subscription document and the archive
// documents of a build, by path.
func feedDocuments(res *Result) map[string][]byte {
	docs := map[string][]byte{}
	for _, f := range res.Bundle.Files() {
		if f.Path == paths.Feed || strings.HasPrefix(f.Path, paths.FeedArchives) {
			docs[f.Path] = f.Body
		}
	}
	return docs
}

func decodeDoc(t *testing.T, data []byte) *agentfeed.Feed {
	t.Helper()
	f, err := agentfeed.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A full archive keeps its bytes as the history grows; the subscription
// document keeps the newest partial page and links to the newest archive.
func TestFeedArchivesImmutable(t *testing.T) {
	g, config := toolsRepo(t, 5, 10, plainTool)
	before := feedDocuments(build(t, config))
	if len(before) != 3 {
		t.Fatalf("11 entries five a page: %d documents, want the feed and 2 archives", len(before))
	}
	for i := 11; i <= 22; i++ {
		g.Write(fmt.Sprintf("tools/tool_%02d.json", i), plainTool(i))
		g.Commit(fmt.Sprintf("tool %d", i))
	}
	res := build(t, config)
	after := feedDocuments(res)
	for n := 1; n <= 2; n++ {
		p := paths.FeedArchive(n)
		if string(after[p]) != string(before[p]) {
			t.Errorf("%s changed as the history grew", p)
		}
	}
	if len(after) != 5 {
		t.Fatalf("23 entries five a page: %d documents, want the feed and 4 archives", len(after))
	}
	if index := mustGet(t, res, "/index.html"); strings.Contains(string(index), paths.FeedArchives) {
		t.Error("the home page lists the feed's archives; the feed links to them")
	}
	sub := decodeDoc(t, after[paths.Feed])
	if len(sub.Entries) != 3 || sub.PrevArchive != res.Config.URL(paths.FeedArchive(4)) || sub.Archive {
		t.Errorf("subscription document: %d entries, prev-archive %q, archive %v; want 3, archive 4, false", len(sub.Entries), sub.PrevArchive, sub.Archive)
	}
	var ids []string
	for n := 1; n <= 4; n++ {
		a := decodeDoc(t, after[paths.FeedArchive(n)])
		if !a.Archive || len(a.Entries) != 5 || a.Current != res.Config.URL(paths.Feed) {
			t.Errorf("archive %d: archive %v, %d entries, current %q", n, a.Archive, len(a.Entries), a.Current)
		}
		for _, e := range a.Entries {
			ids = append(ids, e.ID)
		}
	}
	for _, e := range sub.Entries {
		ids = append(ids, e.ID)
	}
	var want []string
	for _, e := range res.Entries {
		want = append(want, e.ID)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("the archives and the feed, in order, hold %v; want the history %v", ids, want)
	}
}

// publish writes a build's feed documents under dir as a host would serve
// them, and returns the feed's file.
func publish(t *testing.T, res *Result, dir string) string {
	t.Helper()
	for p, body := range feedDocuments(res) {
		name := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, filepath.FromSlash(paths.Feed))
}

// The variants of a published history of 23 entries, five a page, and the
// guard's verdict on each: "" passes.
var archivedHistories = []struct {
	name            string
	pageSize, tools int
	tool            func(i int) string
	want            string
}{
	{"grown", 5, 24, plainTool, ""},
	{"entries moved between archives", 7, 22, plainTool, ""},
	{"an archived entry changed", 5, 22, func(i int) string {
		if i == 2 {
			return strings.Replace(plainTool(i), "Tool 2.", "Tool two.", 1)
		}
		return plainTool(i)
	}, "(endpoint-announcement: tool_02 1.0.0 on com.example.weather/forecast) would change its payload"},
	{"an archived entry vanished", 5, 22, func(i int) string {
		if i == 3 {
			return ""
		}
		return plainTool(i)
	}, "(endpoint-announcement: tool_03 1.0.0 on com.example.weather/forecast) would disappear"},
}

// --previous FILE reads the archives beside the file: an entry that moved
// between archives passes, one that changed or vanished in an archive does
// not. Without the archives beside it, only the file is compared.
func TestAppendOnlyAcrossArchives(t *testing.T) {
	_, config := toolsRepo(t, 5, 22, plainTool)
	published := publish(t, build(t, config), t.TempDir())
	for _, h := range archivedHistories {
		t.Run(h.name, func(t *testing.T) {
			_, config := toolsRepo(t, h.pageSize, h.tools, h.tool)
			res, err := Build(Options{ConfigPath: config, Getenv: testEnv, Previous: published})
			checkGuard(t, res, err, h.want)
		})
	}

	alone := filepath.Join(t.TempDir(), "agent-feed.xml")
	copyFile(t, published, alone)
	_, config = toolsRepo(t, 5, 22, plainTool)
	res, err := Build(Options{ConfigPath: config, Getenv: testEnv, Previous: alone})
	if err != nil {
		t.Fatalf("a feed file without its archives: %v", err)
	}
	if !slices.ContainsFunc(res.Warnings, func(w *diag.Error) bool {
		return strings.Contains(w.Msg, "is not beside it; compared with this file only")
	}) {
		t.Errorf("a feed file without its archives: warnings %q", res.Warnings)
	}
}

// --previous URL follows the live chain of archives.
func TestAppendOnlyAcrossArchivesOverHTTP(t *testing.T) {
	var docs map[string][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()
	base := "base_url=" + srv.URL + "/"
	_, config := toolsRepo(t, 5, 22, plainTool)
	docs = feedDocuments(build(t, config, base))
	for _, h := range archivedHistories {
		t.Run(h.name, func(t *testing.T) {
			_, config := toolsRepo(t, h.pageSize, h.tools, h.tool)
			res, err := Build(Options{ConfigPath: config, Overrides: []string{base}, Getenv: testEnv, Previous: srv.URL + paths.Feed})
			checkGuard(t, res, err, h.want)
		})
	}
	delete(docs, paths.FeedArchive(2))
	_, err := Build(Options{ConfigPath: config, Overrides: []string{base}, Getenv: testEnv, Previous: srv.URL + paths.Feed})
	if err == nil || !strings.Contains(err.Error(), "prev-archive "+srv.URL+paths.FeedArchive(2)+" is missing") {
		t.Errorf("a broken chain: %v", err)
	}
}

// checkGuard checks the append-only guard's verdict: no error and no
// warning when want is "", else exactly one error, containing want.
func checkGuard(t *testing.T, res *Result, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("guard: %v", err)
	case want == "" && len(res.Warnings) > 0:
		t.Errorf("warnings %q", res.Warnings)
	case want != "" && (len(diag.List(err)) != 1 || !strings.Contains(err.Error(), want)):
		t.Errorf("guard = %v, want an error containing %q", err, want)
	}
}
