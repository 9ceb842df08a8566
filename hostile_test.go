package main

import "testing"

// Hostile input: what anyone who can commit to the repository (or a server,
// through sync) can put there. Each case is a build that must fail with one
// located error line and leave public/ as it was (see badCase). The cases are
// grouped by what they attack.
func TestHostileInput(t *testing.T) {
	for _, tc := range []badCase{
		// The signing key and the file system: symlinks, devices, FIFOs, key
		// files in published or output directories.

		// Output paths: symlinked parents, the output directory as an input.

		// Tool files beyond the limits: size, nesting, properties, encodings.

		// Configuration values: base_url, --set, remote URLs.
		{"base_url with an impossible port", replace("site.toml", `base_url = "https://weather.example.com/"`, `base_url = "https://weather.example.com:99999/"`), nil,
			`^site\.toml:5: base_url "https://weather\.example\.com:99999/" has port "99999"; a port is a number from 1 to 65535$`},
		{"base_url with port 0", replace("site.toml", `base_url = "https://weather.example.com/"`, `base_url = "https://weather.example.com:0/"`), nil,
			`^site\.toml:5: base_url "https://weather\.example\.com:0/" has port "0"`},
		{"base_url with dot segments", replace("site.toml", `base_url = "https://weather.example.com/"`, `base_url = "https://weather.example.com/a/../b/"`), nil,
			`^site\.toml:5: base_url "https://weather\.example\.com/a/\.\./b/" has a path with empty, '\.' or '\.\.' segments; write it as "/b/"$`},
		{"--set base_url blames the flag", nil, []string{"--set", "base_url=http://weather.example.com/"},
			`^--set base_url=http://weather\.example\.com/: base_url "http://weather\.example\.com/" must use https`},
		{"--set version blames the flag", nil, []string{"--set", "servers.forecast.version=${VERSION}"},
			`^--set servers\.forecast\.version=\$\{VERSION\}: server com\.example\.weather/forecast: version "\$\{VERSION\}" is a placeholder$`},
		{"remote URL with dot segments on the site's origin", replace("site.toml", `url = "https://weather.example.com/mcp"`, `url = "https://weather.example.com/../../../x"`), nil,
			`^site\.toml:36: server com\.example\.weather/forecast: remote https://weather\.example\.com/\.\./\.\./\.\./x: its path has empty, '\.' or '\.\.' segments, so its card has no place on the site$`},
		{"remote URL whose card collides with another document", replace("site.toml", `url = "https://weather.example.com/mcp"`, `url = "https://weather.example.com/mcp/forecast/server-card.json"`), nil,
			`^site\.toml:36: server com\.example\.weather/forecast: remote https://weather\.example\.com/mcp/forecast/server-card\.json: its card cannot be published at /mcp/forecast/server-card\.json/server-card: `},
	} {
		t.Run(tc.name, tc.run)
	}
}
