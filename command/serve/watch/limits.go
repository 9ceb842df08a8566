package watch

import (
	"errors"
	"runtime"
	"syscall"

	"github.com/wellknown-dev/wellknown/internal/diag"
)

// describe turns a watching error into a *diag.Error about path (empty: the
// watcher as a whole). An exhausted limit gets its fix: the kernel reports it
// misleadingly ("no space left on device", "too many open files").
func describe(path string, err error) error {
	cause := diag.Cause(err)
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return diag.Errorf(path, 0, "cannot watch for changes: the limit of inotify watches is reached (%v)", cause).
			WithHint("raise it: sudo sysctl fs.inotify.max_user_watches=524288 (add the setting to /etc/sysctl.d/ to keep it), or run with --poll")
	case errors.Is(err, syscall.EMFILE) && runtime.GOOS == "linux":
		return diag.Errorf(path, 0, "cannot watch for changes: too many inotify instances or open files (%v)", cause).
			WithHint("raise the limit: sudo sysctl fs.inotify.max_user_instances=1024 (or ulimit -n 65536), or run with --poll")
	case errors.Is(err, syscall.EMFILE):
		// kqueue (macOS, BSD) needs one open file per watched file.
		return diag.Errorf(path, 0, "cannot watch for changes: too many open files (%v)", cause).
			WithHint("raise the open-file limit: ulimit -n 65536, or run with --poll")
	}
	return diag.Errorf(path, 0, "cannot watch for changes: %v", cause)
}
