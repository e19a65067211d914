package api_test

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
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
	// The hosts count their own connections, so the shared glimpse does;
	// not parallel, as the answers are timed against their timeouts.
	app := e2e.Shared(t)

	t.Run("a host that never answers is asked once and answers ETIMEOUT", func(t *testing.T) {
		host := newSilentHost(t)
		start := time.Now()
		a := app.Get(host.URL(), "timeout=3s")
		took := time.Since(start)
		if a.HTTP != http.StatusGatewayTimeout || a.Code != "ETIMEOUT" {
			t.Fatalf("HTTP %d %s: %s", a.HTTP, a.Code, a.Raw)
		}
		if took > 4*time.Second {
			t.Errorf("the e2e.Answer took %s for a timeout of 3s", took)
		}
		time.Sleep(time.Second) // a browser started late would connect now
		if n := host.conns.Load(); n != 1 {
			t.Errorf("the silent host got %d connections for one request, want 1 (a browser was sent after the plain fetch)", n)
		}
	})

	t.Run("a host that answers after 40 % of the budget is read from the one plain fetch", func(t *testing.T) {
		ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
			"/late": func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(2 * time.Second)
				e2e.HTML(`<!doctype html><html lang="en"><head><title>Late but static</title></head><body><p>A server-rendered page that takes its time.</p></body></html>`)(w, r)
			},
		})
		a := app.Get(ps.URL+"/late", "timeout=4s")
		if a.HTTP != http.StatusOK || a.Field("title") != "Late but static" {
			t.Fatalf("HTTP %d %s: %s", a.HTTP, a.Code, a.Raw)
		}
		if m := a.Header.Get("x-fetch-mode"); m != "fetch" {
			t.Errorf("x-fetch-mode %q, want fetch: the page was rendered again in a browser", m)
		}
		if n := ps.Hits["/late"].Load(); n != 1 {
			t.Errorf("the page was requested %d times, want 1", n)
		}
	})
}
