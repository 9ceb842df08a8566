package generator

import (
	"fmt"
	"testing"

	"github.com/wellknown-dev/wellknown/generator/bundle"
	"github.com/wellknown-dev/wellknown/generator/keyguard"
	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// BenchmarkKeyScan scans a Bundle of 4,000 files for the signing key: the
// example site's files (documents, pages, the feed, assets, deploy files)
// repeated to 4,000, a large site.
func BenchmarkKeyScan(b *testing.B) {
	res, err := Build(Options{ConfigPath: gittest.ExampleSite(b), Getenv: testEnv})
	if err != nil {
		b.Fatal(err)
	}
	files := res.Bundle.Files()
	large := bundle.New()
	size := 0
	for i := range 4000 {
		f := files[i%len(files)]
		if err := large.Add(fmt.Sprintf("/%04d%s", i, f.Path), f.Body, f.ContentType); err != nil {
			b.Fatal(err)
		}
		size += len(f.Body)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		if err := keyguard.NewScanned().Scan(large, res.Key); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(size)/1e6, "MB/site")
}
