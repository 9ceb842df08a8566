package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/format/canonjson"
	"github.com/wellknown-dev/wellknown/format/gitlog"
	"github.com/wellknown-dev/wellknown/format/schemadiff"
	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// toolJSON is a tool file whose schema has the given properties.
func toolJSON(name, description string, properties ...string) string {
	props := ""
	for i, p := range properties {
		if i > 0 {
			props += ","
		}
		props += fmt.Sprintf("%q: {\"type\": \"string\"}", p)
	}
	return fmt.Sprintf(`{"name": %q, "description": %q, "inputSchema": {"type": "object", "properties": {%s}}}`, name, description, props)
}

// Every schema change of a replay carries the comparison of the version it
// leaves from with its own, whether it was made ahead (a tool changed in
// its file, also back to an earlier version) or during the replay (a tool
// moved to another file). A tool's latest version keeps its object, decoded
// again when its contents are an earlier version's.
func TestSchemaChangesCompareTheirTwoVersions(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\ntitle = \"T\"\n\n[[servers]]\nname = \"com.example/s\"\ndescription = \"S.\"\nversion = \"1.0.0\"\ntools = \"tools/*.json\"\n")
	steps := []struct{ path, content string }{
		{"tools/a.json", toolJSON("a", "A.", "x")},
		{"tools/a.json", toolJSON("a", "A.", "x", "y")},        // compatible
		{"tools/a.json", "\n" + toolJSON("a", "A.", "x", "y")}, // reformatted: no change
		{"tools/a.json", toolJSON("a", "A, again.", "x", "y")}, // cosmetic
		{"tools/a.json", toolJSON("a", "A.", "x", "y")},        // back to an earlier version
		{"tools/b.json", toolJSON("b", "B.", "x")},             // another tool
		{"tools/a.json", toolJSON("a", "A.", "y")},             // breaking
		{"tools/b.json", toolJSON("b", "B.")},                  // breaking
		{"tools/moved.json", toolJSON("a", "A.", "y", "z")},    // a second file declares a
		{"tools/moved.json", toolJSON("a", "A.", "y")},         // the contents of an earlier version
	}
	for i, s := range steps {
		g.Write(s.path, s.content)
		if s.path == "tools/moved.json" && i == 8 {
			g.Git("rm", "-q", "tools/a.json") // the move
		}
		g.Commit(fmt.Sprintf("step %d", i))
	}
	h, tl := readHistory(t, g.Dir)
	ahead := h.compareAhead(h.merged())
	if n := ahead.base + len(ahead.planned); n != 6 {
		t.Errorf("%d comparisons planned ahead, want 6 (the changes of a tool in its own file)", n)
	}
	ahead.stop()
	if ahead.last != nil || ahead.planned != nil || ahead.index != nil || ahead.plan.steps != nil || ahead.plan.last != nil {
		t.Error("the comparisons stopped still hold their versions or the steps")
	}
	changes := 0
	for _, th := range tl.Servers[0].Tools {
		for i, v := range th.Versions()[1:] {
			before, after := reparse(t, th.Versions()[i].Tool), reparse(t, v.Tool)
			if want := timeline.CompareObjects(before, after); !reflect.DeepEqual(*v.Change(), want) {
				t.Errorf("%s %s: change %+v, want %+v", th.Name, v.Version, *v.Change(), want)
			}
			changes++
		}
		if latest := th.Latest().Tool; !reflect.DeepEqual(latest.Object, reparse(t, latest).Object) {
			t.Errorf("%s: the latest version's object %v is not its canonical form's", th.Name, latest.Object)
		}
	}
	if changes != 7 {
		t.Errorf("%d schema changes, want 7", changes)
	}
}

// The comparisons made ahead look for references when both versions have
// one: a definition changed under a property that refers to it is a
// change of the property, also when the property's text did not change.
// They skip it when one version has none, as when the reference arrives.
func TestComparisonsFollowReferences(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\ntitle = \"T\"\n\n[[servers]]\nname = \"com.example/s\"\ndescription = \"S.\"\nversion = \"1.0.0\"\ntools = \"tools/*.json\"\n")
	schema := func(a, unit string) string {
		return `{"name": "t", "inputSchema": {"type": "object", "properties": {"a": ` + a + `, "b": {"type": "integer"}}, "$defs": {"unit": ` + unit + `}}}`
	}
	for i, content := range []string{
		schema(`{"type": "string"}`, `{"type": "string"}`),
		schema(`{"$ref": "#/$defs/unit"}`, `{"type": "string"}`),                 // the reference arrives
		schema(`{"$ref": "#/$defs/unit"}`, `{"type": "string", "maxLength": 5}`), // only its target changes
	} {
		g.Write("tools/t.json", content)
		g.Commit(fmt.Sprintf("step %d", i))
	}
	_, tl := readHistory(t, g.Dir)
	versions := tl.Servers[0].Tools[0].Versions()
	if len(versions) != 3 {
		t.Fatalf("%d versions, want 3", len(versions))
	}
	for i, v := range versions[1:] {
		want := timeline.CompareObjects(reparse(t, versions[i].Tool), reparse(t, v.Tool))
		if !reflect.DeepEqual(*v.Change(), want) {
			t.Errorf("version %s: change %+v, want %+v", v.Version, *v.Change(), want)
		}
	}
	if last := versions[2].Change(); last.Class != schemadiff.Breaking {
		t.Errorf("a maxLength set behind a reference is %q, want breaking: %+v", last.Class, last.Changes)
	}
}

// readHistory reads the history of the site in dir, and returns its
// reader with the timeline.
func readHistory(t *testing.T, dir string) (*historyReader, *timeline.Timeline) {
	t.Helper()
	cfg, err := site.Load(filepath.Join(dir, "site.toml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := &historyReader{cfg: cfg, in: Input{Config: cfg, Endpoint: cardEndpoint}, out: &Output{}}
	tl, err := h.read()
	if err != nil {
		t.Fatal(err)
	}
	return h, tl
}

func reparse(t *testing.T, tool tools.Tool) tools.Tool {
	t.Helper()
	parsed, err := tools.Parse(tool.File, tool.Canonical)
	if err != nil {
		t.Fatal(err)
	}
	return parsed
}

// A canonical form with a "$ref" member, anywhere, holds the text looked
// for; one without holds it only where a string ends in "$ref", which
// costs a walk and nothing else.
func TestHoldsRefs(t *testing.T) {
	for _, c := range []struct {
		canonical string
		want      bool
	}{
		{`{"$ref":"#/$defs/a"}`, true},
		{`{"inputSchema":{"properties":{"a":{"items":{"$ref":"#/$defs/a"}}}}}`, true},
		{`{"$defs":{"a":{"type":"string"}},"$refs":1,"x":"$ref-like"}`, false},
		{`{"description":"see $ref","type":"object"}`, true},
		{`{"type":"object"}`, false},
	} {
		if got := holdsRefs([]byte(c.canonical)); got != c.want {
			t.Errorf("holdsRefs(%s) = %v, want %v", c.canonical, got, c.want)
		}
	}
}

// While a worker still makes the comparison the replay asks for, compare
// makes the ones after it that no one has started, and returns the
// worker's once it is there.
func TestCompareMakesTheNextWhileAWorkerMakesItsOwn(t *testing.T) {
	c := &comparisons{index: map[[2]string]int{}, last: map[fileAt]decoded{}}
	c.cond = sync.NewCond(&c.mu)
	var want []schemadiff.Result
	for i := range 4 {
		before, err := tools.Parse("a.json", []byte(toolJSON("a", "A.", fmt.Sprint("p", i))))
		after, err2 := tools.Parse("a.json", []byte(toolJSON("a", "A.", fmt.Sprint("p", i), "q")))
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		c.index[[2]string{before.SHA256, after.SHA256}] = i
		c.planned = append(c.planned, &comparison{before: before, after: after, file: fileAt{0, fmt.Sprintf("tools/%d.json", i)}})
		want = append(want, timeline.CompareObjects(reparse(t, before), reparse(t, after)))
	}
	c.planned[0].claimed = true // a worker makes it
	first := c.planned[0]
	got := make(chan schemadiff.Result)
	go func() { got <- c.compare(first.before, first.after) }()
	made := func(i int) bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.planned[i].done
	}
	for deadline := time.Now().Add(time.Minute); !made(len(want) - 1); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("compare waited for the worker without making the comparisons after its own")
		}
	}
	for i := 1; i < len(want); i++ {
		if !reflect.DeepEqual(c.planned[i].result, want[i]) {
			t.Errorf("comparison %d made ahead = %+v, want %+v", i, c.planned[i].result, want[i])
		}
	}
	c.mu.Lock()
	c.planned[0].result, c.planned[0].done = want[0], true // the worker's
	c.cond.Broadcast()
	c.mu.Unlock()
	if r := <-got; !reflect.DeepEqual(r, want[0]) {
		t.Errorf("compare = %+v, want the worker's %+v", r, want[0])
	}
}

// A replay holds the comparisons of a window of steps ahead of it, not
// of the whole history, also after steps whose comparisons it did not
// ask for, and each it asks for, whether made by a worker, by itself, or
// again after a version came back, is the comparison of its two versions.
func TestComparisonsArePlannedAWindowAhead(t *testing.T) {
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\ntitle = \"T\"\n\n[[servers]]\nname = \"com.example/s\"\ndescription = \"S.\"\nversion = \"1.0.0\"\ntools = \"tools/*.json\"\n")
	for i := range 40 {
		// Two tools change in each commit; every tenth commit takes a
		// back to a version it had before.
		g.Write("tools/a.json", toolJSON("a", "A.", fmt.Sprint("p", i%10)))
		g.Write("tools/b.json", toolJSON("b", fmt.Sprint("B", i, ".")))
		g.Commit(fmt.Sprintf("step %d", i))
	}
	cfg, err := site.Load(filepath.Join(g.Dir, "site.toml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := &historyReader{cfg: cfg, in: Input{Config: cfg, Endpoint: cardEndpoint}, out: &Output{}}
	if _, err := h.read(); err != nil {
		t.Fatal(err)
	}
	defer func(w int) { compareWindow = w }(compareWindow)
	compareWindow = 3
	steps := h.merged()
	c := h.compareAhead(steps)
	defer c.stop()
	asked := 0
	last := map[string]tools.Tool{}
	for i, s := range steps {
		c.at(i)
		commit := h.commit(s)
		for _, ch := range commit.Changes {
			parsed, ok := h.repos[0].parsed.get(ch.Blob)
			if !ok {
				continue // site.toml
			}
			next := parsed.tool(h.forms)
			before, had := last[ch.Path]
			last[ch.Path] = next
			if !had || before.SHA256 == next.SHA256 || i < 20 {
				continue // the first steps' comparisons are never asked for
			}
			if _, planned := c.index[[2]string{before.SHA256, next.SHA256}]; !planned {
				t.Errorf("%s at %s: not planned when asked for", ch.Path, gitlog.Short(commit.Hash))
			}
			got := c.compare(before, next)
			asked++
			if want := timeline.CompareObjects(reparse(t, h.forms.decode(before)), reparse(t, h.forms.decode(next))); !reflect.DeepEqual(got, want) {
				t.Errorf("%s at %s: %+v, want %+v", ch.Path, gitlog.Short(commit.Hash), got, want)
			}
			c.mu.Lock()
			held, indexed := len(c.planned), len(c.index)
			c.mu.Unlock()
			// The window and the step that goes past it.
			if held > compareWindow+2 || indexed > held {
				t.Fatalf("%d comparisons held, %d indexed after %d asked, want at most a window of %d and a step's", held, indexed, asked, compareWindow)
			}
		}
	}
	if asked != 40 {
		t.Errorf("%d comparisons asked, want 40", asked)
	}
}

// The comparisons read the versions they decode into the buffers of
// versions let go of. Each is the comparison of its two versions all the
// same, also once its buffers were reused (it keeps none of their bytes),
// whatever a buffer held before (a version of another file, many times
// larger); no decoded version is in two places, and none is held in a
// buffer far larger than its form.
func TestComparisonsReuseTheBuffersOfVersionsLetGoOf(t *testing.T) {
	f := newForms(tempSpool(t))
	c := &comparisons{forms: f, index: map[[2]string]int{}, last: map[fileAt]decoded{}}
	c.cond = sync.NewCond(&c.mu)
	version := func(file, i int) tools.Tool {
		description := fmt.Sprint("Tool ", file, ".")
		if file == 0 {
			description = strings.Repeat("Long. ", 4<<10)
		}
		props := []string{"p"}
		for k := range i {
			props = append(props, fmt.Sprint("q", k))
		}
		path := fmt.Sprintf("tools/%d.json", file)
		return f.parse(path, []byte(toolJSON(fmt.Sprint("t", file), description, props...))).tool(f)
	}
	// Each file's versions one after another, the files' in turn: the
	// older version of most is the newer of the one before.
	for i := range 4 {
		for file := range 3 {
			before, after := version(file, i), version(file, i+1)
			c.index[[2]string{before.SHA256, after.SHA256}] = len(c.planned)
			c.planned = append(c.planned, &comparison{before: before, after: after, file: fileAt{0, before.File}})
		}
	}
	var got []schemadiff.Result
	for _, cmp := range c.planned {
		got = append(got, c.compare(cmp.before, cmp.after))
	}
	for i, cmp := range c.planned {
		if want := timeline.CompareObjects(f.decode(cmp.before), f.decode(cmp.after)); !reflect.DeepEqual(got[i], want) {
			t.Errorf("comparison %d of %s: %+v, want %+v", i, cmp.before.File, got[i], want)
		}
	}
	if err := f.failed(); err != nil {
		t.Fatal(err)
	}
	seen := map[*canonjson.Form]bool{}
	held := slices.Collect(maps.Values(c.last))
	for _, d := range append(held, c.spare...) {
		if seen[d.form] {
			t.Errorf("a decoded version is held twice")
		}
		seen[d.form] = true
		if cap(d.canonical) > 2*len(d.canonical)+minBuffer {
			t.Errorf("a version of %d bytes is held in a buffer of %d", len(d.canonical), cap(d.canonical))
		}
	}
	for _, d := range held {
		if sum := sha256.Sum256(d.canonical); hex.EncodeToString(sum[:]) != d.sha256 {
			t.Errorf("the last version of a file holds %.40q, not its form", d.canonical)
		}
	}
	if len(held) != 3 || len(c.spare) == 0 {
		t.Errorf("%d versions held, %d spare; want one for each of 3 files, and some spare", len(held), len(c.spare))
	}
}
