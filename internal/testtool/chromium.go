package testtool

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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

// ChromiumPath finds the browser a test starts itself: GLIMPSE_CHROME_PATH,
// then Debian's Chromium, then a Chromium or Chrome on PATH. Without one
// the test is skipped under -short and fails otherwise, with the command
// that installs it.
func ChromiumPath(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("GLIMPSE_CHROME_PATH"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/lib/chromium/chromium"); err == nil {
		return "/usr/lib/chromium/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Missingf(tb, "Chromium is not installed: apt-get install chromium, or point GLIMPSE_CHROME_PATH at a Chromium binary")
	return ""
}

// StartChromium starts the browser at bin with flags (the test's own:
// headless, the DevTools port), a profile of its own from ChromiumProfile
// and about:blank, in a process group of its own that dies with the test
// binary. It returns the browser's DevTools address (ws://…) and a func
// that kills the group early; the test's end kills it, then removes the
// profile.
func StartChromium(tb testing.TB, bin string, flags ...string) (wsURL string, kill func()) {
	tb.Helper()
	profile, env := ChromiumProfile(tb)
	return startChromium(tb, bin, env, append(append(flags[:len(flags):len(flags)], "--user-data-dir="+profile), "about:blank"))
}

// devtoolsLine is what Chromium prints on stderr once DevTools listens.
var devtoolsLine = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// chromiumStartTimeout bounds the wait for the DevTools line.
const chromiumStartTimeout = 30 * time.Second

func startChromium(tb testing.TB, bin string, env, args []string) (wsURL string, kill func()) {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting Chromium at %s: %v (install the Debian package chromium)", bin, err)
	}
	found, read := make(chan string, 1), make(chan struct{})
	var (
		mu   sync.Mutex
		tail []string // the last lines, for a failure message
	)
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if m := devtoolsLine.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
			mu.Lock()
			tail = append(tail[max(0, len(tail)-19):], line)
			mu.Unlock()
		}
	}()
	var once sync.Once
	kill = func() {
		once.Do(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-read
			_ = cmd.Wait()
		})
	}
	tb.Cleanup(kill)
	select {
	case wsURL = <-found:
		return wsURL, kill
	case <-read:
	case <-time.After(chromiumStartTimeout):
	}
	kill()
	mu.Lock()
	defer mu.Unlock()
	tb.Fatalf("Chromium at %s printed no DevTools address within %v; its stderr ended with:\n%s", bin, chromiumStartTimeout, strings.Join(tail, "\n"))
	return "", nil
}
