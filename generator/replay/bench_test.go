package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// BenchmarkCommitBenchRepo replays the history of internal/benchrepo's
// repository (200 tools, 10,000 commits) after each commit of one tool's
// edit (made untimed): whole, as a build without a cache does, and resumed
// from the replay before, as a development server does. Run it with:
// go test ./generator/replay -run '^$' -bench CommitBenchRepo -benchtime 10x
func BenchmarkCommitBenchRepo(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("the benchmark repository is written with git, which is not installed")
	}
	dir := b.TempDir()
	cmd := exec.Command("go", "run", "./internal/benchrepo", "-tools", "200", "-commits", "10000", dir)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go run ./internal/benchrepo: %v\n%s", err, out)
	}
	tools, err := filepath.Glob(filepath.Join(dir, "tools", "*", "*.json"))
	if err != nil || len(tools) == 0 {
		b.Fatalf("no tool files in the benchmark repository (%v)", err)
	}
	when := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) // after every commit of the repository
	commit := func(i int) {
		editDescription(b, tools[0], fmt.Sprintf("Edit %d.", i))
		when = when.Add(time.Hour)
		for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "--no-gpg-sign", "-m", fmt.Sprintf("edit %d", i)}} {
			if out, err := gittest.Run(dir, when, args...); err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
		}
	}
	input := func() Input { return Input{Config: load(b, dir), Endpoint: cardEndpoint} }
	read := func() *Output {
		out, err := readAndPlay(input())
		if err != nil {
			b.Fatal(err)
		}
		return out
	}
	b.Run("whole", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			commit(i)
			b.StartTimer()
			read()
		}
	})
	b.Run("resumed", func(b *testing.B) {
		prev := read()
		was, _ := statesOf(prev.sources)
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			commit(i)
			now, _ := statesOf(prev.sources)
			b.StartTimer()
			out, ok := resume(prev, was, now, input())
			if !ok {
				b.Fatal("the replay did not resume")
			}
			prev, was = out, now
		}
	})
}

// editDescription sets a tool file's description.
func editDescription(b *testing.B, file, description string) {
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	var tool map[string]any
	if err := json.Unmarshal(data, &tool); err != nil {
		b.Fatal(err)
	}
	tool["description"] = description
	if data, err = json.Marshal(tool); err == nil {
		err = os.WriteFile(file, data, 0o644)
	}
	if err != nil {
		b.Fatal(err)
	}
}
