package pages

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/generator/bundle"
)

// newSpool returns a spool in a directory of the test's, closed when the
// test ends.
func newSpool(t testing.TB) *bundle.Spool {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	s, err := bundle.NewSpool()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// checkWritten writes b and checks that every file of it reads back, and
// is written, as want holds it.
func checkWritten(t *testing.T, b *bundle.Bundle, want map[string][]byte) {
	t.Helper()
	root := t.TempDir()
	out := filepath.Join(root, "public")
	if _, err := b.WriteDir(out, bundle.WriteOptions{Root: root}); err != nil {
		t.Fatal(err)
	}
	for p, body := range want {
		f, ok := b.Get(p)
		if !ok {
			t.Errorf("%s: not in the bundle", p)
			continue
		}
		if got, err := f.Bytes(); err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s: %d bytes read back (%v), want the %d rendered", p, len(got), err, len(body))
		}
		if got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p[1:]))); err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s: %d bytes written (%v), want the %d rendered", p, len(got), err, len(body))
		}
	}
}

// largeSite is modelSite in a directory of its own whose templates make
// its home page and its server's page, the first two pages rendered, of
// about 16 MB each.
func largeSite(t *testing.T) *site.Config {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("Forecasts for every place, every day. ", 230)
	for _, name := range []string{"index", "server"} {
		tmpl := fmt.Sprintf(`{{define "main"}}{{range 2000}}<p>%s %s {{.}}</p>{{end}}{{end}}`, name, text)
		if err := os.WriteFile(filepath.Join(dir, "templates", name+".html"), []byte(tmpl), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := site.Parse(filepath.Join(dir, "site.toml"), modelSite, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// largePages are largeSite's large pages.
var largePages = []string{"/index.html", "/" + ServerPath(serverSlug) + "index.html"}

// Pages added to a bundle with a spool are rendered into it: two large
// pages, rendered at once, are never in memory whole (the rendering
// allocates less than one's size, its templates and chunks, where
// gathering each and making it one slice would allocate twice the size of
// both), and read back and
// are written exactly as rendered without a spool. A Cache that keeps the
// pages for another rendering still keeps their bytes.
func TestAddRendersLargePagesIntoTheSpool(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the two large pages render at once
	cfg := largeSite(t)
	input := func(c *Cache) BuildInput {
		return BuildInput{Config: cfg, Servers: []BuildServer{{Config: &cfg.Servers[0]}}, Timeline: &timeline.Timeline{},
			Key: ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey), Cache: c}
	}
	plain := bundle.New()
	if _, err := Add(plain, input(NewCacheOnce())); err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{}
	for _, f := range plain.Files() {
		want[f.Path] = f.Body
	}
	size := len(want[largePages[0]])
	if size < 16<<20 || len(want[largePages[1]]) < 16<<20 {
		t.Fatalf("large pages of %d and %d bytes, want 16 MB or more", size, len(want[largePages[1]]))
	}

	spooled := bundle.NewSpooled(newSpool(t))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Add(spooled, input(NewCacheOnce())); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(size) {
		t.Errorf("rendering two pages of %d bytes into a spool allocated %d", size, allocated)
	}
	for _, p := range largePages {
		if f, _ := spooled.Get(p); f == nil || f.Body != nil {
			t.Errorf("%s: kept in memory", p)
		}
	}
	if spooled.Len() != len(want) {
		t.Errorf("%d files, want %d", spooled.Len(), len(want))
	}
	checkWritten(t, spooled, want)

	c := NewCache()
	if _, err := Add(bundle.NewSpooled(newSpool(t)), input(c)); err != nil {
		t.Fatal(err)
	}
	for _, p := range largePages {
		if got := c.pages[p].body; !bytes.Equal(got, want[p]) {
			t.Errorf("%s: the cache keeps %d bytes, want the %d rendered", p, len(got), len(want[p]))
		}
	}
}

// Pages rendered into one spool at once, each one's chunks between the
// other's, read back and are written as rendered; a page smaller than
// bundle.SpoolFrom stays in memory, and one as large goes to the spool.
func TestPageBuffersShareASpool(t *testing.T) {
	s := newSpool(t)
	b := bundle.NewSpooled(s)
	pages := map[string]*pageBuffer{}
	want := map[string][]byte{}
	write := func(p string, text []byte) {
		t.Helper()
		if pages[p] == nil {
			pages[p] = &pageBuffer{spool: s}
		}
		if n, err := pages[p].Write(text); n != len(text) || err != nil {
			t.Fatalf("%s: Write of %d bytes = %d, %v", p, len(text), n, err)
		}
		want[p] = append(want[p], text...)
	}
	for i := range 3000 {
		write("/a.html", fmt.Appendf(nil, "<p>a %d %s</p>", i, strings.Repeat("a", i%997)))
		write("/b.html", fmt.Appendf(nil, "<p>b %d %s</p>", i, strings.Repeat("b", i%1009)))
	}
	write("/small.html", bytes.Repeat([]byte("s"), bundle.SpoolFrom-1))
	write("/threshold.html", bytes.Repeat([]byte("t"), bundle.SpoolFrom))
	for p, page := range pages {
		body, at, err := page.page()
		switch {
		case err != nil:
			t.Fatalf("%s: %v", p, err)
		case (at == nil) != (p == "/small.html"):
			t.Errorf("%s of %d bytes: spooled %v", p, page.size, at != nil)
		case at != nil:
			err = b.AddSpooled(p, at, "text/html")
		default:
			err = b.Add(p, body, "text/html")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	checkWritten(t, b, want)
}

// A build to disk keeps its versions' packed bytes in the spool, and
// renders from them the same pages as a build that holds them: each
// tool's page, the changelog's entries of theirs and of versions no page
// shows (a server whose slug another took), and commit links.
func TestSpooledVersionsChangeNoPage(t *testing.T) {
	input := func() BuildInput {
		cfg, tl, _, working := historyOfChanges(t)
		return BuildInput{Config: cfg, Servers: []BuildServer{{Config: &cfg.Servers[0], Tools: []tools.Tool{working}}},
			Timeline: tl, CommitRepos: map[string]string{cfg.Servers[0].Name: "https://github.com/example/weather"},
			Key: ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey), Cache: NewCacheOnce(),
			UseUpTimeline: true}
	}
	spool := newSpool(t)
	s, err := newModel(input(), spool).site(Content{})
	if err != nil {
		t.Fatal(err)
	}
	var versions []*Version
	for _, srv := range s.Servers {
		for _, tool := range srv.Tools {
			for i := range tool.Versions {
				versions = append(versions, &tool.Versions[i])
			}
		}
	}
	for _, c := range s.Changes {
		if c.version != nil {
			versions = append(versions, c.version)
		}
	}
	if len(versions) < 10 {
		t.Fatalf("%d versions: the history is not the one meant", len(versions))
	}
	for _, v := range versions {
		if v.run.spool != spool || v.run.packed != "" {
			t.Errorf("version %s is held in memory", v.Version())
		}
	}

	plain, spooled := bundle.New(), bundle.NewSpooled(newSpool(t))
	for _, b := range []*bundle.Bundle{plain, spooled} {
		if _, err := Add(b, input()); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]byte{}
	for _, f := range plain.Files() {
		want[f.Path] = f.Body
	}
	if !strings.Contains(string(want["/changelog/index.html"]), "legacy_forecast 1.0.0 → 1.1.0") ||
		!strings.Contains(string(want["/"+ToolPath(serverSlug, "get_forecast")+"index.html"]), "https://github.com/example/weather/commit/") {
		t.Fatal("the pages do not show the versions meant")
	}
	if spooled.Len() != len(want) {
		t.Errorf("%d files, want %d", spooled.Len(), len(want))
	}
	checkWritten(t, spooled, want)
	if err := spooled.Spool().ReadFailed(); err != nil {
		t.Fatal(err)
	}
}

// A version read back from the spool gives what it was made with, in a
// run's order and against it, in turn with another run's. The runs read
// back keep their bytes a while, as many at most as readBacks holds, and
// those let go are read back again; a version that cannot be read back
// gives nothing, and the spool keeps the error, on which the build fails.
func TestSpooledVersionsReadBack(t *testing.T) {
	spool := newSpool(t)
	mk := versionMaker{spool: spool}
	type made struct {
		v       Version
		version string
		at      time.Time
		texts   []string
		folder  string
	}
	var all []made
	paris := time.FixedZone("CEST", 2*3600)
	for i := range 20000 {
		version := fmt.Sprintf("1.%d.0", i)
		at := day(1 + i%20).Add(time.Duration(i) * time.Minute)
		if i%7 == 0 {
			at = at.In(paris)
		}
		texts := []string{strings.Repeat("t", i%50*13), fmt.Sprint("change ", i)}
		folder := strings.Clone("a/") // a string of its own, as the model makes each
		if i%1000 >= 900 {
			folder = fmt.Sprint(i/1000, "/")
		}
		v := mk.make(version, "1.0.0", at, folder, nil, classes[i%len(classes)], Commit{Short: fmt.Sprint(i)}, "", texts)
		all = append(all, made{v, version, at, texts, folder})
	}
	if err := mk.finish(); err != nil {
		t.Fatal(err)
	}
	runs := map[*versionRun]bool{}
	for i, m := range all {
		runs[m.v.run] = true
		if m.v.run.spool != spool || m.v.run.packed != "" {
			t.Fatal("a version is held in memory")
		}
		if i > 0 && m.v.run.folder == all[i-1].v.run.folder && unsafe.StringData(m.v.run.folder) != unsafe.StringData(all[i-1].v.run.folder) {
			t.Fatal("runs of one folder made one after another hold it each")
		}
	}
	if len(runs) <= len(mk.kept.runs) {
		t.Fatalf("%d runs: fewer than readBacks keeps", len(runs))
	}
	check := func(m made) {
		t.Helper()
		v := m.v
		if v.Version() != m.version || v.Time() != m.at || !slices.Equal(v.Changes(), m.texts) || v.SchemaPath() != m.folder+m.version+".json" {
			t.Fatalf("version %s at %v with %q read back as %s at %v with %q", m.version, m.at, m.texts, v.Version(), v.Time(), v.Changes())
		}
	}
	for i := range 100 {
		check(all[i])
		check(all[len(all)-1-i])
	}
	for _, m := range slices.Backward(all) {
		check(m)
	}
	for _, m := range all {
		check(m)
	}
	kept := 0
	for r := range runs {
		if r.read.Load() != nil {
			kept++
		}
	}
	if kept > len(mk.kept.runs) || kept == 0 {
		t.Errorf("%d runs keep their bytes read back, want at most %d", kept, len(mk.kept.runs))
	}
	if err := spool.ReadFailed(); err != nil {
		t.Fatal(err)
	}

	spool.Close()
	if v := all[3].v; v.run.read.Load() != nil || v.Version() != "" || v.Time() != (time.Time{}) || v.Changes() != nil {
		t.Errorf("a version not read back gives %s at %v with %q", v.Version(), v.Time(), v.Changes())
	}
	if spool.ReadFailed() == nil {
		t.Error("the spool keeps no error of a version not read back")
	}
}
