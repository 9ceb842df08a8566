// Package version says which wellknown is running: its module version,
// commit and commit date, from the build information Go records, or from
// the values a release build stamps with -ldflags -X, and how people install
// it (InstallCommand).
package version

import (
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
)

// Stamped by a release build (.goreleaser.yaml):
//
//	-X github.com/wellknown-dev/wellknown/internal/version.version=v1.2.3
//	-X github.com/wellknown-dev/wellknown/internal/version.commit=<hash>
//	-X github.com/wellknown-dev/wellknown/internal/version.date=<RFC 3339>
var version, commit, date string

// Devel is the version of a build from a source tree without a version.
const Devel = "(devel)"

// Info identifies a build.
type Info struct {
	Version  string // v1.2.3, a pseudo-version, or Devel
	Commit   string // "" when unknown
	Date     string // commit time, RFC 3339; "" when unknown
	Modified bool   // built from a work tree with uncommitted changes
}

// Get returns the running build's Info: stamped values first, then what Go
// recorded.
func Get() Info {
	info, _ := debug.ReadBuildInfo()
	return fromBuildInfo(info, version, commit, date)
}

func fromBuildInfo(bi *debug.BuildInfo, version, commit, date string) Info {
	i := Info{Version: Devel}
	if bi != nil {
		if bi.Main.Version != "" {
			i.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				i.Commit = s.Value
			case "vcs.time":
				i.Date = s.Value
			case "vcs.modified":
				i.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		i.Version = version
	}
	if commit != "" {
		i.Commit = commit
	}
	if date != "" {
		i.Date = date
	}
	return i
}

// String is the line "wellknown version" prints.
func (i Info) String() string {
	var details []string
	if i.Commit != "" {
		details = append(details, "commit "+i.Commit)
	}
	if i.Date != "" {
		details = append(details, i.Date)
	}
	if i.Modified {
		details = append(details, "with uncommitted changes")
	}
	if len(details) == 0 {
		return "wellknown " + i.Version
	}
	return fmt.Sprintf("wellknown %s (%s)", i.Version, strings.Join(details, ", "))
}

// release matches a tagged semantic version, v1.2.3 or v1.2.3-rc.1; pseudo
// is what Go makes for an untagged commit (v0.0.0-20260427120000-abcdef123456).
var (
	release = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)
	pseudo  = regexp.MustCompile(`[-.]([0-9]+\.)?[0-9]{14}-[0-9a-f]{12}$`)
)

// Release returns the version to pin in recipes when this build is a
// tagged release, and false for a development build.
func (i Info) Release() (string, bool) {
	if !release.MatchString(i.Version) || pseudo.MatchString(i.Version) || i.Modified {
		return "", false
	}
	return i.Version, true
}
