package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wellknown-dev/wellknown/internal/prereq"
)

// fakeRelease serves releases the way GitHub does, one directory per tag:
// each tag's archive for this machine holds a wellknown script that prints
// the tag, and its checksums file lists the archive with the digest sums
// gives (the archive's own, when sums returns "").
type fakeRelease struct {
	srv      *httptest.Server
	requests atomic.Int32
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
	f := &fakeRelease{}
	files := http.FileServer(http.Dir(root))
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
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
// the PATH given, and returns its standard error.
func runInstall(t *testing.T, releases, version, dir, path string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join("action", "install.sh"))
	cmd.Env = []string{
		"PATH=" + path, "HOME=" + t.TempDir(),
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
	for _, tool := range []string{"bash", "curl", "tar", "gzip", "awk", "uname", "mktemp", "sha256sum", "chmod", "mkdir", "mv", "rm", "install", "env", "cat"} {
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
		stderr, err := runInstall(t, release.srv.URL, "v1.2.3", dir, path)
		if err != nil {
			t.Fatalf("install: %v\n%s", err, stderr)
		}
		if !strings.Contains(stderr, "installed wellknown_1.2.3_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz (SHA-256 checked)") {
			t.Errorf("stderr does not say what was installed:\n%s", stderr)
		}
		out, err := exec.Command(filepath.Join(dir, "wellknown"), "version").Output()
		if err != nil || !strings.HasPrefix(string(out), "wellknown v1.2.3 ") {
			t.Errorf("installed wellknown version: %q, %v", out, err)
		}
		if p, _ := os.ReadFile(filepath.Join(base, "github_path")); !strings.Contains(string(p), dir+"\n") {
			t.Errorf("GITHUB_PATH = %q; want it to list %s", p, dir)
		}

		before := release.requests.Load()
		stderr, err = runInstall(t, release.srv.URL, "v1.2.3", dir, path)
		if err != nil || !strings.Contains(stderr, "using the cached") || release.requests.Load() != before {
			t.Errorf("second install: %v, %d requests; want the cached binary and no download\n%s", err, release.requests.Load()-before, stderr)
		}
	})

	t.Run("checksum mismatch", func(t *testing.T) {
		dir := filepath.Join(base, "v1.2.4")
		stderr, err := runInstall(t, release.srv.URL, "v1.2.4", dir, path)
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
			"WELLKNOWN_VERSION=v1.9.8", "WELLKNOWN_INSTALL_DIR="+dir, "WELLKNOWN_RELEASES_URL="+release.srv.URL,
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
	})

	t.Run("no release asset and no go", func(t *testing.T) {
		stderr, err := runInstall(t, release.srv.URL, "v9.9.9", filepath.Join(base, "v9.9.9"), path)
		want := "wellknown install: error: release v9.9.9 has no wellknown_9.9.9_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz, and there is no go command to build it with"
		if err == nil || !strings.Contains(stderr, want) {
			t.Errorf("install: %v\n%s\nwant %q", err, stderr, want)
		}
	})
}

// The Action's run step: each command's default arguments, the arguments
// given instead, and a command it does not run.
func TestActionRun(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the run script's test runs on linux and darwin")
	}
	bin := t.TempDir()
	writeTestFile(t, filepath.Join(bin, "wellknown"), []byte("#!/bin/sh\necho \"wellknown $*\"\n"))
	if err := os.Chmod(filepath.Join(bin, "wellknown"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		command, args, want string
		status              int
	}{
		{"build", "", "wellknown build --strict --previous-live\n", 0},
		{"build", "--strict --previous  public/old-feed.xml", "wellknown build --strict --previous public/old-feed.xml\n", 0},
		{"verify", "", "wellknown verify public\n", 0},
		{"verify", "https://mcp.example.org", "wellknown verify https://mcp.example.org\n", 0},
		{"check", "", "wellknown check\n", 0},
		{"sync", "--check --url https://mcp.example.org/mcp", "wellknown sync --check --url https://mcp.example.org/mcp\n", 0},
		{"keygen", "", "::error::the wellknown Action's command must be build, verify, check or sync (got \"keygen\")\n", 2},
	} {
		cmd := exec.Command("bash", filepath.Join("action", "run.sh"))
		cmd.Env = append(os.Environ(), "COMMAND="+tc.command, "ARGS="+tc.args,
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
			t.Errorf("command %s, args %q: %q, exit %d; want %q, exit %d", tc.command, tc.args, out, status, tc.want, tc.status)
		}
	}
}
