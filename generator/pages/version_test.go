package pages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// A version gives back what it was made with, whatever the class and
// however long a text (a length of two bytes and more as a uvarint), and
// its time as it was, zone, fraction of a second and monotonic reading
// too, not only the whole seconds in UTC that it packs.
func TestVersionUnpacksWhatItWasMadeWith(t *testing.T) {
	long := strings.Repeat("a", 300)
	commit := Commit{Short: "abcdef0", URL: "https://github.com/o/r/commit/abcdef0123"}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600)
	}
	times := []time.Time{day(2), time.Unix(0, 0).UTC(), time.Unix(-1e10, 0).UTC(), day(2).Add(time.Nanosecond),
		day(2).In(paris), day(2).In(time.FixedZone("", 0)), time.Now(), {}}
	for _, class := range []string{"", "cosmetic", "compatible", "breaking", "unheard-of"} {
		for _, texts := range [][]string{nil, {"one"}, {long, "", "three"}} {
			for _, at := range times {
				v := newVersion("1.2.3", "1.2.2", at, "f/", class, commit, "v9", texts)
				u := v.unpack()
				if v.Class() != class || v.Commit() != commit || v.Release() != "v9" || !slices.Equal(v.Changes(), texts) ||
					v.Version() != "1.2.3" || u.from != "1.2.2" || v.Time() != at || v.SchemaPath() != "f/1.2.3.json" {
					t.Errorf("made with %q %q %v, got %q %+v %q %q %q %v", class, texts, at, v.Class(), v.Commit(), v.Release(), v.Changes(), u.from, v.Time())
				}
			}
		}
	}
	if v := newVersion("1.0.0", "", day(2), "f/", "", Commit{}, "", nil); v.run.times != nil {
		t.Error("a time in whole seconds in UTC is not packed")
	}
	var zero Version
	if zero.Version() != "" || zero.Time() != (time.Time{}) || zero.Class() != "" || zero.Changes() != nil || zero.Commit() != (Commit{}) || zero.Release() != "" {
		t.Error("a Version made without newVersion is not empty")
	}
}

// Versions made in one run, of one size, keep their own times and
// schemas when copied, as a tool's Versions and the model hold them:
// their run knows them by where each one's bytes lie, not by the address
// of a Version.
func TestVersionsOfARunKeepTheirOwnTimesAndSchemas(t *testing.T) {
	var mk versionMaker
	var versions []Version
	var times []time.Time
	var schemas []*SchemaChange
	for i := range 3 {
		at := day(2).Add(time.Duration(i) * time.Millisecond).In(time.FixedZone("", i*3600))
		v := mk.make(fmt.Sprintf("1.0.%d", i), "1.0.0", at, "f/", nil, "cosmetic", Commit{}, "", nil)
		c := schemaDiff([]byte(`{}`), fmt.Appendf(nil, `{"a":%d}`, i))
		v.setSchemas(c)
		versions, times, schemas = append(versions, v), append(times, at), append(schemas, c)
	}
	if err := mk.finish(); err != nil {
		t.Fatal(err)
	}
	if versions[0].run != versions[2].run || len(versions[0].packed()) != len(versions[2].packed()) {
		t.Fatal("the versions are not of one run and one size: the test is not the one meant")
	}
	for i, v := range slices.Clone(versions) {
		if v.Time() != times[i] || v.Schemas() != schemas[i] {
			t.Errorf("version %s: time %v and schemas %p, want %v and %p", v.Version(), v.Time(), v.Schemas(), times[i], schemas[i])
		}
	}
}

// A long history's changelog has an entry for about every version, each
// two pointers: a schema change's endpoint is its version's run's, held
// once for many, and another entry's is its otherChange's.
func TestChangeIsTwoPointers(t *testing.T) {
	if size, want := unsafe.Sizeof(Change{}), 2*unsafe.Sizeof(uintptr(0)); size != want {
		t.Errorf("a Change is %d bytes, want %d", size, want)
	}
}

// The cache keys a tool's page by its model's JSON (see Cache.frameOf): a
// version's JSON, as an element of its tool's Versions, holds what its
// methods return, as when they were fields.
func TestVersionJSONHoldsItsMethods(t *testing.T) {
	for at, wantTime := range map[time.Time]string{
		day(3): "2026-03-03T09:30:00Z",
		day(3).Add(5 * time.Millisecond).In(time.FixedZone("", 2*3600)): "2026-03-03T11:30:00.005+02:00",
	} {
		v := newVersion("2.0.0", "1.1.0", at, "p/", "breaking", Commit{Short: "1234567", URL: "https://x/1234567"}, "v2", []string{"a", "b"})
		got, err := json.Marshal(&Tool{Versions: []Version{v}})
		if err != nil {
			t.Fatal(err)
		}
		want := `"Versions":[{"Version":"2.0.0","Time":"` + wantTime + `","Class":"breaking","Changes":["a","b"],"SchemaPath":"p/2.0.0.json",` +
			`"Schemas":null,"Commit":{"Short":"1234567","URL":"https://x/1234567"},"Release":"v2"}]`
		if !strings.Contains(string(got), want) {
			t.Errorf("JSON\n%s\nwant it to hold\n%s", got, want)
		}
	}
}

// A site's own template reads a version's and a changelog entry's methods
// as it read them when they were fields.
func TestTemplatesReadVersionsAndChangesAsFields(t *testing.T) {
	tool := &Tool{Name: "get_forecast", server: &Server{Slug: "forecast"}}
	v := newVersion("2.0.0", "1.1.0", day(3), "p/", "breaking", Commit{Short: "1234567", URL: "https://x/c"}, "v2", []string{"a", "b"})
	tool.Versions = []Version{v}
	changes := []Change{withPage(Change{version: &tool.Versions[0]}, "com.example/forecast#get_forecast", nil, tool),
		withPage(otherEntry(nil, ChangeAnnouncement, "new", day(1), "get_forecast 1.0.0 published"), "com.example/forecast", &Server{Slug: "forecast"}, nil)}
	tmpl := template.Must(template.New("t").Parse(
		`{{range .Versions}}{{.Version}} {{.Time.Day}} {{.Class}} {{range .Changes}}{{.}};{{end}} {{.SchemaPath}} {{.Commit.Short}} {{.Commit.URL}} {{.Release}}{{end}}` +
			`{{range $.Changes}}|{{.Kind}} {{.Badge}} {{.Time.Day}} {{.Summary}} {{len .Changes}} {{.Path}}{{with .Tool}} {{.Name}}{{end}}{{with .Server}} {{.Slug}}{{end}}{{end}}`))
	var b bytes.Buffer
	if err := tmpl.Execute(&b, map[string]any{"Versions": tool.Versions, "Changes": changes}); err != nil {
		t.Fatal(err)
	}
	want := "2.0.0 3 breaking a;b; p/2.0.0.json 1234567 https://x/c v2" +
		"|schema-change breaking 3 get_forecast 1.1.0 → 2.0.0 2 servers/forecast/tools/get_forecast/ get_forecast" +
		"|announcement new 1 get_forecast 1.0.0 published 0 servers/forecast/ forecast"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
