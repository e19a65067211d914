package testtool

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAKilledChromiumLeavesNothingOutsideItsProfile starts Chromium twice
// with the temporary directory set to one of the test's own, and kills each
// with SIGKILL once it listens. Started from ChromiumProfile, nothing is
// left there once the test's cleanups have run; started with the test's
// environment, the singleton socket's directory is, which shows that the
// check can fail.
func TestAKilledChromiumLeavesNothingOutsideItsProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	bin := "/usr/lib/chromium/chromium"
	if p := os.Getenv("GLIMPSE_CHROME_PATH"); p != "" {
		bin = p
	}
	if _, err := os.Stat(bin); err != nil {
		Missingf(t, "Chromium is not installed: apt-get install chromium (%v)", err)
	}
	for _, tc := range []struct {
		name     string
		own      bool
		wantLeft bool
	}{
		{name: "from ChromiumProfile", own: true},
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
				var profile string
				var env []string
				if tc.own {
					profile, env = ChromiumProfile(t)
				} else {
					profile, env = t.TempDir(), os.Environ()
				}
				startChromium(t, bin, profile, env)
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

// startChromium starts the browser with env and a profile, waits until it
// listens, and kills its process group when the test ends.
func startChromium(t *testing.T, bin, profile string, env []string) {
	t.Helper()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir="+profile, "about:blank")
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	listening, done := make(chan struct{}), make(chan struct{})
	var tail []string
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "DevTools listening on ") {
				close(listening)
				break
			}
			tail = append(tail[max(0, len(tail)-9):], sc.Text())
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-listening:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		<-done
		t.Fatalf("Chromium did not listen within 30 s:\n%s", strings.Join(tail, "\n"))
	}
}
