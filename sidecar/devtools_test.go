package sidecar

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// These tests drive the proxy against a WebSocket server the test controls,
// standing where Chromium's browser endpoint stands; the real Chromium runs
// in sidecar_test.go.

// upstreamServer echoes every message, answers "big" with a 20 MiB binary
// message and "bye" by closing, and reports when a connection ends.
func upstreamServer(t *testing.T) (*httptest.Server, chan error) {
	t.Helper()
	ended := make(chan error, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			kind, msg, err := c.ReadMessage()
			if err != nil {
				ended <- err
				return
			}
			switch string(msg) {
			case "big":
				err = c.WriteMessage(websocket.BinaryMessage, bytes.Repeat([]byte("x"), 20<<20))
			case "bye":
				_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye"), time.Now().Add(time.Second))
				ended <- nil
				return
			default:
				err = c.WriteMessage(kind, msg)
			}
			if err != nil {
				ended <- err
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv, ended
}

// proxyFixture is a Sidecar whose current generation points at wsURL, with
// no browser behind it.
func proxyFixture(t *testing.T, wsURL, status string) (*Sidecar, *generation, *httptest.Server) {
	t.Helper()
	g := &generation{n: 1, wsURL: wsURL, clients: map[*proxyConn]struct{}{}}
	s := &Sidecar{logger: testLogger(t), status: status}
	if status == StatusOK {
		s.cur = g
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		g.retire()
		srv.Close()
		// The handlers run until their connections are closed above.
		eventually(t, 5*time.Second, "every proxied connection ending", func() bool {
			g.mu.Lock()
			defer g.mu.Unlock()
			return len(g.clients) == 0
		})
	})
	return s, g, srv
}

func dialProxy(t *testing.T, srv *httptest.Server) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/devtools/browser", nil)
	if err != nil {
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		t.Fatalf("dialing the proxy: %v (HTTP %d)", err, code)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func wsURLOf(srv *httptest.Server) string { return "ws" + strings.TrimPrefix(srv.URL, "http") }

func TestProxyCarriesMessagesBothWays(t *testing.T) {
	up, _ := upstreamServer(t)
	_, _, srv := proxyFixture(t, wsURLOf(up), StatusOK)
	c := dialProxy(t, srv)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))

	tests := []struct {
		name string
		kind int
		msg  []byte
	}{
		{name: "a text message comes back as text", kind: websocket.TextMessage, msg: []byte(`{"id":1,"method":"Browser.getVersion"}`)},
		{name: "a binary message comes back as binary", kind: websocket.BinaryMessage, msg: []byte{0, 1, 2, 255}},
		{name: "an empty message comes back empty", kind: websocket.TextMessage, msg: []byte{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.WriteMessage(tt.kind, tt.msg); err != nil {
				t.Fatal(err)
			}
			kind, got, err := c.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			if kind != tt.kind || !bytes.Equal(got, tt.msg) {
				t.Errorf("got type %d %q, want type %d %q", kind, got, tt.kind, tt.msg)
			}
		})
	}
	t.Run("a 20 MiB message arrives whole", func(t *testing.T) {
		if err := c.WriteMessage(websocket.TextMessage, []byte("big")); err != nil {
			t.Fatal(err)
		}
		kind, got, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if kind != websocket.BinaryMessage || len(got) != 20<<20 {
			t.Errorf("got type %d with %d bytes, want a binary message of %d bytes", kind, len(got), 20<<20)
		}
	})
}

// closeCode reads until the connection ends and returns the close code, or
// -1 when it ended without a close frame.
func closeCode(t *testing.T, c *websocket.Conn, within time.Duration) int {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(within))
	for {
		_, _, err := c.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code
		}
		var ne interface{ Timeout() bool }
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the connection was still open after %v", within)
		}
		return -1
	}
}

func TestProxyClosesConnections(t *testing.T) {
	t.Run("retiring the generation tells the client Chromium restarts and closes the upstream", func(t *testing.T) {
		up, ended := upstreamServer(t)
		_, g, srv := proxyFixture(t, wsURLOf(up), StatusOK)
		c := dialProxy(t, srv)
		if err := c.WriteMessage(websocket.TextMessage, []byte("ping")); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.ReadMessage(); err != nil {
			t.Fatal(err)
		}
		g.retire()
		if code := closeCode(t, c, 2*time.Second); code != websocket.CloseServiceRestart {
			t.Errorf("close code = %d, want %d (service restart)", code, websocket.CloseServiceRestart)
		}
		select {
		case <-ended:
		case <-time.After(2 * time.Second):
			t.Error("the upstream connection stayed open")
		}
	})
	t.Run("the upstream going away closes the client as going away", func(t *testing.T) {
		up, _ := upstreamServer(t)
		_, _, srv := proxyFixture(t, wsURLOf(up), StatusOK)
		c := dialProxy(t, srv)
		if err := c.WriteMessage(websocket.TextMessage, []byte("bye")); err != nil {
			t.Fatal(err)
		}
		if code := closeCode(t, c, 2*time.Second); code != websocket.CloseGoingAway {
			t.Errorf("close code = %d, want %d (going away)", code, websocket.CloseGoingAway)
		}
	})
	t.Run("the client closing closes the upstream", func(t *testing.T) {
		up, ended := upstreamServer(t)
		_, g, srv := proxyFixture(t, wsURLOf(up), StatusOK)
		c := dialProxy(t, srv)
		if err := c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ended:
		case <-time.After(2 * time.Second):
			t.Error("the upstream connection stayed open")
		}
		eventually(t, 2*time.Second, "the proxied connection being forgotten", func() bool {
			g.mu.Lock()
			defer g.mu.Unlock()
			return len(g.clients) == 0
		})
	})
	t.Run("a connection that arrives while the generation retires is closed at once", func(t *testing.T) {
		up, _ := upstreamServer(t)
		_, g, srv := proxyFixture(t, wsURLOf(up), StatusOK)
		g.retire()
		c := dialProxy(t, srv)
		if code := closeCode(t, c, 2*time.Second); code != websocket.CloseServiceRestart {
			t.Errorf("close code = %d, want %d (service restart)", code, websocket.CloseServiceRestart)
		}
	})
}

func TestProxyRefusesWhenItCannotServe(t *testing.T) {
	up, _ := upstreamServer(t)
	deadURL := wsURLOf(up)
	up.Close() // nothing listens there any more

	tests := []struct {
		name      string
		status    string
		upstream  string
		websocket bool
		wantCode  int
		wantBody  string
	}{
		{name: "no browser while starting answers 503", status: StatusStarting, upstream: deadURL, websocket: true, wantCode: 503, wantBody: "Chromium is starting"},
		{name: "no new connection while draining answers 503", status: StatusDraining, upstream: deadURL, websocket: true, wantCode: 503, wantBody: "Chromium is draining"},
		{name: "no browser while down answers 503", status: StatusDown, upstream: deadURL, websocket: true, wantCode: 503, wantBody: "Chromium is down"},
		{name: "an unreachable browser endpoint answers 503", status: StatusOK, upstream: deadURL, websocket: true, wantCode: 503, wantBody: "did not answer"},
		{name: "a request that is not a WebSocket answers 400", status: StatusOK, upstream: deadURL, wantCode: 400, wantBody: "WebSocket client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, srv := proxyFixture(t, tt.upstream, tt.status)
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL+"/devtools/browser", nil)
			if tt.websocket {
				req.Header.Set("Connection", "Upgrade")
				req.Header.Set("Upgrade", "websocket")
				req.Header.Set("Sec-WebSocket-Version", "13")
				req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body bytes.Buffer
			_, _ = body.ReadFrom(resp.Body)
			if resp.StatusCode != tt.wantCode || !strings.Contains(body.String(), tt.wantBody) {
				t.Errorf("got %d %q, want %d mentioning %q", resp.StatusCode, body.String(), tt.wantCode, tt.wantBody)
			}
			if tt.wantCode == 503 && resp.Header.Get("Retry-After") == "" {
				t.Error("a 503 without Retry-After")
			}
		})
	}
}

func TestHealthEndpointWithoutBrowser(t *testing.T) {
	tests := []struct {
		name   string
		status string
	}{
		{name: "a starting sidecar answers 503 with its status and has no version", status: StatusStarting},
		{name: "a draining sidecar answers 503 with its status and has no version", status: StatusDraining},
		{name: "a sidecar that is down answers 503 with its status and has no version", status: StatusDown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, srv := proxyFixture(t, "ws://127.0.0.1:1/devtools/browser/x", tt.status)
			code, h := getHealth(t, srv.URL)
			if code != http.StatusServiceUnavailable || h.Status != tt.status {
				t.Errorf("got %d %+v, want 503 with status %q", code, h, tt.status)
			}
			if resp, err := http.Get(srv.URL + "/json/version"); err != nil {
				t.Fatal(err)
			} else {
				resp.Body.Close()
				if resp.StatusCode != http.StatusServiceUnavailable {
					t.Errorf("GET /json/version = %d, want 503", resp.StatusCode)
				}
			}
			resp, err := http.Post(srv.URL+"/healthz", "text/plain", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("POST /healthz = %d, want 405", resp.StatusCode)
			}
		})
	}
}
