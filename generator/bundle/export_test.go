package bundle

// SetTestHook lets the package's external tests stop a write at a file
// boundary; the returned function restores the hook.
func SetTestHook(hook func(event string)) (restore func()) {
	old := testHook
	testHook = hook
	return func() { testHook = old }
}
