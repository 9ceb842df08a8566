package inputfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/wellknown-dev/wellknown/internal/diag"
)

// tree makes a repository root holding a.txt, sub/b.txt and the given
// extras, and a directory outside it holding secret.txt.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside = filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, ".git"), filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		filepath.Join(root, "a.txt"):         "a",
		filepath.Join(root, "sub", "b.txt"):  "bb",
		filepath.Join(outside, "secret.txt"): "secret",
	} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func TestReadFile(t *testing.T) {
	root, outside := tree(t)
	link := func(target, name string) string {
		p := filepath.Join(root, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(root, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want, err string
	}{
		{"regular file", filepath.Join(root, "a.txt"), "a", ""},
		{"symlink inside the repository", link("sub/b.txt", "b-link.txt"), "bb", ""},
		{"symlink out of the repository", link(filepath.Join(outside, "secret.txt"), "secret.txt"), "",
			"is a symlink to " + filepath.Join(outside, "secret.txt") + ", outside the repository"},
		{"relative symlink out of the repository", link("../outside/secret.txt", "rel.txt"), "",
			"is a symlink to ../outside/secret.txt, outside the repository"},
		{"through a symlinked directory", filepath.Join(link(outside, "out-dir"), "secret.txt"), "",
			"leads through a symlinked directory to " + filepath.Join(outside, "secret.txt") + ", outside the repository"},
		{"device", link("/dev/zero", "zero"), "", "is a symlink to /dev/zero, outside the repository"},
		{"FIFO", fifo, "", "is a FIFO, not a regular file"},
		{"directory", filepath.Join(root, "sub"), "", "is a directory, not a regular file"},
		{"cycle of symlinks", link("cycle", "cycle"), "", "too many levels of symbolic links"},
		{"over the cap", filepath.Join(root, "sub", "b.txt"), "", "is larger than the limit of 1 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			max := int64(10)
			if tc.name == "over the cap" {
				max = 1
			}
			got, err := ReadFile(root, tc.path, max)
			if tc.err == "" {
				if err != nil || string(got) != tc.want {
					t.Errorf("ReadFile = %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != tc.path || pe.Err.Error() != tc.err {
				t.Errorf("ReadFile error = %v; want %s: %s", err, tc.path, tc.err)
			}
		})
	}
}

func TestReadFileMissing(t *testing.T) {
	root, _ := tree(t)
	if _, err := ReadFile(root, filepath.Join(root, "absent"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file = %v, want fs.ErrNotExist", err)
	}
}

func TestRepoRoot(t *testing.T) {
	root, outside := tree(t)
	for dir, want := range map[string]string{root: root, filepath.Join(root, "sub"): root, outside: outside} {
		if got, err := RepoRoot(dir); err != nil || got != want {
			t.Errorf("RepoRoot(%s) = %s, %v; want %s", dir, got, err, want)
		}
	}
}

func TestFS(t *testing.T) {
	root, outside := tree(t)
	fsys := NewFiles().FS(root, root, 10, Secret{})
	if err := fstest.TestFS(fsys, "a.txt", "sub/b.txt"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "sub", "out")); err != nil {
		t.Fatal(err)
	}
	// A link to a file outside, in a directory already read from (whose
	// real path the FS has kept).
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "sub", "leak.txt")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sub/out", "sub/out/secret.txt", "sub/leak.txt"} {
		_, err := fs.ReadFile(fsys, name)
		var d *diag.Error
		if !errors.As(err, &d) || d.File != filepath.Join(root, filepath.FromSlash(name)) || !strings.Contains(d.Msg, "outside the repository") {
			t.Errorf("ReadFile(%s) = %v, want a located refusal", name, err)
		}
	}
	if _, err := fsys.Open("sub/out"); err == nil {
		t.Error("opened a directory outside the repository")
	}
	if _, err := fs.ReadFile(fsys, "absent"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file = %v, want fs.ErrNotExist", err)
	}
}

func TestWithin(t *testing.T) {
	sep := string(filepath.Separator)
	dir := filepath.Join(sep+"repo", "site")
	for _, tc := range []struct {
		dir, path string
		want      bool
	}{
		{dir, dir, true},
		{dir, filepath.Join(dir, "content", "a.md"), true},
		{dir, dir + "s", false},
		{dir, filepath.Dir(dir), false},
		{dir, filepath.Join(sep+"other", "site"), false},
		{sep, filepath.Join(sep+"repo", "a.md"), true},
	} {
		if got := Within(tc.dir, tc.path); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.dir, tc.path, got, tc.want)
		}
	}
}

// A Secret is refused by every name that leads to it: its own path, a
// symlink, a symlinked directory on the way, a hard link, through a Reader
// and through an FS, the first read and a read of a file kept by Files.
func TestSecretRefusedByIdentity(t *testing.T) {
	root, _ := tree(t)
	key := filepath.Join(root, "keys", "signing.key")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"sub/link.key": "../keys/signing.key", "assets": "keys"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(key, filepath.Join(root, "sub", "hard.txt")); err != nil {
		t.Fatal(err)
	}
	secret := NewSecret(key, "the signing key keys/signing.key")
	files := NewFiles()
	fsys := files.FS(root, root, MaxSize, secret)
	for _, name := range []string{"keys/signing.key", "sub/link.key", "assets/signing.key", "sub/hard.txt"} {
		for range 2 {
			_, err := files.NewReader(root, secret).ReadFile(filepath.Join(root, filepath.FromSlash(name)), MaxSize)
			if err == nil || !strings.Contains(err.Error(), "is the signing key keys/signing.key under another name") {
				t.Errorf("Reader.ReadFile(%s) = %v, want the secret refused", name, err)
			}
			if _, err := fs.ReadFile(fsys, name); err == nil || !strings.Contains(err.Error(), "is the signing key") {
				t.Errorf("FS ReadFile(%s) = %v, want the secret refused", name, err)
			} else if !strings.Contains(diag.Hint(err), "make a new key") {
				t.Errorf("FS ReadFile(%s): hint %q, want the fix", name, diag.Hint(err))
			}
		}
	}
	if data, err := fs.ReadFile(fsys, "sub/b.txt"); err != nil || string(data) != "bb" {
		t.Errorf("another file: %q, %v", data, err)
	}
	if _, err := files.NewReader(root, Secret{}).ReadFile(key, MaxSize); err != nil {
		t.Errorf("the zero Secret refuses %v", err)
	}
}
