package sidecar

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
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

// Commands the upstream test server understands: each is a DevTools
// command the filter passes.
const (
	cmdEcho = `{"id":1,"method":"Browser.getVersion"}`
	cmdBig  = `{"id":2,"method":"Runtime.evaluate","params":{"expression":"big"}}`
	cmdBye  = `{"id":3,"method":"Runtime.evaluate","params":{"expression":"bye"}}`
)

// upstreamServer echoes every message, answers cmdBig with a 20 MiB binary
// message and cmdBye by closing, and reports when a connection ends.
func upstreamServer(t *testing.T) (*httptest.Server, chan error) {
	t.Helper()
	srv, ended, _ := recordingUpstream(t)
	return srv, ended
}

// recordingUpstream is upstreamServer that also passes on every message it
// receives.
func recordingUpstream(t *testing.T) (*httptest.Server, chan error, chan []byte) {
	t.Helper()
	ended := make(chan error, 8)
	received := make(chan []byte, 64)
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
			select {
			case received <- msg:
			default:
			}
			switch string(msg) {
			case cmdBig:
				err = c.WriteMessage(websocket.BinaryMessage, bytes.Repeat([]byte("x"), 20<<20))
			case cmdBye:
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
	return srv, ended, received
}

// proxyFixture is a Sidecar whose current generation points at wsURL, with
// no browser behind it.
func proxyFixture(t *testing.T, wsURL, status string) (*Sidecar, *generation, *httptest.Server) {
	t.Helper()
	g := &generation{n: 1, wsURL: wsURL, clients: map[*proxyConn]struct{}{}}
	s := &Sidecar{logger: testLogger(t), status: status, filter: newCDPFilter("127.0.0.1:8118", "127.0.0.1:8119")}
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
		msg  string
	}{
		{name: "an allowed command reaches Chromium unchanged", msg: cmdEcho},
		{name: "a command of a flattened session reaches Chromium unchanged", msg: `{"id":7,"sessionId":"AB12","method":"Page.enable","params":{}}`},
		{name: "a command with blanks and unknown fields passes byte for byte", msg: " {\"id\":8, \"method\":\"Network.enable\", \"extra\":[1,2]}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.WriteMessage(websocket.TextMessage, []byte(tt.msg)); err != nil {
				t.Fatal(err)
			}
			kind, got, err := c.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			if kind != websocket.TextMessage || string(got) != tt.msg {
				t.Errorf("got type %d %q, want the text message %q", kind, got, tt.msg)
			}
		})
	}
	t.Run("a 20 MiB message from Chromium arrives whole", func(t *testing.T) {
		if err := c.WriteMessage(websocket.TextMessage, []byte(cmdBig)); err != nil {
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

func TestProxyAnswersRefusedCommandsItself(t *testing.T) {
	up, _, received := recordingUpstream(t)
	s, _, srv := proxyFixture(t, wsURLOf(up), StatusOK)
	c := dialProxy(t, srv)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))

	tests := []struct {
		name   string
		kind   int
		msg    string
		want   string
		reason string
	}{
		{name: "a method glimpse does not use is answered as not found", kind: websocket.TextMessage,
			msg:  `{"id":41,"method":"Browser.close"}`,
			want: `{"id":41,"error":{"code":-32601,"message":"'Browser.close' is not allowed by glimpse's sidecar: it passes only the DevTools methods glimpse uses"}}`, reason: "method"},
		{name: "the session id of a refused command is echoed", kind: websocket.TextMessage,
			msg:  `{"id":42,"sessionId":"S\u00e9\"1","method":"Page.navigate","params":{"url":"file:///etc/passwd"}}`,
			want: `{"id":42,"sessionId":"Sé\"1","error":{"code":-32602,"message":"glimpse's sidecar opens only http and https URLs"}}`, reason: "url"},
		{name: "a binary message is answered with a parse error", kind: websocket.BinaryMessage,
			msg:  "\xd8\x5a\x00\x00",
			want: `{"error":{"code":-32700,"message":"glimpse's sidecar passes only DevTools commands as JSON text messages, not binary ones"}}`, reason: "malformed"},
		{name: "text that is not JSON is answered with a parse error", kind: websocket.TextMessage,
			msg:  "ping",
			want: `{"error":{"code":-32700,"message":"glimpse's sidecar passes only DevTools commands: JSON objects with an integer id and a method"}}`, reason: "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.CDPRefusals()[tt.reason]
			if err := c.WriteMessage(tt.kind, []byte(tt.msg)); err != nil {
				t.Fatal(err)
			}
			kind, got, err := c.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			if kind != websocket.TextMessage || string(got) != tt.want {
				t.Errorf("got type %d %s\nwant the text %s", kind, got, tt.want)
			}
			if n := s.CDPRefusals()[tt.reason]; n != before+1 {
				t.Errorf("refusals for %q went from %d to %d, want one more", tt.reason, before, n)
			}
		})
	}
	t.Run("nothing refused reached Chromium, and the connection still works", func(t *testing.T) {
		if err := c.WriteMessage(websocket.TextMessage, []byte(cmdEcho)); err != nil {
			t.Fatal(err)
		}
		if _, got, err := c.ReadMessage(); err != nil || string(got) != cmdEcho {
			t.Fatalf("after the refusals an allowed command got %q, %v", got, err)
		}
		if got := <-received; string(got) != cmdEcho {
			t.Errorf("Chromium received %q first; nothing refused may reach it", got)
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
		if err := c.WriteMessage(websocket.TextMessage, []byte(cmdEcho)); err != nil {
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
		if err := c.WriteMessage(websocket.TextMessage, []byte(cmdBye)); err != nil {
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

// BenchmarkProxyRoundTrip measures one command through the DevTools
// endpoint and its reply back, with a stand-in for Chromium that echoes.
func BenchmarkProxyRoundTrip(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			kind, msg, err := c.ReadMessage()
			if err != nil || c.WriteMessage(kind, msg) != nil {
				return
			}
		}
	}))
	defer up.Close()
	g := &generation{n: 1, wsURL: wsURLOf(up), clients: map[*proxyConn]struct{}{}}
	s := &Sidecar{logger: slog.New(slog.DiscardHandler), status: StatusOK, cur: g, filter: newCDPFilter("127.0.0.1:8118")}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	defer g.retire()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/devtools/browser", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	msg := []byte(`{"id":1234,"sessionId":"9F8E7D6C5B4A39281706F5E4D3C2B1A0","method":"Runtime.evaluate","params":{"expression":"document.title","returnByValue":true}}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.WriteMessage(websocket.TextMessage, msg); err != nil {
			b.Fatal(err)
		}
		if _, _, err := c.ReadMessage(); err != nil {
			b.Fatal(err)
		}
	}
}
