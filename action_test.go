package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/prereq"
)

// fakeRelease serves releases the way GitHub does, over https, one directory per tag:
// each tag's archive for this machine holds a wellknown script that prints
// the tag, and its checksums file lists the archive with the digest sums
// gives (the archive's own, when sums returns "").
type fakeRelease struct {
	srv      *httptest.Server
	caFile   string // the server's certificate, for curl
	requests atomic.Int32
	mu       sync.Mutex
	archives map[string]int // downloads by path
}

func newFakeRelease(t *testing.T, tags map[string]func(digest string) string) *fakeRelease {
	t.Helper()
	root := t.TempDir()
	for tag, sums := range tags {
		number := strings.TrimPrefix(tag, "v")
		archive := fmt.Sprintf("wellknown_%s_%s_%s.tar.gz", number, runtime.GOOS, runtime.GOARCH)
		data := tarGz(t, "wellknown", "#!/bin/sh\necho 'wellknown "+tag+" (commit 0123abcd)'\n")
		digest := fmt.Sprintf("%x", sha256.Sum256(data))
		writeTestFile(t, filepath.Join(root, tag, archive), data)
		writeTestFile(t, filepath.Join(root, tag, "wellknown_"+number+"_checksums.txt"),
			[]byte("0000000000000000000000000000000000000000000000000000000000000000  wellknown_"+number+"_other_arch.tar.gz\n"+
				sums(digest)+"  "+archive+"\n"))
	}
	f := &fakeRelease{archives: map[string]int{}}
	files := http.FileServer(http.Dir(root))
	f.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		if strings.HasSuffix(r.URL.Path, ".tar.gz") {
			f.mu.Lock()
			f.archives[r.URL.Path]++
			f.mu.Unlock()
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	f.caFile = filepath.Join(t.TempDir(), "ca.pem")
	writeTestFile(t, f.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.srv.Certificate().Raw}))
	return f
}

// archiveDownloads is how many times an archive of the tag was downloaded.
func (f *fakeRelease) archiveDownloads(tag string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for p, c := range f.archives {
		if strings.HasPrefix(p, "/"+tag+"/") {
			n += c
		}
	}
	return n
}

// fakeModuleProxy is a GOPROXY directory that serves one version of this
// module: a main package that prints that version.
func fakeModuleProxy(t *testing.T, version string) string {
	t.Helper()
	proxy := t.TempDir()
	dir := filepath.Join(proxy, "github.com", "wellknown-dev", "wellknown", "@v")
	gomod := "module github.com/wellknown-dev/wellknown\n\ngo 1.21\n"
	writeTestFile(t, filepath.Join(dir, "list"), []byte(version+"\n"))
	writeTestFile(t, filepath.Join(dir, version+".info"), []byte(`{"Version":"`+version+`","Time":"2026-04-27T12:00:00Z"}`))
	writeTestFile(t, filepath.Join(dir, version+".mod"), []byte(gomod))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range map[string]string{
		"go.mod":  gomod,
		"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"wellknown " + version + " (from the module proxy)\\n\") }\n",
	} {
		w, err := zw.Create("github.com/wellknown-dev/wellknown@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, version+".zip"), buf.Bytes())
	return proxy
}

func tarGz(t *testing.T, name, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(content))}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte(content))
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeTestFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runInstall runs the Action's install script for version into dir, with
// the PATH given, trusting the fake release's certificate, and returns its
// standard error.
func runInstall(t *testing.T, release *fakeRelease, releases, version, dir, path string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join("action", "install.sh"))
	cmd.Env = []string{
		"PATH=" + path, "HOME=" + t.TempDir(), "CURL_CA_BUNDLE=" + release.caFile,
		"WELLKNOWN_VERSION=" + version, "WELLKNOWN_INSTALL_DIR=" + dir, "WELLKNOWN_RELEASES_URL=" + releases,
		"GITHUB_PATH=" + filepath.Join(dir, "..", "github_path"),
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	return stderr.String(), err
}

// pathWithoutGo is a PATH that holds the commands the install script uses
// and no go command: a directory of links to them. (Leaving out the
// directories that hold go would leave out /usr/bin, where Debian's golang
// package puts one.)
func pathWithoutGo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"bash", "curl", "tar", "gzip", "awk", "uname", "mktemp", "sha256sum", "chmod", "mkdir", "mv", "cp", "rm", "install", "env", "cat"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			prereq.Missing(t, "the install script needs %s, which is not on PATH", tool)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkInstalled checks that dir holds the wellknown of the fake release's
// tag.
func checkInstalled(t *testing.T, dir, tag string) {
	t.Helper()
	out, err := exec.Command(filepath.Join(dir, "wellknown"), "version").Output()
	if err != nil || string(out) != "wellknown "+tag+" (commit 0123abcd)\n" {
		t.Errorf("installed wellknown version: %q, %v", out, err)
	}
}

func TestActionInstall(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the install script's test runs on linux and darwin")
	}
	release := newFakeRelease(t, map[string]func(string) string{
		"v1.2.3": func(digest string) string { return digest },
		"v1.2.4": func(string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte("another archive"))) },
	})
	path := pathWithoutGo(t)
	base := t.TempDir()

	t.Run("checked download", func(t *testing.T) {
		dir := filepath.Join(base, "v1.2.3")
		archive := "wellknown_1.2.3_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
		stderr, err := runInstall(t, release, release.srv.URL, "v1.2.3", dir, path)
		if err != nil {
			t.Fatalf("install: %v\n%s", err, stderr)
		}
		if !strings.Contains(stderr, "downloaded "+archive+" (SHA-256 checked)") || !strings.Contains(stderr, "installed "+archive) {
			t.Errorf("stderr does not say what was installed:\n%s", stderr)
		}
		checkInstalled(t, dir, "v1.2.3")
		if p, _ := os.ReadFile(filepath.Join(base, "github_path")); !strings.Contains(string(p), dir+"\n") {
			t.Errorf("GITHUB_PATH = %q; want it to list %s", p, dir)
		}

		// A cached install: the archive kept beside the binary is checked
		// against the checksums file, which is downloaded again, and the
		// binary extracted from it again.
		before := release.archiveDownloads("v1.2.3")
		stderr, err = runInstall(t, release, release.srv.URL, "v1.2.3", dir, path)
		if err != nil || !strings.Contains(stderr, "using the cached "+archive+" (SHA-256 checked)") || release.archiveDownloads("v1.2.3") != before {
			t.Errorf("second install: %v, %d archive downloads; want the cached archive\n%s", err, release.archiveDownloads("v1.2.3")-before, stderr)
		}

		// A binary replaced in the cache never runs: the checked archive's
		// replaces it.
		evil := filepath.Join(base, "evil-ran")
		writeTestFile(t, filepath.Join(dir, "wellknown"), []byte("#!/bin/sh\ntouch "+evil+"\necho 'wellknown v1.2.3 (evil)'\n"))
		if stderr, err = runInstall(t, release, release.srv.URL, "v1.2.3", dir, path); err != nil || strings.Contains(stderr, "evil") {
			t.Errorf("install over a replaced binary: %v\n%s", err, stderr)
		}
		checkInstalled(t, dir, "v1.2.3")
		if _, err := os.Stat(evil); err == nil {
			t.Error("the replaced binary in the cache ran")
		}

		// An archive replaced in the cache is downloaded again.
		writeTestFile(t, filepath.Join(dir, archive), tarGz(t, "wellknown", "#!/bin/sh\necho 'wellknown v1.2.3 (evil)'\n"))
		before = release.archiveDownloads("v1.2.3")
		stderr, err = runInstall(t, release, release.srv.URL, "v1.2.3", dir, path)
		if err != nil || !strings.Contains(stderr, "downloaded "+archive+" (SHA-256 checked)") || release.archiveDownloads("v1.2.3") != before+1 {
			t.Errorf("install over a replaced archive: %v\n%s", err, stderr)
		}
		checkInstalled(t, dir, "v1.2.3")
	})

	t.Run("version", func(t *testing.T) {
		for _, bad := range []string{"v1/../../x", "../v1.2.3", "1.2.3", "v1.2", "v01.2.3", "v1.2.3\n::error::x", "v1.2.3-", "v1.2.3+build", "v1.2.3 "} {
			dir := filepath.Join(base, "bad")
			before := release.requests.Load()
			stderr, err := runInstall(t, release, release.srv.URL, bad, dir, path)
			if err == nil || !strings.HasPrefix(stderr, "wellknown install: error: version ") || !strings.Contains(stderr, "is not a release tag such as v1.2.3 or v1.2.3-rc.1, nor latest") {
				t.Errorf("version %q: %v\n%s", bad, err, stderr)
			}
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("version %q: the error is not one line:\n%s", bad, stderr)
			}
			if _, err := os.Stat(dir); err == nil || release.requests.Load() != before {
				t.Errorf("version %q: the install directory was made or the release asked for", bad)
			}
		}
		for _, good := range []string{"v1.2.3", "v0.10.0-rc.1", "v2.0.0-beta-2.x", "latest"} {
			cmd := exec.Command("bash", filepath.Join("action", "install.sh"), "--check-version")
			cmd.Env = []string{"PATH=" + path, "WELLKNOWN_VERSION=" + good}
			if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
				t.Errorf("--check-version %s: %v\n%s", good, err, out)
			}
		}
	})

	t.Run("https only", func(t *testing.T) {
		var plainRequests atomic.Int32
		plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { plainRequests.Add(1) }))
		defer plain.Close()
		redirect := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, plain.URL+r.URL.Path, http.StatusFound)
		}))
		defer redirect.Close()
		writeTestFile(t, release.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: redirect.Certificate().Raw}))
		defer writeTestFile(t, release.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: release.srv.Certificate().Raw}))
		for name, url := range map[string]string{"http": plain.URL, "https to http": redirect.URL} {
			dir := filepath.Join(base, "http")
			stderr, err := runInstall(t, release, url, "v1.2.3", dir, path)
			if err == nil || !strings.Contains(stderr, "curl: (1) Protocol \"http\" not supported") {
				t.Errorf("%s: %v\n%s", name, err, stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "wellknown")); err == nil {
				t.Errorf("%s: installed", name)
			}
		}
		if n := plainRequests.Load(); n != 0 {
			t.Errorf("%d requests reached the plain http server", n)
		}
	})

	t.Run("checksum mismatch", func(t *testing.T) {
		dir := filepath.Join(base, "v1.2.4")
		stderr, err := runInstall(t, release, release.srv.URL, "v1.2.4", dir, path)
		if err == nil {
			t.Fatalf("install of an archive whose checksum does not match succeeded\n%s", stderr)
		}
		want := "wellknown install: error: checksum mismatch for wellknown_1.2.4_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz: wellknown_1.2.4_checksums.txt says "
		if !strings.Contains(stderr, want) || !strings.HasSuffix(stderr, "; not installed\n") {
			t.Errorf("stderr:\n%s\nwant a line starting %q", stderr, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "wellknown")); err == nil {
			t.Error("the archive whose checksum does not match was installed")
		}
	})

	t.Run("no release asset: go install", func(t *testing.T) {
		goBin, err := exec.LookPath("go")
		if err != nil {
			prereq.Missing(t, "no go command to install wellknown with")
		}
		proxy := fakeModuleProxy(t, "v1.9.8")
		dir := filepath.Join(base, "v1.9.8")
		// go install of the module from a local module proxy, on PATH
		// beside the tools the script needs.
		cmd := exec.Command("bash", filepath.Join("action", "install.sh"))
		cmd.Env = append(os.Environ(),
			"WELLKNOWN_VERSION=v1.9.8", "WELLKNOWN_INSTALL_DIR="+dir, "WELLKNOWN_RELEASES_URL="+release.srv.URL, "CURL_CA_BUNDLE="+release.caFile,
			"GOPROXY=file://"+filepath.ToSlash(proxy), "GOSUMDB=off", "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local",
			"GOMODCACHE="+t.TempDir(), "GITHUB_PATH=", "PATH="+filepath.Dir(goBin)+string(filepath.ListSeparator)+path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("install: %v\n%s", err, out)
		}
		want := "release v1.9.8 has no wellknown_1.9.8_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz; building it with go install github.com/wellknown-dev/wellknown@v1.9.8"
		if !strings.Contains(string(out), want) {
			t.Errorf("output:\n%s\nwant %q", out, want)
		}
		if got, err := exec.Command(filepath.Join(dir, "wellknown"), "version").Output(); err != nil || string(got) != "wellknown v1.9.8 (from the module proxy)\n" {
			t.Errorf("the installed wellknown says %q, %v", got, err)
		}

		// The build is used again, without go, while its SHA-256 is the
		// one recorded when it was built.
		stderr, err := runInstall(t, release, release.srv.URL, "v1.9.8", dir, path)
		if err != nil || !strings.Contains(stderr, "using the cached "+dir+"/wellknown, built with go install (SHA-256 checked)") {
			t.Errorf("cached build: %v\n%s", err, stderr)
		}
		writeTestFile(t, filepath.Join(dir, "wellknown"), []byte("#!/bin/sh\necho 'wellknown v1.9.8 (evil)'\n"))
		stderr, err = runInstall(t, release, release.srv.URL, "v1.9.8", dir, path)
		if err == nil || !strings.Contains(stderr, "there is no go command to build it with") {
			t.Errorf("replaced build: %v\n%s", err, stderr)
		}
	})

	t.Run("no release asset and no go", func(t *testing.T) {
		stderr, err := runInstall(t, release, release.srv.URL, "v9.9.9", filepath.Join(base, "v9.9.9"), path)
		want := "wellknown install: error: release v9.9.9 has no wellknown_9.9.9_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz, and there is no go command to build it with"
		if err == nil || !strings.Contains(stderr, want) {
			t.Errorf("install: %v\n%s\nwant %q", err, stderr, want)
		}
	})
}

// The Action's run step: each command's default arguments, the arguments
// given instead, one per line, and a command it does not run; the exit
// status is the command's, and is recorded as the step output exit-code.
func TestActionRun(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the run script's test runs on linux and darwin")
	}
	// The fake wellknown prints each argument in brackets and exits with
	// $EXIT.
	bin := t.TempDir()
	writeTestFile(t, filepath.Join(bin, "wellknown"), []byte("#!/bin/sh\nprintf 'wellknown'\nfor a in \"$@\"; do printf ' [%s]' \"$a\"; done\necho\nexit ${EXIT:-0}\n"))
	if err := os.Chmod(filepath.Join(bin, "wellknown"), 0o755); err != nil {
		t.Fatal(err)
	}
	runScript, err := filepath.Abs(filepath.Join("action", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		command, args, want string
		status              int
	}{
		{"build", "", "wellknown [build] [--strict] [--previous-live]\n", 0},
		{"build", "--strict\n--previous\npublic/old feed.xml\n", "wellknown [build] [--strict] [--previous] [public/old feed.xml]\n", 0},
		// A YAML "args: |" block: every line, a trailing newline, blank
		// lines and Windows line ends.
		{"build", "--strict\r\n\n  \n--previous-live\r\n", "wellknown [build] [--strict] [--previous-live]\n", 0},
		{"verify", "", "wellknown [verify] [public]\n", 0},
		{"verify", "https://mcp.example.org", "wellknown [verify] [https://mcp.example.org]\n", 0},
		{"check", "", "wellknown [check]\n", 0},
		{"sync", "--check\n--url\nhttps://mcp.example.org/mcp\n--header\nAuthorization: Bearer $TOKEN\n",
			"wellknown [sync] [--check] [--url] [https://mcp.example.org/mcp] [--header] [Authorization: Bearer $TOKEN]\n", 0},
		{"sync", "--check\n'--url'\n*", "wellknown [sync] [--check] ['--url'] [*]\n", 0},
		{"sync", "--check", "wellknown [sync] [--check]\n", 3},
		{"verify", "", "wellknown [verify] [public]\n", 1},
		{"keygen", "", "::error::the wellknown Action's command must be build, verify, check or sync (got keygen)\n", 2},
		{"keygen\n::warning::x", "", "::error::the wellknown Action's command must be build, verify, check or sync (got $'keygen\\n::warning::x')\n", 2},
	} {
		output := filepath.Join(t.TempDir(), "output")
		cmd := exec.Command("bash", runScript)
		cmd.Dir = t.TempDir() // where a "*" would match files
		writeTestFile(t, filepath.Join(cmd.Dir, "a-file"), nil)
		cmd.Env = append(os.Environ(), "COMMAND="+tc.command, "ARGS="+tc.args, "EXIT="+fmt.Sprint(tc.status), "GITHUB_OUTPUT="+output,
			"PATH="+bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
		out, err := cmd.Output()
		status := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			status = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if string(out) != tc.want || status != tc.status {
			t.Errorf("command %q, args %q: %q, exit %d; want %q, exit %d", tc.command, tc.args, out, status, tc.want, tc.status)
		}
		recorded, _ := os.ReadFile(output)
		if want := fmt.Sprintf("exit-code=%d\n", tc.status); tc.status != 2 && string(recorded) != want {
			t.Errorf("command %q, args %q: GITHUB_OUTPUT holds %q, want %q", tc.command, tc.args, recorded, want)
		}
	}
}
