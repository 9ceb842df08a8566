package gitlog

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The benchmarks compare the package with its floor: the same git log
// written to nowhere, plus one git cat-file --batch given every blob id at
// once. Run them with: go test -run '^$' -bench . ./format/gitlog/
var benchSizes = []struct{ files, commits int }{{50, 1000}, {200, 10000}}

func BenchmarkLog(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", size.files, size.commits), func(b *testing.B) {
			repo := generatedRepo(b, size.files, size.commits).open()
			for b.Loop() {
				if _, err := repo.Log("HEAD", toolFiles); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLogFloor(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", size.files, size.commits), func(b *testing.B) {
			repo := generatedRepo(b, size.files, size.commits).open()
			for b.Loop() {
				runFloor(b, repo, nil, logArgs("HEAD", toolFiles)...)
			}
		})
	}
}

// BenchmarkRead reads the history and every blob it names.
func BenchmarkRead(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", size.files, size.commits), func(b *testing.B) {
			repo := generatedRepo(b, size.files, size.commits).open()
			for b.Loop() {
				readEverything(b, repo)
			}
		})
	}
}

func BenchmarkReadFloor(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("%dx%d", size.files, size.commits), func(b *testing.B) {
			repo := generatedRepo(b, size.files, size.commits).open()
			log, err := repo.Log("HEAD", toolFiles)
			if err != nil {
				b.Fatal(err)
			}
			ids := strings.Join(BlobIDs(log), "\n") + "\n"
			for b.Loop() {
				runFloor(b, repo, nil, logArgs("HEAD", toolFiles)...)
				runFloor(b, repo, strings.NewReader(ids), "cat-file", "--batch")
			}
		})
	}
}

func readEverything(b *testing.B, repo *Repo) {
	log, err := repo.Log("HEAD", toolFiles)
	if err != nil {
		b.Fatal(err)
	}
	blobs, err := repo.Blobs()
	if err != nil {
		b.Fatal(err)
	}
	defer blobs.Close()
	if err := blobs.ReadEach(BlobIDs(log), func(string, []byte) error { return nil }); err != nil {
		b.Fatal(err)
	}
}

// runFloor runs git as cheaply as it can produce the same output: with the
// package's environment, without flushing, into the null device.
func runFloor(b *testing.B, repo *Repo, stdin io.Reader, args ...string) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	cmd := repo.command(args...)
	cmd.Env = append(cmd.Env, "GIT_FLUSH=0")
	cmd.Stdin = stdin
	cmd.Stdout = null
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
}

// generatedRepo builds, with one git fast-import, a repository whose first
// commit adds the given number of tool files and whose later commits each
// change one of them (every fifth also a second one) and, every third, a
// file outside the pathspecs.
func generatedRepo(b *testing.B, files, commits int) *testRepo {
	r := newTestRepo(b)
	var stream bytes.Buffer
	for n := 1; n <= commits; n++ {
		fmt.Fprintf(&stream, "commit refs/heads/main\nmark :%d\n", n)
		fmt.Fprintf(&stream, "committer Cy Committer <cy@example.com> %d +0000\n", commitTime(n).Unix())
		writeData(&stream, fmt.Sprintf("change %d", n))
		if n > 1 {
			fmt.Fprintf(&stream, "from :%d\n", n-1)
		}
		for _, f := range changedFiles(n, files) {
			fmt.Fprintf(&stream, "M 100644 inline tools/server/t%03d.json\n", f)
			writeData(&stream, fmt.Sprintf(`{"name":"t%d","description":"version %d"}`, f, n))
		}
		if n%3 == 0 {
			stream.WriteString("M 100644 inline README.md\n")
			writeData(&stream, fmt.Sprintf("readme %d", n))
		}
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = r.dir
	cmd.Stdin = &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v\n%s", err, out)
	}
	return r
}

func changedFiles(n, files int) []int {
	if n == 1 {
		all := make([]int, files)
		for i := range all {
			all[i] = i
		}
		return all
	}
	changed := []int{n * 7919 % files}
	if n%5 == 0 {
		changed = append(changed, (n*104729+1)%files)
	}
	return changed
}

func writeData(w *bytes.Buffer, data string) {
	fmt.Fprintf(w, "data %d\n%s\n", len(data), data)
}
