package sidecar

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/gorilla/websocket"

	"github.com/glimpse/glimpse/cdp"
)

// These tests run the real Chromium.

func wsEndpoint(base string) string {
	return "ws" + strings.TrimPrefix(base, "http") + "/devtools/browser"
}

// dialDevTools connects a DevTools client through the sidecar's proxy.
func dialDevTools(t *testing.T, base string) *cdp.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := cdp.Dial(ctx, wsEndpoint(base))
	if err != nil {
		t.Fatalf("connecting to %s: %v", wsEndpoint(base), err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// createPage opens a blank page in a browser context of its own, as the
// pool does.
func createPage(t *testing.T, c *cdp.Conn) target.ID {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bc, err := cdp.Execute(ctx, c.Browser(), target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		t.Fatalf("creating a browser context: %v", err)
	}
	res, err := cdp.Execute(ctx, c.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank", BrowserContextID: bc.BrowserContextID})
	if err != nil {
		t.Fatalf("creating a page: %v", err)
	}
	return res.TargetID
}

// closePage disposes the page's browser context, which closes the page;
// closing a target directly is not a command glimpse sends.
func closePage(t *testing.T, c *cdp.Conn, id target.ID) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ts, err := cdp.Execute(ctx, c.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatalf("listing targets: %v", err)
	}
	for _, ti := range ts.TargetInfos {
		if ti.TargetID == id {
			if _, err := cdp.Execute(ctx, c.Browser(), target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: ti.BrowserContextID}); err != nil {
				t.Fatalf("closing page %s: %v", id, err)
			}
			return
		}
	}
	t.Fatalf("page %s is not among the browser's targets", id)
}

func currentProfile(s *Sidecar) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return ""
	}
	return s.cur.proc.profileDir
}

func TestSidecarServesHealthAndDevTools(t *testing.T) {
	s, srv := startSidecar(t, Config{})

	code, h := getHealth(t, srv.URL)
	if code != http.StatusOK || h.Status != StatusOK {
		t.Fatalf("/healthz = %d %+v, want 200 ok", code, h)
	}
	if !strings.Contains(h.Browser, "Chrome/") {
		t.Errorf("browser = %q, want a Chrome product version", h.Browser)
	}
	if h.Generation != 1 || h.Restarts != 0 || h.Recycles != 0 || h.MemoryBytes <= 0 || h.UptimeSeconds <= 0 {
		t.Errorf("health = %+v, want generation 1, no restarts, some memory and uptime", h)
	}
	if h.OpenPages != 0 || h.PagesCreated != 0 {
		t.Errorf("health = %+v, want the start-up page not counted", h)
	}
	if started := s.Health().StartedAt; started.IsZero() || started.After(time.Now()) {
		t.Errorf("the browser's start time is %v, want a moment before now", started)
	}

	c := dialDevTools(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := cdp.Execute(ctx, c.Browser(), browser.GetVersion, cdproto.Empty{})
	if err != nil {
		t.Fatalf("Browser.getVersion through the proxy: %v", err)
	}
	if v.Product != h.Browser {
		t.Errorf("Browser.getVersion through the proxy = %q, /healthz says %q", v.Product, h.Browser)
	}

	t.Run("/json/version points standard clients at the stable endpoint", func(t *testing.T) {
		resp, err := http.Get(srv.URL + "/json/version")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]string
		if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
			t.Fatal(err)
		}
		if v["Browser"] != h.Browser || v["webSocketDebuggerUrl"] != wsEndpoint(srv.URL) || v["User-Agent"] == "" {
			t.Errorf("/json/version = %v", v)
		}
	})

	id := createPage(t, c)
	eventually(t, 5*time.Second, "the page being counted", func() bool {
		h := s.Health()
		return h.OpenPages == 1 && h.PagesCreated == 1
	})
	closePage(t, c, id)
	eventually(t, 5*time.Second, "the closed page being uncounted", func() bool {
		h := s.Health()
		return h.OpenPages == 0 && h.PagesCreated == 1
	})
}

func TestSidecarRestartsChromiumThatWasKilled(t *testing.T) {
	s, srv := startSidecar(t, Config{})
	c := dialDevTools(t, srv.URL)
	oldPID, oldProfile := s.BrowserPID(), currentProfile(s)
	if oldPID == 0 || oldProfile == "" {
		t.Fatal("no browser after Start")
	}
	// The full browser links a socket directory outside the profile; the
	// headless shell keeps no singleton socket at all.
	oldSocket, err := os.Readlink(filepath.Join(oldProfile, "SingletonSocket"))
	if err != nil && !isHeadlessShell(s.cfg.ChromePath) {
		t.Fatalf("the profile has no singleton socket link: %v", err)
	}

	killedAt := time.Now()
	if err := syscall.Kill(oldPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}

	t.Run("the connected client is disconnected promptly", func(t *testing.T) {
		select {
		case <-c.Done():
			t.Logf("client disconnected %v after the kill", time.Since(killedAt).Round(time.Millisecond))
		case <-time.After(2 * time.Second):
			t.Fatal("the client's connection stayed open 2s after Chromium was killed")
		}
	})
	t.Run("the sidecar is healthy again within a few seconds", func(t *testing.T) {
		eventually(t, 10*time.Second, "/healthz answering ok again", func() bool {
			code, h := getHealth(t, srv.URL)
			return code == http.StatusOK && h.Generation == 2
		})
		t.Logf("healthy again %v after the kill", time.Since(killedAt).Round(time.Millisecond))
		h := s.Health()
		if h.Restarts != 1 || h.Recycles != 0 || h.Generation != 2 {
			t.Errorf("health = %+v, want 1 restart, no recycle, generation 2", h)
		}
		if !h.StartedAt.After(killedAt) {
			t.Errorf("the browser's start time is %v, want the restarted browser's, after the kill at %v", h.StartedAt, killedAt)
		}
		if pid := s.BrowserPID(); pid == oldPID || pid == 0 {
			t.Errorf("browser pid = %d, want a new one (old %d)", pid, oldPID)
		}
	})
	t.Run("no process of the old generation is left", func(t *testing.T) {
		if pids := liveProcessesWith(t, oldProfile); len(pids) > 0 {
			t.Errorf("processes %v of the killed generation are still alive", pids)
		}
		if ms, _ := members(procRoot, oldPID, ""); len(ms) > 0 {
			t.Errorf("processes %+v of the killed generation's group are still in /proc", ms)
		}
		if _, err := os.Stat(oldProfile); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the old profile directory %s is still there: %v", oldProfile, err)
		}
		if oldSocket == "" {
			// nothing outside the profile to check
		} else if _, err := os.Stat(filepath.Dir(oldSocket)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the old generation's socket directory %s is still there: %v", filepath.Dir(oldSocket), err)
		}
		if zs := ourZombies(t); len(zs) > 0 {
			t.Errorf("dead children %+v were not reaped", zs)
		}
	})
	t.Run("a new client reaches the new browser", func(t *testing.T) {
		c := dialDevTools(t, srv.URL)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := cdp.Execute(ctx, c.Browser(), browser.GetVersion, cdproto.Empty{}); err != nil {
			t.Fatalf("Browser.getVersion after the restart: %v", err)
		}
	})
}

func TestSidecarRecyclesAfterPages(t *testing.T) {
	const n = 3 // too few for the jitter to move the recycle point
	s, srv := startSidecar(t, Config{RecycleAfter: n, RecycleGrace: 20 * time.Second})
	c := dialDevTools(t, srv.URL)
	oldProfile := currentProfile(s)

	var pages []target.ID
	for range n {
		pages = append(pages, createPage(t, c))
	}
	eventually(t, 10*time.Second, "the next generation taking over", func() bool { return s.Health().Generation == 2 })

	t.Run("the sidecar stays ready while the old browser finishes its pages", func(t *testing.T) {
		code, h := getHealth(t, srv.URL)
		if code != http.StatusOK || h.Status != StatusOK || h.ReplacedGenerations != 1 || h.ReplacedPages != n || h.PagesCreated != 0 {
			t.Errorf("/healthz = %d %+v, want 200 ok on generation 2 with generation 1 finishing %d pages", code, h, n)
		}
		if h.Recycles != 1 || h.Restarts != 0 {
			t.Errorf("health = %+v, want 1 recycle and no restart", h)
		}
	})
	t.Run("a new client reaches the new browser at once", func(t *testing.T) {
		c2 := dialDevTools(t, srv.URL)
		id := createPage(t, c2)
		// The browser's event that counts a page may come a moment after
		// the reply that created it.
		eventually(t, 5*time.Second, "the new page counted in generation 2 only", func() bool {
			h := s.Health()
			return h.OpenPages == 1 && h.ReplacedPages == n
		})
		closePage(t, c2, id)
	})
	t.Run("a client that names an older generation is sent to read /healthz again", func(t *testing.T) {
		_, resp, err := websocket.DefaultDialer.Dial(wsEndpoint(srv.URL)+"?generation=1", nil)
		if err == nil || resp == nil || resp.StatusCode != http.StatusConflict {
			t.Errorf("connecting to generation 1 after the recycle: %v, %v; want 409", err, resp)
		}
	})
	t.Run("the open pages of the old browser keep working", func(t *testing.T) {
		for _, id := range pages {
			closePage(t, c, id)
		}
	})
	t.Run("once its client leaves the old browser is stopped", func(t *testing.T) {
		c.Close()
		eventually(t, 5*time.Second, "the old generation stopping", func() bool { return s.Health().ReplacedGenerations == 0 })
		if pids := liveProcessesWith(t, oldProfile); len(pids) > 0 {
			t.Errorf("processes %v of the recycled generation are still alive", pids)
		}
		if h := s.Health(); h.Status != StatusOK || h.Generation != 2 {
			t.Errorf("health = %+v, want ok on generation 2", h)
		}
	})
}

func TestSidecarStopsAnIdleReplacedBrowserAfterTheHandover(t *testing.T) {
	s, err := New(Config{ChromePath: requireChrome(t), RecycleAfter: 1, RecycleGrace: 20 * time.Second, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.handover = 300 * time.Millisecond
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	c := dialDevTools(t, srv.URL)
	closePage(t, c, createPage(t, c))
	// The client stays connected without pages: it must not hold the old
	// browser for the whole grace period.
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("an idle client kept the replaced browser running past the handover")
	}
	eventually(t, 5*time.Second, "the replaced browser being gone", func() bool { return s.Health().ReplacedGenerations == 0 })
	if h := s.Health(); h.Status != StatusOK || h.Generation != 2 {
		t.Errorf("health = %+v, want ok on generation 2", h)
	}
}

func TestSidecarRecyclesWhenTheGraceRunsOut(t *testing.T) {
	s, srv := startSidecar(t, Config{RecycleAfter: 1, RecycleGrace: 300 * time.Millisecond})
	c := dialDevTools(t, srv.URL)
	createPage(t, c) // left open on purpose
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the browser was not recycled although the grace period passed")
	}
	eventually(t, 10*time.Second, "a new generation being ready", func() bool {
		h := s.Health()
		return h.Status == StatusOK && h.Generation == 2
	})
	if h := s.Health(); h.Recycles != 1 || h.Restarts != 0 {
		t.Errorf("health = %+v, want 1 recycle and no restart", h)
	}
}

func TestSidecarRecyclesForMemory(t *testing.T) {
	requireChrome(t)
	s, err := New(Config{ChromePath: requireChrome(t), RecycleMemory: 1, RecycleGrace: time.Second, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.memoryEvery = 100 * time.Millisecond
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "a recycle for memory", func() bool { return s.Health().Recycles >= 1 })
	if h := s.Health(); h.Restarts != 0 {
		t.Errorf("health = %+v, want no crash restart", h)
	}
}

func TestSidecarCloseLeavesNothing(t *testing.T) {
	isolateTemp(t)
	before := profileDirs(t)
	s, srv := startSidecar(t, Config{})
	c := dialDevTools(t, srv.URL)
	pid, profile := s.BrowserPID(), currentProfile(s)

	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-c.Done():
	case <-time.After(2 * time.Second):
		t.Error("a client stayed connected after Close")
	}
	if pids := liveProcessesWith(t, profile); len(pids) > 0 {
		t.Errorf("processes %v are alive after Close", pids)
	}
	if ms, _ := members(procRoot, pid, ""); len(ms) > 0 {
		t.Errorf("processes %+v of the browser's group are still in /proc after Close", ms)
	}
	if zs := ourZombies(t); len(zs) > 0 {
		t.Errorf("dead children %+v were not reaped", zs)
	}
	for dir := range profileDirs(t) {
		if !before[dir] {
			t.Errorf("profile directory %s is left after Close", dir)
		}
	}
	if entries, _ := os.ReadDir(os.TempDir()); len(entries) > 0 {
		t.Errorf("Chromium left %v in its temporary directory after Close", entries)
	}
	if h := s.Health(); h.Status != StatusDown || s.BrowserPID() != 0 {
		t.Errorf("health after Close = %+v, pid %d; want down and no pid", h, s.BrowserPID())
	}
	if err := s.Start(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close = %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("a second Close = %v", err)
	}
}

func TestSidecarStartFailures(t *testing.T) {
	chrome := requireChrome(t)

	t.Run("a browser that cannot start is reported and the first start can be retried", func(t *testing.T) {
		marker := filepath.Join(t.TempDir(), "tried")
		// Fails on the first run, then is Chromium.
		script := writeScript(t, `
if [ ! -e "`+marker+`" ]; then
	touch "`+marker+`"
	echo "cannot open shared object file: libnss3.so" >&2
	exit 127
fi
exec "`+chrome+`" "$@"
`)
		s, err := New(Config{ChromePath: script, Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()

		err = s.Start(ctx)
		if err == nil || !strings.Contains(err.Error(), "exit status 127") || !strings.Contains(err.Error(), "libnss3.so") {
			t.Fatalf("first Start = %v, want the exit status and Chromium's words", err)
		}
		if h := s.Health(); h.Status != StatusDown || h.Generation != 0 {
			t.Errorf("health after a failed start = %+v, want down, generation 0", h)
		}
		if err := s.Start(ctx); err != nil {
			t.Fatalf("second Start: %v", err)
		}
		if h := s.Health(); h.Status != StatusOK || h.Generation != 1 {
			t.Errorf("health after the retried start = %+v, want ok, generation 1", h)
		}
		if err := s.Start(ctx); err == nil || !strings.Contains(err.Error(), "already started") {
			t.Errorf("a third Start = %v, want an error saying it is already started", err)
		}
	})

	t.Run("a start that hangs is bounded and leaves nothing", func(t *testing.T) {
		isolateTemp(t)
		before := profileDirs(t)
		s, err := New(Config{ChromePath: writeScript(t, "exec sleep 60"), StartTimeout: 300 * time.Millisecond, Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		err = s.Start(context.Background())
		if err == nil || !strings.Contains(err.Error(), "did not announce its DevTools endpoint in time") {
			t.Fatalf("Start = %v, want a timeout", err)
		}
		for dir := range profileDirs(t) {
			if !before[dir] {
				t.Errorf("profile directory %s is left after a failed start", dir)
			}
		}
	})

	t.Run("Close interrupts a start in progress", func(t *testing.T) {
		s, err := New(Config{ChromePath: writeScript(t, "exec sleep 60"), Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() { errc <- s.Start(context.Background()) }()
		time.Sleep(200 * time.Millisecond)
		closed := make(chan error, 1)
		go func() { closed <- s.Close() }()
		select {
		case err := <-errc:
			if !errors.Is(err, ErrClosed) {
				t.Errorf("Start = %v, want ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Start did not return after Close")
		}
		if err := <-closed; err != nil {
			t.Errorf("Close: %v", err)
		}
	})
}

func TestSidecarRestartsChromiumThatHangs(t *testing.T) {
	s, err := New(Config{ChromePath: requireChrome(t), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.probeEvery, s.probeWait = 200*time.Millisecond, 300*time.Millisecond
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid := s.BrowserPID()
	// A stopped browser keeps its sockets open but answers nothing, like a
	// hung one; only the probe can tell.
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "the hung browser being replaced", func() bool {
		h := s.Health()
		return h.Status == StatusOK && h.Generation == 2
	})
	if h := s.Health(); h.Restarts != 1 {
		t.Errorf("health = %+v, want 1 restart", h)
	}
	if st, err := readStat(procRoot, pid); err == nil {
		t.Errorf("the hung browser %d is still in /proc (state %c)", pid, st.state)
	}
}

func TestJitteredRecycleAfter(t *testing.T) {
	lowest := func(int) int { return 0 }
	highest := func(n int) int { return n - 1 }
	tests := []struct {
		name          string
		n             int
		wantLow, want int // the bounds, inclusive
	}{
		{name: "the default of 500 moves by up to 75 pages either way", n: 500, wantLow: 425, want: 575},
		{name: "50 moves by up to 7 pages either way", n: 50, wantLow: 43, want: 57},
		{name: "a point too small to move stays put", n: 5, wantLow: 5, want: 5},
		{name: "never recycling stays never", n: 0, wantLow: 0, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jitteredRecycleAfter(tt.n, lowest); got != tt.wantLow {
				t.Errorf("the lowest draw gives %d; want %d", got, tt.wantLow)
			}
			if got := jitteredRecycleAfter(tt.n, highest); got != tt.want {
				t.Errorf("the highest draw gives %d; want %d", got, tt.want)
			}
			seen := map[int]bool{}
			for range 2000 {
				got := jitteredRecycleAfter(tt.n, rand.IntN)
				if got < tt.wantLow || got > tt.want {
					t.Fatalf("a random draw gave %d, outside [%d, %d]", got, tt.wantLow, tt.want)
				}
				seen[got] = true
			}
			if tt.want > tt.wantLow && len(seen) < 2 {
				t.Errorf("2000 draws all gave %v; sidecars would still recycle together", seen)
			}
		})
	}
}
