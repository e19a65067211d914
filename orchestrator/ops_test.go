package orchestrator

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// silentHost accepts connections and never answers: a target whose server
// hangs. It counts the connections made to it.
type silentHost struct {
	ln    net.Listener
	conns atomic.Int64
}

func newSilentHost(t *testing.T) *silentHost {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &silentHost{ln: ln}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.conns.Add(1)
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return h
}

func (h *silentHost) URL() string { return "http://" + h.ln.Addr().String() + "/" }

// A target that never answers the plain fetch gets no browser sent after
// it: the browser would ask the same silent host again and spend the
// caller's budget twice. A target that answers late, but within the
// budget, is still read from that one fetch.
func TestASilentTargetCostsOneRequestNotABrowserToo(t *testing.T) {
	app := startApp(t, nil)

	t.Run("a host that never answers is asked once and answers ETIMEOUT", func(t *testing.T) {
		host := newSilentHost(t)
		start := time.Now()
		a := app.get(host.URL(), "timeout=3s")
		took := time.Since(start)
		if a.HTTP != http.StatusGatewayTimeout || a.Code != "ETIMEOUT" {
			t.Fatalf("HTTP %d %s: %s", a.HTTP, a.Code, a.Raw)
		}
		if took > 4*time.Second {
			t.Errorf("the answer took %s for a timeout of 3s", took)
		}
		time.Sleep(time.Second) // a browser started late would connect now
		if n := host.conns.Load(); n != 1 {
			t.Errorf("the silent host got %d connections for one request, want 1 (a browser was sent after the plain fetch)", n)
		}
	})

	t.Run("a host that answers after 40 % of the budget is read from the one plain fetch", func(t *testing.T) {
		ps := newPageServer(t, map[string]http.HandlerFunc{
			"/late": func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(2 * time.Second)
				html(`<!doctype html><html lang="en"><head><title>Late but static</title></head><body><p>A server-rendered page that takes its time.</p></body></html>`)(w, r)
			},
		})
		a := app.get(ps.URL+"/late", "timeout=4s")
		if a.HTTP != http.StatusOK || a.field("title") != "Late but static" {
			t.Fatalf("HTTP %d %s: %s", a.HTTP, a.Code, a.Raw)
		}
		if m := a.Header.Get("x-fetch-mode"); m != "fetch" {
			t.Errorf("x-fetch-mode %q, want fetch: the page was rendered again in a browser", m)
		}
		if n := ps.hits["/late"].Load(); n != 1 {
			t.Errorf("the page was requested %d times, want 1", n)
		}
	})
}

// The microlink CLI's `--api-key=K`, written as Microlink's docs show it,
// reaches glimpse as the query parameter api-key: the key's plan answers,
// and a key glimpse does not know is refused, never run on the anonymous
// plan.
func TestTheMicrolinkCLIsAPIKeyFlagIsHonoured(t *testing.T) {
	dir := clientsDir(t)
	nodeBinary(t)
	app := &testApp{App: launchApp(t, testLogger(), `
anonymous: {name: walk-in, limit: 1, window: 1h}
plans: [{name: pro, limit: 100, window: 1h}]
keys: [{key: k-cli-live-1, plan: pro}]
`, nil), t: t}
	ps := newPageServer(t, map[string]http.HandlerFunc{
		"/keyed": html(`<!doctype html><html lang="en"><title>Keyed</title><p>A page asked for with a key.</p></html>`),
	})
	bin := filepath.Join(dir, "node_modules", ".bin", "microlink")
	interop, err := filepath.Abs(filepath.Join("testdata", "clients", "cli-interop.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (out string, code int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append(args, "--endpoint="+app.URL()+"/")...)
		cmd.Env = append(os.Environ(), "NO_UPDATE_NOTIFIER=1", "NO_COLOR=1", "FORCE_COLOR=0", "CI=1", "MICROLINK_API_KEY=",
			"NODE_OPTIONS=--require="+interop)
		var o bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &o
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			code = exit.ExitCode()
		case err != nil:
			t.Fatalf("running microlink %s: %v", strings.Join(args, " "), err)
		}
		return o.String(), code
	}

	// The anonymous plan allows one request: three answers in a row are
	// the key's plan at work.
	for i := range 3 {
		out, code := run(ps.URL+"/keyed&force", "--api-key=k-cli-live-1", "--no-pretty")
		if code != 0 || !strings.Contains(out, `"title":"Keyed"`) {
			t.Fatalf("call %d with a known key: exit %d\n%s", i+1, code, out)
		}
	}
	// The CLI shows a failure only in its pretty mode: with --no-pretty
	// it exits 0 and prints nothing.
	out, code := run(ps.URL+"/keyed", "--api-key=k-cli-made-up")
	for _, want := range []string{"EAUTH (401)", "`api-key`", app.URL() + "/docs/errors#eauth"} {
		if code == 0 || !strings.Contains(out, want) {
			t.Errorf("an unknown key: exit %d, want a failure that shows %q:\n%s", code, want, out)
		}
	}
}
