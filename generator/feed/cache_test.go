package feed

import (
	"bytes"
	"crypto/ed25519"
	"path/filepath"
	"testing"

	"github.com/wellknown-dev/wellknown/format/site"
	"github.com/wellknown-dev/wellknown/generator/bundle"
)

// A Cache adds the last feed's files again while the timeline, the config
// and the key are what they were, and signs anew when one of them changes;
// the files it adds are Add's.
func TestCacheReusesTheSameFeed(t *testing.T) {
	dir := t.TempDir()
	config := func(title string) *site.Config {
		cfg, err := site.Parse(filepath.Join(dir, "site.toml"), "base_url = \"https://weather.example.com/\"\ntitle = \""+title+"\"\n", nil)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	tl := announced(t)
	var c Cache
	for _, step := range []struct {
		name   string
		in     Input
		reused bool
	}{
		{"first build", Input{Config: config("Weather"), Timeline: tl, Key: key}, false},
		{"the same inputs", Input{Config: config("Weather"), Timeline: tl, Key: key}, true},
		{"another timeline", Input{Config: config("Weather"), Timeline: announced(t), Key: key}, false},
		{"another config", Input{Config: config("The weather"), Timeline: tl, Key: key}, false},
		{"another key", Input{Config: config("The weather"), Timeline: tl, Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, ed25519.SeedSize))}, false},
		{"the same again", Input{Config: config("The weather"), Timeline: tl, Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, ed25519.SeedSize))}, true},
	} {
		b := bundle.New()
		out, reused, err := c.Add(b, step.in)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if reused != step.reused {
			t.Errorf("%s: reused %v, want %v", step.name, reused, step.reused)
		}
		whole := bundle.New()
		want, err := add(whole, step.in)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Entries) != len(want.Entries) || out.Entries[0].ID != want.Entries[0].ID || b.Len() != whole.Len() {
			t.Fatalf("%s: %d entries, %d files; Add makes %d, %d", step.name, len(out.Entries), b.Len(), len(want.Entries), whole.Len())
		}
		for _, f := range whole.Files() {
			if got, ok := b.Get(f.Path); !ok || !bytes.Equal(got.Body, f.Body) || got.ContentType != f.ContentType {
				t.Errorf("%s: %s differs from Add's", step.name, f.Path)
			}
		}
	}
}
