//go:build unix

package bundle

import (
	"path/filepath"
	"testing"
)

// benchFiles is about the generated site of BENCHMARKS.md.
const benchFiles = 4000

// A write into an empty directory: every file staged and renamed.
func BenchmarkWriteDirFirst(b *testing.B) {
	site := sampleSite(b, 1, benchFiles)
	for b.Loop() {
		b.StopTimer()
		out := filepath.Join(b.TempDir(), "public")
		b.StartTimer()
		if _, err := site.WriteDir(out, WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// A write of the same site again: every file compared, none written.
func BenchmarkWriteDirUnchanged(b *testing.B) {
	site := sampleSite(b, 1, benchFiles)
	out := filepath.Join(b.TempDir(), "public")
	if _, err := site.WriteDir(out, WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := site.WriteDir(out, WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
