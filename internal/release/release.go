// Package release says which wellknown is running, as people install it.
package release

import (
	"runtime/debug"
	"strings"
)

// ModulePath is the module people install wellknown from.
const ModulePath = "github.com/wellknown-dev/wellknown"

// InstallVersion is the version to install to get this wellknown: its own,
// when it is a published module version, else latest.
func InstallVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "latest"
	}
	v := info.Main.Version
	if !strings.HasPrefix(v, "v") || strings.Contains(v, "+") {
		return "latest" // (devel), or a build from a modified checkout
	}
	return v
}

// InstallGuide is the URL of the install instructions: README's Install
// section.
const InstallGuide = "https://" + ModulePath + "#install"

// InstallCommand is the command that installs this wellknown with Go.
func InstallCommand() string { return "go install " + ModulePath + "@" + InstallVersion() }
