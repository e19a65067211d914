package testtool

import (
	"os"
	"strings"
	"testing"
)

// chromiumTestFlags are the flags the browser runs with here.
var chromiumTestFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0"}

// TestAKilledChromiumLeavesNothingOutsideItsProfile starts Chromium twice
// with the temporary directory set to one of the test's own, and kills each
// with SIGKILL once it listens. Started by StartChromium, nothing is left
// there once the test's cleanups have run; started with the test's
// environment, the singleton socket's directory is, which shows that the
// check can fail.
func TestAKilledChromiumLeavesNothingOutsideItsProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	bin := ChromiumPath(t)
	for _, tc := range []struct {
		name     string
		own      bool
		wantLeft bool
	}{
		{name: "from StartChromium", own: true},
		{name: "with the test's environment", wantLeft: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Short, for the socket's path; removed whatever is in it.
			tmp, err := os.MkdirTemp("", "tt-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(tmp)
			t.Setenv("TMPDIR", tmp)
			// The subtest's cleanups (the browser's kill, then the
			// profile's removal) run before the directory is read.
			t.Run("browser", func(t *testing.T) {
				if tc.own {
					StartChromium(t, bin, chromiumTestFlags...)
					return
				}
				args := append(chromiumTestFlags[:len(chromiumTestFlags):len(chromiumTestFlags)], "--user-data-dir="+t.TempDir(), "about:blank")
				startChromium(t, bin, os.Environ(), args)
			})
			left, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range left {
				names = append(names, e.Name())
			}
			socketDir := len(names) == 1 && strings.HasPrefix(names[0], "org.chromium.Chromium.")
			if tc.wantLeft && !socketDir || !tc.wantLeft && len(names) > 0 {
				t.Fatalf("left in the temporary directory: %q; want Chromium's socket directory left: %v", names, tc.wantLeft)
			}
		})
	}
}
