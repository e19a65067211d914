package testtool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ChromiumProfile makes a profile directory for a Chromium a test starts
// itself, removed when the test ends, and the environment to start it
// with: the process's own, with TMPDIR and the XDG configuration and cache
// directories moved into the profile. Chromium makes its singleton socket's
// directory under $TMPDIR, outside the profile, and a browser killed at a
// test's end never removes it; with TMPDIR in the profile it goes with the
// profile. The sidecar starts its browsers the same way.
//
// The profile is a short path under the temporary directory, not the
// test's own: the socket's path must fit a Unix socket address (108
// bytes), and a test's name can be longer than that alone. Kill the
// browser in a cleanup registered after this call, so that it runs first.
func ChromiumProfile(tb testing.TB) (dir string, env []string) {
	tb.Helper()
	dir, err := os.MkdirTemp("", "glimpse-chromium-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	environ := os.Environ()
	env = make([]string, 0, len(environ)+3)
	for _, kv := range environ {
		if strings.HasPrefix(kv, "TMPDIR=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") || strings.HasPrefix(kv, "XDG_CACHE_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return dir, append(env, "TMPDIR="+dir, "XDG_CONFIG_HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
}
