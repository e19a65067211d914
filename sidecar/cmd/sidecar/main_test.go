package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/gorilla/websocket"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/pool"
	"github.com/glimpse/glimpse/sidecar"
)

// These tests run the sidecar as its own process, as a cluster runs it: the
// test binary starts itself again with childEnv set, and that copy runs
// main.

const childEnv = "GLIMPSE_SIDECAR_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const token = "process-test-token-0123456789"

// syncBuffer collects the child's log while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// child is a running sidecar process.
type child struct {
	addr string // host:port of its listener
	tmp  string // its TMPDIR, where Chromium's profiles are
	log  *syncBuffer
	cmd  *exec.Cmd
}

// command prepares the sidecar process with env on top of a clean
// environment: no GLIMPSE_ variable of the test's own leaks in.
func command(t *testing.T, env ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GLIMPSE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, childEnv+"=1")
	cmd.Env = append(cmd.Env, env...)
	log := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	return cmd, log
}

// startChild runs a sidecar process with the token and a loopback
// allow-list, and waits until its browser is ready.
func startChild(t *testing.T) *child {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a sidecar process with Chromium; skipped with -short")
	}
	if _, err := sidecar.FindChrome(); err != nil {
		t.Fatalf("this test needs Chromium: %v", err)
	}
	// A short path of its own: Chromium puts a Unix socket under it.
	tmp, err := os.MkdirTemp("", "scp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	addr := freeAddr(t)
	cmd, log := command(t,
		"GLIMPSE_SIDECAR_ADDR="+addr,
		"GLIMPSE_SIDECAR_TOKEN="+token,
		"GLIMPSE_ALLOW_TARGETS=127.0.0.0/8,::1/128",
		"GLIMPSE_RECYCLE_AFTER=0",
		"GLIMPSE_LOG_LEVEL=info",
		"TMPDIR="+tmp,
	)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{addr: addr, tmp: tmp, log: log, cmd: cmd}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the sidecar process ended with %v; its log:\n%s", err, log)
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("the sidecar process did not stop within 30s of SIGTERM")
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return c
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sidecar process was not ready within 60s; its log:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func (c *child) port() string {
	_, p, _ := net.SplitHostPort(c.addr)
	return p
}

// dial opens a DevTools connection with the token.
func (c *child) dial(t *testing.T) *cdp.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := cdp.Dial(ctx, "ws://"+c.addr+"/devtools/browser",
		cdp.WithHeader(http.Header{"Authorization": {"Bearer " + token}}), cdp.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatalf("connecting with the token: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// refusals reads glimpse_sidecar_cdp_refusals_total by reason from /metrics.
func (c *child) refusals(t *testing.T) map[string]int {
	t.Helper()
	resp, err := http.Get("http://" + c.addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), `glimpse_sidecar_cdp_refusals_total{reason="`)
		if !ok {
			continue
		}
		reason, value, _ := strings.Cut(line, `"} `)
		n, _ := strconv.ParseFloat(value, 64)
		out[reason] = int(n)
	}
	return out
}

// devToolsActivePort reads the port and browser path Chromium wrote into
// its profile.
func (c *child) devToolsActivePort(t *testing.T) (port, path string) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(c.tmp, "glimpse-chromium-*"))
	if len(dirs) != 1 {
		t.Fatalf("found profiles %v, want one", dirs)
	}
	b, err := os.ReadFile(filepath.Join(dirs[0], "DevToolsActivePort"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(b))
	if len(lines) != 2 {
		t.Fatalf("DevToolsActivePort holds %q", b)
	}
	return lines[0], lines[1]
}

func TestTheSidecarRefusesToStartWithoutAToken(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"without GLIMPSE_SIDECAR_TOKEN it exits naming the variable", nil, "GLIMPSE_SIDECAR_TOKEN is not set"},
		{"with a short token it exits asking for a longer one", []string{"GLIMPSE_SIDECAR_TOKEN=short"}, "at least 16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, log := command(t, append(tc.env, "GLIMPSE_SIDECAR_ADDR=127.0.0.1:0", "GLIMPSE_CHROME_PATH=/nonexistent")...)
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("the sidecar ended with %v, want exit status 2; its output:\n%s", err, log)
			}
			if !strings.Contains(log.String(), tc.want) {
				t.Errorf("its output does not say %q:\n%s", tc.want, log)
			}
		})
	}
}

func TestTheSidecarProcessLetsOnlyTheOrchestratorDriveItsBrowser(t *testing.T) {
	c := startChild(t)
	ws := "ws://" + c.addr + "/devtools/browser"

	t.Run("an unauthenticated WebSocket is refused with 401", func(t *testing.T) {
		for name, h := range map[string]http.Header{
			"no token":    nil,
			"wrong token": {"Authorization": {"Bearer not-the-token-0123456789"}},
			"basic":       {"Authorization": {"Basic Z2xpbXBzZTpwcm9jZXNzLXRlc3QtdG9rZW4tMDEyMzQ1Njc4OQ=="}},
		} {
			conn, resp, err := websocket.DefaultDialer.Dial(ws, h)
			if conn != nil {
				conn.Close()
			}
			if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
				code := 0
				if resp != nil {
					code = resp.StatusCode
				}
				t.Errorf("%s: the handshake got %d (%v), want 401", name, code, err)
			}
		}
	})
	t.Run("an authenticated WebSocket drives the browser", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		v, err := cdp.Execute(ctx, c.dial(t).Browser(), browser.GetVersion, cdproto.Empty{})
		if err != nil || !strings.Contains(v.Product, "Chrome") {
			t.Fatalf("Browser.getVersion = %+v, %v", v, err)
		}
	})
	t.Run("health and metrics need no token, the version endpoint does", func(t *testing.T) {
		for path, want := range map[string]int{"/healthz": 200, "/metrics": 200, "/json/version": 401} {
			resp, err := http.Get("http://" + c.addr + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("GET %s = %d, want %d", path, resp.StatusCode, want)
			}
		}
	})

	t.Run("an unauthenticated CONNECT is refused before anything is dialled", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		accepted := make(chan struct{}, 8)
		go func() {
			for {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				accepted <- struct{}{}
				conn.Close()
			}
		}()
		for _, tc := range []struct {
			name, auth string
			want       int
		}{
			{"without a token", "", http.StatusProxyAuthRequired},
			{"with a wrong token", "Proxy-Authorization: Bearer not-the-token-0123456789\r\n", http.StatusProxyAuthRequired},
			{"with the token", "Proxy-Authorization: Bearer " + token + "\r\n", http.StatusOK},
		} {
			conn, err := net.Dial("tcp", c.addr)
			if err != nil {
				t.Fatal(err)
			}
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", ln.Addr(), ln.Addr(), tc.auth)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			conn.Close()
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if resp.StatusCode != tc.want {
				t.Errorf("CONNECT %s = %d, want %d", tc.name, resp.StatusCode, tc.want)
			}
			if tc.want != http.StatusOK {
				select {
				case <-accepted:
					t.Errorf("CONNECT %s reached the target", tc.name)
				case <-time.After(200 * time.Millisecond):
				}
			}
		}
	})

	t.Run("a leased context cannot create a context with its own proxy", func(t *testing.T) {
		// A proxy that would carry the context's traffic around the guard.
		rogue, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer rogue.Close()
		reached := make(chan struct{}, 8)
		go func() {
			for {
				conn, err := rogue.Accept()
				if err != nil {
					return
				}
				reached <- struct{}{}
				conn.Close()
			}
		}()
		p, err := pool.New(pool.Config{Sidecars: c.addr, SidecarToken: token, Warm: -1, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := p.Start(ctx); err != nil {
			t.Fatal(err)
		}
		l, err := p.Lease(ctx)
		if err != nil {
			t.Fatalf("leasing with the token: %v", err)
		}
		defer l.Release()
		before := c.refusals(t)["proxy"]
		_, err = cdp.Execute(ctx, l.Browser, target.CreateBrowserContext, target.CreateBrowserContextParams{
			ProxyServer: "http://" + rogue.Addr().String(), ProxyBypassList: "<-loopback>",
		})
		var cerr *cdp.Error
		if !errors.As(err, &cerr) {
			t.Fatalf("creating a context with a proxy of its own = %v, want a DevTools error", err)
		}
		if got := c.refusals(t)["proxy"]; got != before+1 {
			t.Errorf("proxy refusals went from %d to %d, want one more", before, got)
		}
		// The lease itself still works, and an unfiltered lease, whose
		// context names the sidecar's own guard, is still allowed.
		if _, err := cdp.Execute(ctx, l.Session, runtime.Evaluate, runtime.EvaluateParams{Expression: "1"}); err != nil {
			t.Errorf("the lease stopped working after the refusal: %v", err)
		}
		u, err := p.LeaseWith(ctx, pool.LeaseOptions{Unfiltered: true})
		if err != nil {
			t.Fatalf("an unfiltered lease through the sidecar's own guard was refused: %v", err)
		}
		u.Release()
		select {
		case <-reached:
			t.Error("the rogue proxy was reached")
		default:
		}
	})

	t.Run("each refused command gets a DevTools error and is counted", func(t *testing.T) {
		conn := c.dial(t)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		pageSession, err := conn.Attach(ctx, newPage(t, conn))
		if err != nil {
			t.Fatal(err)
		}
		type params = map[string]any
		tests := []struct {
			name    string
			page    bool
			method  string
			params  any
			reason  string
			errCode int64
		}{
			{"a browser context with its own proxy server", false, "Target.createBrowserContext", params{"proxyServer": "http://203.0.113.7:3128"}, "proxy", -32602},
			{"a browser context with a proxy bypass list", false, "Target.createBrowserContext", params{"proxyBypassList": "*"}, "proxy", -32602},
			{"downloads allowed into a path", false, "Browser.setDownloadBehavior", params{"behavior": "allow", "downloadPath": "/tmp"}, "download", -32602},
			{"the page's download path", true, "Page.setDownloadBehavior", params{"behavior": "allow", "downloadPath": "/tmp"}, "method", -32601},
			{"exposing the protocol to a page", false, "Target.exposeDevToolsProtocol", params{"targetId": "x"}, "method", -32601},
			{"closing the browser", false, "Browser.close", params{}, "method", -32601},
			{"crashing the browser", false, "Browser.crash", params{}, "method", -32601},
			{"reading system information", false, "SystemInfo.getInfo", params{}, "method", -32601},
			{"listing the machine's processes", false, "SystemInfo.getProcessInfo", params{}, "method", -32601},
			{"binding a port with tethering", false, "Tethering.bind", params{"port": 9333}, "method", -32601},
			{"navigating to the service account token", true, "Page.navigate", params{"url": "file:///var/run/secrets/kubernetes.io/serviceaccount/token"}, "url", -32602},
			{"navigating to /etc/passwd behind a tab", true, "Page.navigate", params{"url": "\tfile:///etc/passwd"}, "url", -32602},
			{"a page on a file", false, "Target.createTarget", params{"url": "file:///etc/passwd"}, "url", -32602},
			{"a page on a data URL", false, "Target.createTarget", params{"url": "data:text/html,<h1>x</h1>"}, "url", -32602},
		}
		for _, tc := range tests {
			t.Run(tc.name+" is refused", func(t *testing.T) {
				before := c.refusals(t)[tc.reason]
				sess := conn.Browser()
				if tc.page {
					sess = pageSession
				}
				err := sess.Call(ctx, tc.method, tc.params, nil)
				var cerr *cdp.Error
				if !errors.As(err, &cerr) || cerr.Code != tc.errCode {
					t.Fatalf("%s = %v, want a DevTools error with code %d", tc.method, err, tc.errCode)
				}
				if got := c.refusals(t)[tc.reason]; got != before+1 {
					t.Errorf("refusals for %q went from %d to %d, want one more", tc.reason, before, got)
				}
			})
		}
		t.Run("the browser is still up and no page shows a file", func(t *testing.T) {
			if _, err := cdp.Execute(ctx, conn.Browser(), browser.GetVersion, cdproto.Empty{}); err != nil {
				t.Fatalf("the browser stopped answering: %v", err)
			}
			ts, err := cdp.Execute(ctx, conn.Browser(), target.GetTargets, target.GetTargetsParams{})
			if err != nil {
				t.Fatal(err)
			}
			for _, ti := range ts.TargetInfos {
				if strings.HasPrefix(ti.URL, "file:") {
					t.Errorf("target %s shows %s", ti.TargetID, ti.URL)
				}
			}
		})
	})

	t.Run("a page's script cannot reach any control port under a loopback allow-list", func(t *testing.T) {
		chromePort, chromePath := c.devToolsActivePort(t)
		attack := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, attackPage(c.port(), chromePort, chromePath))
		}))
		defer attack.Close()

		conn := c.dial(t)
		ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
		defer cancel()
		sess, err := conn.Attach(ctx, newPage(t, conn))
		if err != nil {
			t.Fatal(err)
		}
		if res, err := cdp.Execute(ctx, sess, page.Navigate, page.NavigateParams{URL: attack.URL}); err != nil || res.ErrorText != "" {
			t.Fatalf("loading the page: %v %+v", err, res)
		}
		var title string
		for !strings.HasPrefix(title, "done ") {
			if ctx.Err() != nil {
				t.Fatalf("the page's attempts did not finish; title %q", title)
			}
			time.Sleep(200 * time.Millisecond)
			res, err := cdp.Execute(ctx, sess, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.title", ReturnByValue: new(true)})
			if err != nil {
				t.Fatal(err)
			}
			title = strings.Trim(string(res.Result.Value), `"`)
		}
		t.Logf("the page's attempts: %s", title)
		for _, name := range []string{"sidecar_ws", "chromium_ws"} {
			if strings.Contains(title, `\"`+name+`\":\"open\"`) {
				t.Errorf("the page opened %s: %s", name, title)
			}
		}
		if strings.Contains(title, "read:") {
			t.Errorf("the page read an answer of a control port: %s", title)
		}
		// What the page cannot see, the guard's log tells: each port was
		// refused by it, not by the endpoint behind it.
		for _, port := range []string{c.port(), chromePort} {
			want := "127.0.0.1:" + port + " is a control port"
			if !strings.Contains(c.log.String(), want) {
				t.Errorf("the guard did not refuse port %s; its log:\n%s", port, c.log)
			}
		}
	})
}

// newPage opens a blank page in a context of its own.
func newPage(t *testing.T, conn *cdp.Conn) target.ID {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	yes := true
	bc, err := cdp.Execute(ctx, conn.Browser(), target.CreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: &yes})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cdp.Execute(ctx, conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank", BrowserContextID: bc.BrowserContextID})
	if err != nil {
		t.Fatal(err)
	}
	return res.TargetID
}

// attackPage tries every way a page's script has to the sidecar's and
// Chromium's DevTools endpoints, and writes what happened into its title.
func attackPage(sidecarPort, chromePort, chromePath string) string {
	return `<!doctype html><title>running</title><script>
const results = {};
function ws(name, url) {
  return new Promise(done => {
    let s;
    try { s = new WebSocket(url); } catch (e) { results[name] = "throw"; return done(); }
    const timer = setTimeout(() => { results[name] = "timeout"; try { s.close(); } catch (e) {} done(); }, 8000);
    s.onopen = () => { results[name] = "open"; clearTimeout(timer); s.close(); done(); };
    s.onerror = () => { if (!results[name]) results[name] = "error"; clearTimeout(timer); done(); };
  });
}
function get(name, url, opts) {
  // A no-cors answer is opaque: it reads as empty, whoever sent it.
  return fetch(url, opts).then(r => r.text().then(b => { results[name] = b ? "read:" + b.slice(0, 40) : "opaque"; }),
    () => { results[name] = "failed"; });
}
Promise.all([
  ws("sidecar_ws", "ws://127.0.0.1:` + sidecarPort + `/devtools/browser"),
  ws("chromium_ws", "ws://127.0.0.1:` + chromePort + chromePath + `"),
  get("sidecar_version", "http://127.0.0.1:` + sidecarPort + `/json/version"),
  get("chromium_version", "http://127.0.0.1:` + chromePort + `/json/version"),
  get("chromium_new", "http://127.0.0.1:` + chromePort + `/json/new?file:///etc/passwd", {method: "PUT"}),
  get("chromium_version_no_cors", "http://localhost:` + chromePort + `/json/version", {mode: "no-cors"}),
]).then(() => { document.title = "done " + JSON.stringify(results); });
</script>`
}
