package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/wellknown/internal/gittest"
)

// testKey is base64url of a fixed 32-byte seed (not a secret).
const testKey = "QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkI"

// badCase is a build that must fail: edit changes a copy of the example
// site (already built once), then `build args...` must exit 1 with exactly
// one error line matching want and leave public/ byte-for-byte as it was.
// An edit may also t.Setenv what the failing build should see.
type badCase struct {
	name string
	edit func(t *testing.T, dir string)
	args []string
	want string // regexp the single error line must match
}

func (tc badCase) run(t *testing.T) {
	dir := inExampleSite(t)
	if code := run([]string{"build"}, new(bytes.Buffer), new(bytes.Buffer)); code != 0 {
		t.Fatal("the unedited example site does not build")
	}
	before := digest(t, "public")
	if tc.edit != nil {
		tc.edit(t, dir)
	}
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"build"}, tc.args...), &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit status %d, want 1\nstderr:\n%s", code, stderr.String())
	}
	var errs []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if msg, ok := strings.CutPrefix(line, "wellknown: error: "); ok {
			errs = append(errs, msg)
		}
	}
	if len(errs) != 1 || !regexp.MustCompile(tc.want).MatchString(errs[0]) {
		t.Errorf("want one error matching %s, got:\n%s", tc.want, stderr.String())
	}
	if after := digest(t, "public"); after != before {
		t.Error("public/ changed after a failed build")
	}
}

// Every kind of bad input gets exactly one clear error line naming where the
// problem is, and leaves the previous public/ byte-for-byte as it was.
func TestBadInput(t *testing.T) {
	for _, tc := range []badCase{
		{"malformed TOML", replace("site.toml", `title = "Example Weather Co."`, `title = "Example`), nil,
			`^site\.toml:6: .*`},
		{"unknown key", replace("site.toml", "title = ", "colour = \"red\"\ntitle = "), nil,
			`^site\.toml:6: unknown key "colour"$`},
		{"unknown key in the second server", replace("site.toml", `import = "content/servers/alerts/server.json"`, "import = \"content/servers/alerts/server.json\"\nbogus = 1"), nil,
			`^site\.toml:43: unknown key "servers\.bogus"$`},
		{"missing base_url", replace("site.toml", `base_url = "https://weather.example.com/"`, ""), nil,
			`^site\.toml: base_url is required`},
		{"base_url not https", replace("site.toml", `base_url = "https://weather.example.com/"`, `base_url = "http://weather.example.com/"`), nil,
			`^site\.toml:5: base_url "http://weather\.example\.com/" must use https \(http is allowed only for localhost\)$`},
		{"server name pattern", edits(
			replace("site.toml", `name = "com.example.weather/forecast"`, "slug = \"forecast\"\nname = \"forecast server\""),
			replace("site.toml", `server = "com.example.weather/forecast"`, `server = "forecast server"`)), nil,
			`^site\.toml:24: server forecast server: name: "forecast server" must be a reverse-DNS namespace`},
		{"description too long", replace("site.toml", `description = "Hourly and daily forecasts for any place on Earth."`, `description = "`+strings.Repeat("x", 101)+`"`), nil,
			`^site\.toml:25: server com\.example\.weather/forecast: description: must be at most 100 characters \(has 101\)$`},
		{"remote URL invalid", replace("site.toml", `url = "https://weather.example.com/mcp"`, `url = "https://weather.example.com/m cp"`), nil,
			`^site\.toml:36: server com\.example\.weather/forecast: remotes\[0\]\.url: "https://weather\.example\.com/m cp" must be an http\(s\) URL or a \{variable\} template$`},
		{"tool file invalid JSON", replace("content/servers/forecast/tools/get_forecast.json", `"minimum": 1,`, `"minimum": 1,,`), nil,
			`^content/servers/forecast/tools/get_forecast\.json:15: invalid JSON at column 22 \(byte offset 430\): invalid character ','`},
		{"tool without name", replace("content/servers/forecast/tools/get_forecast.json", `"name": "get_forecast",`, ""), nil,
			`^content/servers/forecast/tools/get_forecast\.json: tool has no "name"$`},
		{"tool without inputSchema", replace("content/servers/alerts/tools/watch_alerts.json", `"inputSchema"`, `"schema"`), nil,
			`^content/servers/alerts/tools/watch_alerts\.json: tool watch_alerts has no "inputSchema"$`},
		{"tool name with bad characters", replace("content/servers/forecast/tools/get_forecast.json", `"name": "get_forecast"`, `"name": "get forecast!"`), nil,
			`^content/servers/forecast/tools/get_forecast\.json: tool name "get forecast!" must be 1–128 characters from A-Z a-z 0-9 \. _ -$`},
		{"duplicate tool name", copyTo("content/servers/forecast/tools/get_forecast.json", "content/servers/forecast/tools/get_forecast_copy.json"), nil,
			`^content/servers/forecast/tools/get_forecast_copy\.json: tool "get_forecast" is also declared in content/servers/forecast/tools/get_forecast\.json$`},
		{"EDP domain mismatch", replace("site.toml", "[entity]\n", "[entity]\ndomain = \"other.example\"\n"), nil,
			`^site\.toml:75: entity domain "other\.example" does not match the site's host "weather\.example\.com"$`},
		{"EDP endpoint not https", replace("site.toml", `server = "com.example.weather/forecast"   # endpoint`, `endpoint = "http://weather.example.com/mcp"   # endpoint`), nil,
			`^site\.toml:86: entity card: entities\[0\]\.mcps\[0\]\.endpoint: "http://weather\.example\.com/mcp" must be an absolute https URL$`},
		{"imported version placeholder", replace("content/servers/alerts/server.json", `"version": "1.3.0"`, `"version": "${VERSION}"`), nil,
			`^content/servers/alerts/server\.json: server com\.example\.weather/alerts: version "\$\{VERSION\}" imported from here is a placeholder$`},
		{"imported server.json breaks the registry format", replace("content/servers/alerts/server.json", `"description": "Active severe-weather warnings and alert subscriptions."`, `"description": "`+strings.Repeat("y", 120)+`"`), nil,
			`^content/servers/alerts/server\.json: registry server\.json: description: must be at most 100 characters \(has 120\)$`},
		{"key file unreadable", nil, []string{"--key-file", "absent.key"},
			`^absent\.key: cannot read the signing key: no such file or directory$`},
		{"key file wrong size", writeFile("short.key", "c2hvcnQ"), []string{"--key-file", "short.key"},
			`^short\.key: not an Ed25519 private key \(7 bytes\)`},
		{"history_from naming no commit", replace("site.toml", `title = "Example Weather Co."`, "history_from = \"v0.0.0\"\ntitle = \"Example Weather Co.\""), nil,
			`^site\.toml:6: history_from "v0\.0\.0" is neither a date nor a commit of .*$`},
		{"committed placeholder version, set at build time", edits(
			replace("content/servers/alerts/server.json", `"version": "1.3.0"`, `"version": "${VERSION}"`), commitAll),
			[]string{"--set", "servers.alerts.version=1.3.0"},
			`^site\.toml:41: server com\.example\.weather/alerts: its committed version "\$\{VERSION\}" is not a version, so the change feed cannot record it$`},
		{"key file tracked by git", trackedKey, []string{"--key-file", "tracked.key"},
			`^tracked\.key: the signing key is tracked by git, so it is not private$`},
		{"output path /", nil, []string{"--out", "/"},
			`^refusing to write output to /: it is the file-system root$`},
		{"output path is the repository root", nil, []string{"--out", "."},
			`^refusing to write output to \.: it is the site's root or contains it$`},
	} {
		t.Run(tc.name, tc.run)
	}
}

func edits(fs ...func(*testing.T, string)) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		for _, f := range fs {
			f(t, dir)
		}
	}
}

// replace replaces the first occurrence of old in file with new.
func replace(file, old, new string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, file)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("%s does not contain %q: the example changed; update this test", file, old)
		}
		if err := os.WriteFile(p, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func copyTo(from, to string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		data, err := os.ReadFile(filepath.Join(dir, from))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(to, string(data))(t, dir)
	}
}

func writeFile(name, content string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func trackedKey(t *testing.T, dir string) {
	writeFile("tracked.key", testKey)(t, dir)
	cmd := exec.Command("git", "add", "tracked.key")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
}

// commitAll commits every change of the site, a day after the example site.
func commitAll(t *testing.T, dir string) {
	if _, err := gittest.Run(dir, gittest.FirstCommit.Add(24*time.Hour), "commit", "-qa", "--no-gpg-sign", "-m", "edit"); err != nil {
		t.Fatal(err)
	}
}

// digest lists every file under dir with its content.
func digest(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		b.WriteString(p + "\x00" + string(data) + "\x00")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
