package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	vcs := &debug.BuildInfo{
		Main: debug.Module{Version: "v0.0.0-20260427120000-abcdef123456+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abcdef1234567890"},
			{Key: "vcs.time", Value: "2026-04-27T12:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	for _, tc := range []struct {
		name                  string
		bi                    *debug.BuildInfo
		version, commit, date string
		want                  string
		release               string
	}{
		{name: "no build info", want: "wellknown (devel)"},
		{name: "go build in a work tree", bi: vcs,
			want: "wellknown v0.0.0-20260427120000-abcdef123456+dirty (commit abcdef1234567890, 2026-04-27T12:00:00Z, with uncommitted changes)"},
		{name: "go install @v1.2.3", bi: &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}},
			want: "wellknown v1.2.3", release: "v1.2.3"},
		{name: "go install of a pseudo-version", bi: &debug.BuildInfo{Main: debug.Module{Version: "v1.2.4-0.20260427120000-abcdef123456"}},
			want: "wellknown v1.2.4-0.20260427120000-abcdef123456"},
		{name: "stamped release", bi: &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			version: "v1.3.0-rc.1", commit: "0123456789abcdef", date: "2026-05-01T08:00:00Z",
			want: "wellknown v1.3.0-rc.1 (commit 0123456789abcdef, 2026-05-01T08:00:00Z)", release: "v1.3.0-rc.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := fromBuildInfo(tc.bi, tc.version, tc.commit, tc.date)
			if got := i.String(); got != tc.want {
				t.Errorf("String() = %q\nwant       %q", got, tc.want)
			}
			if got, ok := i.Release(); got != tc.release || ok != (tc.release != "") {
				t.Errorf("Release() = %q, %v; want %q", got, ok, tc.release)
			}
		})
	}
}
