package version

// ModulePath is the module people install wellknown from.
const ModulePath = "github.com/wellknown-dev/wellknown"

// InstallVersion is the version to install to get this wellknown: its own,
// when it is a release (see Info.Release), else latest.
func InstallVersion() string {
	if v, ok := Get().Release(); ok {
		return v
	}
	return "latest"
}

// InstallGuide is the URL of the install instructions: README's Install
// section.
const InstallGuide = "https://" + ModulePath + "#install"

// InstallCommand is the command that installs this wellknown with Go.
func InstallCommand() string { return "go install " + ModulePath + "@" + InstallVersion() }
