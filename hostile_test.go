package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wellknown-dev/wellknown/format/didweb"
)

// Hostile input: what anyone who can commit to the repository (or a server,
// through sync) can put there. Each case is a build that must fail with one
// located error line and leave public/ as it was (see badCase). The cases are
// grouped by what they attack.
func TestHostileInput(t *testing.T) {
	for _, tc := range []badCase{
		// The signing key and the file system: symlinks, devices, FIFOs, key
		// files in published or output directories.
		{"asset symlinked to the key file", edits(writeFile("signing.key", testKey), symlink("../../signing.key", "templates/assets/k.txt")),
			[]string{"--key-file", "signing.key"},
			`^templates/assets/k\.txt: is the signing key signing\.key under another name, and what a build reads may be published$`},
		{"asset directory symlinked to the key's directory", edits(mkdir("secrets"), writeFile("secrets/signing.key", testKey), symlink("../secrets", "templates/assets")),
			[]string{"--key-file", "secrets/signing.key"},
			`^templates/assets/signing\.key: is the signing key secrets/signing\.key under another name, and what a build reads may be published$`},
		{"asset symlinked to the environment", edits(symlink("/proc/self/environ", "templates/assets/env.txt"), setenv("CI", "true")),
			[]string{"--strict"},
			`^templates/assets/env\.txt: is a symlink to /proc/self/environ, outside the repository$`},
		{"page symlinked to the key file", edits(writeFile("signing.key", testKey), symlink("../../signing.key", "content/pages/key.md")),
			[]string{"--key-file", "signing.key"},
			`^content/pages/key\.md: is the signing key signing\.key under another name, and what a build reads may be published$`},
		// Markdown emphasis would split this key (<em>abcdefgh</em>) so that
		// no scan of the output finds it: the alias is refused as an input.
		{"page linked to a key Markdown would split", edits(writeFile("evil.key", "QQQQ-_abcdefgh_-QQQQQQQQQQQQQQQQQQQQQQQQQQA"), symlink("../../evil.key", "content/pages/key.md")),
			[]string{"--key-file", "evil.key"},
			`^content/pages/key\.md: is the signing key evil\.key under another name, and what a build reads may be published$`},
		{"page hard-linked to the key file", edits(writeFile("signing.key", testKey), hardlink("signing.key", "content/pages/key.md")),
			[]string{"--key-file", "signing.key"},
			`^content/pages/key\.md: is the signing key signing\.key under another name, and what a build reads may be published$`},
		{"development key directory symlinked out of the site", edits(setenv("WELLKNOWN_SIGNING_KEY", ""), symlinkOutside(".wellknown")), nil,
			`^\.wellknown: is a symlink, not a directory; the development key is written only into a directory of the site$`},
		{"attestation token file is a FIFO", edits(
			replace("site.toml", `capabilities = ["forecast", "alerts"]`, "capabilities = [\"forecast\", \"alerts\"]\n[entity.entities.mcps.verification]\nsignature_file = \"content/att.jwt\""),
			fifo("content/att.jwt")), nil,
			`^site\.toml:88: entity mcp example-weather: attestation: cannot read signature_file content/att\.jwt: is a FIFO, not a regular file$`},
		{"attestation token file hard-linked to the key file", edits(writeFile("signing.key", testKey),
			replace("site.toml", `capabilities = ["forecast", "alerts"]`, "capabilities = [\"forecast\", \"alerts\"]\n[entity.entities.mcps.verification]\nsignature_file = \"att.jwt\""),
			hardlink("signing.key", "att.jwt")),
			[]string{"--key-file", "signing.key"},
			`^site\.toml:88: entity mcp example-weather: attestation: cannot read signature_file att\.jwt: is the signing key signing\.key under another name, and what a build reads may be published$`},
		{"import hard-linked to the key file", edits(writeFile("signing.key", testKey), remove("content/servers/alerts/server.json"), hardlink("signing.key", "content/servers/alerts/server.json")),
			[]string{"--key-file", "signing.key"},
			`^site\.toml:\d+: cannot read import content/servers/alerts/server\.json: is the signing key signing\.key under another name, and what a build reads may be published$`},
		{"import symlinked to the key file site.toml names", edits(writeFile("signing.key", testKey), replace("site.toml", "[signing]", "[signing]\nkey_file = \"signing.key\""),
			remove("content/servers/alerts/server.json"), symlink("../../../signing.key", "content/servers/alerts/server.json")),
			nil,
			`^site\.toml:\d+: cannot read import content/servers/alerts/server\.json: is the signing key signing\.key under another name, and what a build reads may be published$`},
		{"page symlinked out of the repository", symlink("/etc/passwd", "content/pages/passwd.md"), nil,
			`^content/pages/passwd\.md: is a symlink to /etc/passwd, outside the repository$`},
		{"import symlinked out of the repository", edits(remove("content/servers/alerts/server.json"), symlink("/etc/passwd", "content/servers/alerts/server.json")), nil,
			`^site\.toml:\d+: cannot read import content/servers/alerts/server\.json: is a symlink to /etc/passwd, outside the repository$`},
		{"asset directory symlinked out of the repository", symlink("/etc", "templates/assets/etc"), nil,
			`^templates/assets/etc: is a symlink to /etc, outside the repository$`},
		{"tool file symlinked to the key file", edits(writeFile("signing.key", testKey), symlink("../../../../signing.key", "content/servers/forecast/tools/k.json")),
			[]string{"--key-file", "signing.key"},
			`^content/servers/forecast/tools/k\.json: is a symlink, not a regular file: a tool file's history is read from git, which keeps a symlink, not what it points to$`},
		{"tool file hard-linked to the key file", edits(writeFile("signing.key", testKey), hardlink("signing.key", "content/servers/forecast/tools/k.json")),
			[]string{"--key-file", "signing.key"},
			`^content/servers/forecast/tools/k\.json: is the signing key signing\.key under another name, and what a build reads may be published$`},
		{"tool file is a FIFO", fifo("content/servers/forecast/tools/pipe.json"), nil,
			`^content/servers/forecast/tools/pipe\.json: is a FIFO, not a regular file$`},
		{"page quoting the key as PEM", func(t *testing.T, dir string) {
			key, err := didweb.ParsePrivateKey([]byte(testKey))
			if err != nil {
				t.Fatal(err)
			}
			writeFile("content/pages/notes.md", "# Notes\n\n"+string(didweb.MarshalPEM(key)))(t, dir)
		}, nil,
			`^the signing key \(base64\) would be published in /notes/index\.html$`},
		{"asset quoting the key in hex", edits(mkdir("templates/assets"), writeFile("templates/assets/notes.txt", "seed: "+strings.Repeat("42", 32))), nil,
			`^the signing key \(hex\) would be published in /assets/notes\.txt$`},
		{"asset symlinked to /dev/zero", symlink("/dev/zero", "templates/assets/zero.txt"), nil,
			`^templates/assets/zero\.txt: is a symlink to /dev/zero, outside the repository$`},
		{"page symlinked to /dev/zero", symlink("/dev/zero", "content/pages/zero.md"), nil,
			`^content/pages/zero\.md: is a symlink to /dev/zero, outside the repository$`},
		{"asset is a FIFO", fifo("templates/assets/pipe.txt"), nil,
			`^templates/assets/pipe\.txt: is a FIFO, not a regular file$`},
		{"page is a FIFO", fifo("content/pages/pipe.md"), nil,
			`^content/pages/pipe\.md: is a FIFO, not a regular file$`},
		{"key file is a FIFO", fifo("key.fifo"), []string{"--key-file", "key.fifo"},
			`^key\.fifo: cannot read the signing key: is a FIFO, not a regular file$`},
		{"site definition is a FIFO", fifo("pipe.toml"), []string{"--config", "pipe.toml"},
			`^pipe\.toml: cannot read the site definition: is a FIFO, not a regular file$`},
		{"previous feed is a FIFO", fifo("feed.fifo"), []string{"--previous", "feed.fifo"},
			`^--previous feed\.fifo: is a FIFO, not a regular file$`},
		{"key file is a directory", mkdir("keys"), []string{"--key-file", "keys"},
			`^keys: cannot read the signing key: is a directory, not a regular file$`},
		{"key file symlinked to a tracked key", edits(trackedKey, symlink("tracked.key", "link.key")), []string{"--key-file", "link.key"},
			`^link\.key: the signing key is tracked by git, so it is not private$`},
		{"key file in published assets", edits(mkdir("templates/assets"), writeFile("templates/assets/site.key", testKey)), []string{"--key-file", "templates/assets/site.key"},
			`^templates/assets/site\.key: the signing key is inside templates, whose files are published$`},
		{"key file in the output directory", keyInOutput("out"), []string{"--key-file", "out/signing.key", "--out", "out"},
			`^out/signing\.key: the signing key is inside the output directory out, which a build replaces$`},

		// Output paths: symlinked parents, the output directory as an input.
		{"output path under a symlink to a directory outside the site", symlinkOutside("sub"), []string{"--out", "sub/public"},
			`^refusing to write output to sub/public: it is /.+/public, outside the site's repository$`},
		{"output path is a symlink to a directory outside the site", symlinkOutside("out"), []string{"--out", "out"},
			`^refusing to write output to out: it is /.+, outside the site's repository$`},

		// Tool files beyond the limits: size, nesting, properties, encodings.
		{"tool file over 1 MiB", writeFile("content/servers/forecast/tools/big.json", `{"name": "big", "description": "`+strings.Repeat("x", 1<<20)+`", "inputSchema": {"type": "object"}}`), nil,
			`^content/servers/forecast/tools/big\.json: tool file is 1048645 bytes; the limit is 1048576$`},
		{"tool file nested 1,000 deep", writeFile("content/servers/forecast/tools/deep.json", `{"name": "deep", "inputSchema": {"type": "object", "x": `+strings.Repeat(`{"a":`, 1000)+"1"+strings.Repeat("}", 1000)+`}}`), nil,
			`^content/servers/forecast/tools/deep\.json:1: objects and arrays nest more than 64 deep \(the limit\)$`},
		{"tool file nested 10,000 deep", writeFile("content/servers/forecast/tools/deep.json", `{"name": "deep", "inputSchema": {"type": "object", "x": `+strings.Repeat(`{"a":`, 10_000)+"1"+strings.Repeat("}", 10_000)+`}}`), nil,
			`^content/servers/forecast/tools/deep\.json:1: objects and arrays nest more than 64 deep \(the limit\)$`},
		{"tool file with 12,000 properties", writeFile("content/servers/forecast/tools/wide.json", "{\"name\": \"wide\",\n\"inputSchema\": {\"type\": \"object\"},\n\"x\": ["+strings.Repeat(`{"a":1,"b":2,"c":3,"d":4},`, 3000)+"{}]}"), nil,
			`^content/servers/forecast/tools/wide\.json:3: more than 10000 properties \(the limit\)$`},
		{"tool file with a duplicate key", replace("content/servers/forecast/tools/get_forecast.json", `"title": "Get forecast",`, "\"title\": \"Get forecast\",\n  \"title\": \"Get a forecast\","), nil,
			`^content/servers/forecast/tools/get_forecast\.json:4: duplicate key "title"$`},
		{"tool file with a lone surrogate", replace("content/servers/forecast/tools/get_forecast.json", `"Daily forecast for a place, up to 14 days ahead."`, `"Daily forecast \ud83d for a place."`), nil,
			`^content/servers/forecast/tools/get_forecast\.json:4: string holds a lone UTF-16 surrogate \\ud83d, which is not a character$`},
		{"tool file with a byte-order mark", replace("content/servers/forecast/tools/get_forecast.json", "{\n  \"name\": \"get_forecast\"", "\ufeff{\n  \"name\": \"get_forecast\""), nil,
			`^content/servers/forecast/tools/get_forecast\.json: starts with a UTF-8 byte-order mark; save it without one$`},
		{"tool file holding an array", writeFile("content/servers/forecast/tools/list.json", `[{"name": "a", "inputSchema": {"type": "object"}}]`), nil,
			`^content/servers/forecast/tools/list\.json: a tool file holds one JSON object \(found an array\)$`},
		{"tool file with a number out of range", replace("content/servers/forecast/tools/get_forecast.json", `"maximum": 14,`, `"maximum": 1e400,`), nil,
			`^content/servers/forecast/tools/get_forecast\.json:16: number 1e400 is too large for a 64-bit floating-point number$`},

		// site.toml beyond its limits, checked before the TOML decoder,
		// whose memory grows fast with the depth.
		{"site.toml nested 6,000 deep", replace("site.toml", `title = "Example Weather Co."`, "title = \"Example Weather Co.\"\nx = "+strings.Repeat("{a=", 6000)+"1"+strings.Repeat("}", 6000)), nil,
			`^site\.toml:7: tables and arrays nest more than 32 deep \(the limit\)$`},
		{"site.toml over 1 MiB", replace("site.toml", `title = "Example Weather Co."`, "title = \"Example Weather Co.\"\n#"+strings.Repeat("x", 1<<20)), nil,
			`^site\.toml: cannot read the site definition: is larger than the limit of 1 MiB$`},

		// Markdown nested beyond the parser's comfort: its time grows with
		// the square of the depth.
		{"page of nested list markers", writeFile("content/pages/deep.md", "# Deep\n\n"+strings.Repeat("- ", 128<<10)+"a\n"), nil,
			`^content/pages/deep\.md:3: lists and block quotes nest more than 32 deep \(the limit\)$`},
		{"home page of indented nested lists", writeFile("content/index.md", nestedList(100)), nil,
			`^content/index\.md:33: lists and block quotes nest more than 32 deep \(the limit\)$`},
		{"server docs of nested block quotes", writeFile("content/servers/forecast/README.md", strings.Repeat("> ", 1000)+"a\n"), nil,
			`^content/servers/forecast/README\.md:1: lists and block quotes nest more than 32 deep \(the limit\)$`},

		// Configuration values: base_url, --set, remote URLs.
		{"base_url with the default port", replace("site.toml", `base_url = "https://weather.example.com/"`, `base_url = "https://weather.example.com:443/"`), nil,
			`^site\.toml:5: base_url "https://weather\.example\.com:443/" names its scheme's default port, which would change the site's DID; write it without: https://weather\.example\.com/$`},
		{"base_url with an impossible port", replace("site.toml", `base_url = "https://weather.example.com/"`, `base_url = "https://weather.example.com:99999/"`), nil,
			`^site\.toml:5: base_url "https://weather\.example\.com:99999/" has port "99999"; a port is a number from 1 to 65535$`},
		{"base_url with port 0", replace("site.toml", `base_url = "https://weather.example.com/"`, `base_url = "https://weather.example.com:0/"`), nil,
			`^site\.toml:5: base_url "https://weather\.example\.com:0/" has port "0"; a port is a number from 1 to 65535$`},
		{"base_url with dot segments", replace("site.toml", `base_url = "https://weather.example.com/"`, `base_url = "https://weather.example.com/a/../b/"`), nil,
			`^site\.toml:5: base_url "https://weather\.example\.com/a/\.\./b/" has a path with empty, '\.' or '\.\.' segments; write it as "/b/"$`},
		{"--set base_url blames the flag", nil, []string{"--set", "base_url=http://weather.example.com/"},
			`^--set base_url=http://weather\.example\.com/: base_url "http://weather\.example\.com/" must use https \(http is allowed only for localhost\)$`},
		{"--set version blames the flag", nil, []string{"--set", "servers.forecast.version=${VERSION}"},
			`^--set servers\.forecast\.version=\$\{VERSION\}: server com\.example\.weather/forecast: version "\$\{VERSION\}" is a placeholder$`},
		{"remote URL with dot segments on the site's origin", replace("site.toml", `url = "https://weather.example.com/mcp"`, `url = "https://weather.example.com/../../../x"`), nil,
			`^site\.toml:36: server com\.example\.weather/forecast: remote https://weather\.example\.com/\.\./\.\./\.\./x: its card has no place on the site: output path "/\.\./\.\./\.\./x/server-card" is not clean$`},
		{"remote URL whose card collides with another document", replace("site.toml", `url = "https://weather.example.com/mcp"`, `url = "https://weather.example.com/mcp/forecast/server-card.json"`), nil,
			`^site\.toml:36: server com\.example\.weather/forecast: remote https://weather\.example\.com/mcp/forecast/server-card\.json: its card cannot be published at /mcp/forecast/server-card\.json/server-card: output /mcp/forecast/server-card\.json/server-card needs /mcp/forecast/server-card\.json to be a directory, but it is a file$`},

		// The feed's archives: the page size, and --previous chains.
		{"feed page size below one", replace("site.toml", "[feed]\n", "[feed]\npage_size = -1\n"), nil,
			`^site\.toml:18: feed\.page_size is -1; it is a number of entries, at least 1$`},
		{"previous archives in a circle", publishedWithArchive(exampleArchive), []string{"--previous", "prev/.well-known/agent-feed.xml"},
			`^--previous prev/\.well-known/agent-feed\.xml: \S+/archive-1\.xml: prev-archive \S+/archive-1\.xml leads back to a document already read: the archives link in a circle$`},
		{"previous archive off the origin", publishedWithArchive("https://elsewhere.example/.well-known/agent-feed/archive-0.xml"), []string{"--previous", "prev/.well-known/agent-feed.xml"},
			`^--previous prev/\.well-known/agent-feed\.xml: \S+/archive-1\.xml: prev-archive https://elsewhere\.example/\S+ is not on the feed's origin$`},
		{"previous archive outside the feed's directory", publishedWithArchive("https://weather.example.com/../../etc/passwd"), []string{"--previous", "prev/.well-known/agent-feed.xml"},
			`^--previous prev/\.well-known/agent-feed\.xml: https://weather\.example\.com/etc/passwd: not beside the feed file, so not read$`},
	} {
		t.Run(tc.name, tc.run)
	}
}

// nestedList is n list items, each indented one level below the last.
func nestedList(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat("  ", i) + "- a\n")
	}
	return b.String()
}

// exampleArchive is the URL of the example site's first feed archive.
const exampleArchive = "https://weather.example.com/.well-known/agent-feed/archive-1.xml"

// publishedWithArchive keeps the built feed as prev/.well-known/agent-feed.xml,
// linking to an archive beside it whose own prev-archive link is link.
func publishedWithArchive(link string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		feed, err := os.ReadFile(filepath.Join(dir, "public", ".well-known", "agent-feed.xml"))
		if err != nil {
			t.Fatal(err)
		}
		self := `<link rel="self" href="https://weather.example.com/.well-known/agent-feed.xml"/>`
		if !bytes.Contains(feed, []byte(self)) {
			t.Fatal("the example's feed has no self link: update this test")
		}
		feed = bytes.Replace(feed, []byte(self), []byte(self+`<link rel="prev-archive" href="`+exampleArchive+`"/>`), 1)
		mkdir("prev/.well-known/agent-feed")(t, dir)
		writeFile("prev/.well-known/agent-feed.xml", string(feed))(t, dir)
		writeFile("prev/.well-known/agent-feed/archive-1.xml", `<feed xmlns="http://www.w3.org/2005/Atom"><link rel="prev-archive" href="`+link+`"/></feed>`)(t, dir)
	}
}

func symlink(target, name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		mkdir(filepath.Dir(name))(t, dir)
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func hardlink(target, name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if err := os.Link(filepath.Join(dir, target), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func fifo(name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		mkdir(filepath.Dir(name))(t, dir)
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func mkdir(name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

func remove(name string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
}

func setenv(name, value string) func(*testing.T, string) {
	return func(t *testing.T, _ string) { t.Setenv(name, value) }
}

// keyInOutput builds the site into out, then puts a new key file there.
func keyInOutput(out string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		var stderr bytes.Buffer
		for _, args := range [][]string{{"build", "--out", out}, {"keygen", "-o", filepath.Join(out, "signing.key")}} {
			if code := run(args, new(bytes.Buffer), &stderr); code != 0 {
				t.Fatalf("%v: %s", args, stderr.String())
			}
		}
	}
}

// symlinkOutside makes link in the site a symlink to a new directory
// outside it, and fails the test if anything is ever written there.
func symlinkOutside(link string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		elsewhere := t.TempDir()
		if err := os.Symlink(elsewhere, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
				t.Errorf("the build wrote %v outside the site", entries)
			}
		})
	}
}
