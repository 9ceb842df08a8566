package replay

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/wellknown-dev/wellknown/format/timeline"
	"github.com/wellknown-dev/wellknown/format/tools"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// A replay's events are the same whatever the window of comparisons
// planned ahead, with or without a spool, on a history whose tools change,
// go back to earlier versions, move between files and are removed and
// added again, with more workers than cores.
func TestEventsDoNotDependOnTheComparisonWindow(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(6))
	defer func(w int) { compareWindow = w }(compareWindow)
	g := gittest.New(t, t.TempDir())
	g.Write("site.toml", "base_url = \"https://example.com/\"\ntitle = \"T\"\n\n[[servers]]\nname = \"com.example/s\"\ndescription = \"S.\"\nversion = \"1.0.0\"\ntools = \"tools/*.json\"\n")
	r := rand.New(rand.NewPCG(3, 4))
	files := []string{"tools/a.json", "tools/b.json", "tools/c.json", "tools/d.json"}
	present := map[string]bool{}
	for i := range 80 {
		for range r.IntN(3) + 1 {
			f := files[r.IntN(len(files))]
			switch r.IntN(8) {
			case 0:
				if present[f] {
					g.Git("rm", "-q", "-f", f)
					present[f] = false
					continue
				}
			case 1:
				// Another tool's name: the tool moves files.
				g.Write(f, toolJSON(string(rune('a'+r.IntN(3))), "Moved.", fmt.Sprint("p", r.IntN(4))))
				present[f] = true
				continue
			}
			props := []string{}
			for p := range r.IntN(5) {
				props = append(props, fmt.Sprint("p", p+r.IntN(2)))
			}
			g.Write(f, toolJSON(f[6:7], fmt.Sprint("D", r.IntN(3), "."), props...))
			present[f] = true
		}
		g.Write("notes.txt", fmt.Sprint(i)) // never an empty commit
		g.Commit(fmt.Sprintf("step %d", i))
	}
	events := func(window int, spooled bool) []string {
		compareWindow = window
		in := Input{Config: load(t, g.Dir), Endpoint: cardEndpoint}
		if spooled {
			in.Spool = tempSpool(t)
		}
		out, err := readAndPlay(in)
		if err != nil {
			t.Fatal(err)
		}
		// Each version's change is the comparison of its two versions.
		for _, srv := range out.Timeline.Servers {
			for _, th := range srv.Tools {
				for k, v := range th.Versions()[1:] {
					if v.Change() == nil {
						continue
					}
					before, after := parseStored(t, th.Versions()[k].Tool), parseStored(t, v.Tool)
					if want := timeline.CompareObjects(before, after); !reflect.DeepEqual(*v.Change(), want) {
						t.Errorf("window %d, spool %v: %s %s: change %+v, want %+v", window, spooled, th.Name, v.Version, *v.Change(), want)
					}
				}
			}
		}
		var lines []string
		for e := range out.Timeline.Events() {
			payload, _ := json.Marshal(e.Payload())
			lines = append(lines, fmt.Sprintf("%s %s %s %s | %s | %s | %s", e.Commit[:7], e.Type, e.EndpointID, e.Key, e.Title(), e.Summary(), payload))
		}
		return lines
	}
	want := events(1<<20, false)
	t.Logf("%d events", len(want))
	for _, window := range []int{1, 2, 3, 7} {
		for _, spooled := range []bool{false, true} {
			got := events(window, spooled)
			if len(got) != len(want) {
				t.Fatalf("window %d, spool %v: %d events, want %d", window, spooled, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("window %d, spool %v: event %d\n%s\nwant\n%s", window, spooled, i, got[i], want[i])
				}
			}
		}
	}
}

// parseStored parses a version again from its canonical bytes, wherever
// they are kept.
func parseStored(t *testing.T, tool tools.Tool) tools.Tool {
	t.Helper()
	canonical, err := tool.ReadCanonical()
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := tools.Parse(tool.File, canonical)
	if err != nil {
		t.Fatal(err)
	}
	return parsed
}
