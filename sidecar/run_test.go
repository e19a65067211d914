package sidecar

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/glimpse/glimpse/cdp"
)

// countingServer serves body on a loopback address of its own and counts
// the requests it sees.
func countingServer(t *testing.T, host, body string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, body)
	}))
	ln := listenBelowEphemeral(t, host)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &hits
}

// listenBelowEphemeral listens on host at a port below the kernel's
// ephemeral range. The guard refuses the sidecar's ports on every loopback
// address, so a server on 127.0.0.2 must not draw, by chance, the port the
// kernel gave the sidecar or Chromium on 127.0.0.1.
func listenBelowEphemeral(t *testing.T, host string) net.Listener {
	t.Helper()
	for port := 20000 + rand.IntN(10000); ; port++ {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err == nil {
			return ln
		}
		if port >= 32000 {
			t.Fatalf("listening on %s: %v", host, err)
		}
	}
}

func TestRunServesASidecarBehindTheEgressGuard(t *testing.T) {
	chrome := requireChrome(t)
	isolateTemp(t)
	before := profileDirs(t)

	internal, internalHits := countingServer(t, "127.0.0.3", "secret")
	public, publicHits := countingServer(t, "127.0.0.2",
		fmt.Sprintf(`<html><body><img src="%s/pixel.png"><script>fetch(%q).catch(() => {})</script></body></html>`, internal.URL, internal.URL+"/api"))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := RunConfig{
		Sidecar:      Config{ChromePath: chrome, Logger: testLogger(t)},
		AllowTargets: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")},
		Listener:     ln,
		Metrics:      http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "metrics go here") }),
	}
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	base := "http://" + ln.Addr().String()

	eventually(t, 30*time.Second, "/healthz answering ok", func() bool {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})

	t.Run("metrics are mounted beside the sidecar's own endpoints", func(t *testing.T) {
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "metrics go here" {
			t.Errorf("/metrics = %d %q", resp.StatusCode, b)
		}
	})

	c := dialDevTools(t, base)
	navigate := func(t *testing.T, url string) string {
		t.Helper()
		nctx, ncancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer ncancel()
		sess, err := c.Attach(nctx, createPage(t, c))
		if err != nil {
			t.Fatalf("attaching to the page: %v", err)
		}
		res, err := cdp.Execute(nctx, sess, page.Navigate, page.NavigateParams{URL: url})
		if err != nil {
			t.Fatalf("navigating to %s: %v", url, err)
		}
		return res.ErrorText
	}

	t.Run("a page from an allowed address loads, its requests to a refused one do not leave", func(t *testing.T) {
		if errText := navigate(t, public.URL); errText != "" {
			t.Fatalf("navigating to the allowed server failed: %s", errText)
		}
		eventually(t, 10*time.Second, "the guard refusing the image and the fetch", func() bool { return srv.Guard().Refused() >= 2 })
		if publicHits.Load() == 0 {
			t.Error("the allowed server saw no request")
		}
		if n := internalHits.Load(); n != 0 {
			t.Errorf("the refused server saw %d requests", n)
		}
	})
	t.Run("navigating to a refused address is refused by the guard without reaching it", func(t *testing.T) {
		// For plain http Chromium shows the guard's 403 page, so the
		// navigation itself may "succeed"; what matters is who answered.
		before := srv.Guard().Refused()
		navigate(t, internal.URL)
		if srv.Guard().Refused() <= before {
			t.Error("the guard did not refuse the navigation")
		}
		if n := internalHits.Load(); n != 0 {
			t.Errorf("the refused server saw %d requests", n)
		}
	})

	pid, profile := srv.Sidecar().BrowserPID(), currentProfile(srv.Sidecar())
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v, want nil after a clean stop", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	t.Run("stopping leaves no browser, no profile and no listener", func(t *testing.T) {
		if pids := liveProcessesWith(t, profile); len(pids) > 0 {
			t.Errorf("processes %v are alive after Run returned", pids)
		}
		if ms, _ := members(procRoot, pid, ""); len(ms) > 0 {
			t.Errorf("processes %+v of the browser's group are still in /proc", ms)
		}
		for dir := range profileDirs(t) {
			if !before[dir] {
				t.Errorf("profile directory %s is left after Run returned", dir)
			}
		}
		if _, err := http.Get(base + "/healthz"); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("GET /healthz after Run returned = %v, want connection refused", err)
		}
		select {
		case <-c.Done():
		default:
			t.Error("the DevTools client is still connected after Run returned")
		}
	})
}

func TestRunFailsOnABadListenAddress(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	err = Run(context.Background(), RunConfig{Sidecar: Config{
		Addr: busy.Addr().String(), ChromePath: writeScript(t, "exit 1"), Logger: testLogger(t),
	}})
	if err == nil || !strings.Contains(err.Error(), "GLIMPSE_SIDECAR_ADDR") || !strings.Contains(err.Error(), busy.Addr().String()) {
		t.Fatalf("Run = %v, want an error naming the address and its variable", err)
	}
}

func TestNewServerRefusesABadConfig(t *testing.T) {
	_, err := NewServer(RunConfig{Sidecar: Config{ChromePath: "/nonexistent/chromium", Logger: testLogger(t)}})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/chromium") {
		t.Fatalf("NewServer = %v, want an error naming the binary", err)
	}
}
