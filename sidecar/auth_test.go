package sidecar

import (
	"bufio"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

func TestSecretComparesTheWholeToken(t *testing.T) {
	s := newSecret("the-sidecar-token-0123")
	basic := func(user, password string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	}
	tests := []struct {
		name          string
		header        string
		bearer, proxy bool
	}{
		{"the token as a bearer token is accepted", "Bearer the-sidecar-token-0123", true, true},
		{"the scheme is read without regard to case", "bearer the-sidecar-token-0123", true, true},
		{"a prefix of the token is refused", "Bearer the-sidecar-token-012", false, false},
		{"the token with more after it is refused", "Bearer the-sidecar-token-01234", false, false},
		{"another token is refused", "Bearer something-else-entirely", false, false},
		{"the token without a scheme is refused", "the-sidecar-token-0123", false, false},
		{"an empty header is refused", "", false, false},
		{"the token as the password of Basic credentials is a proxy credential", basic("glimpse", "the-sidecar-token-0123"), false, true},
		{"the user name of Basic credentials does not matter", basic("", "the-sidecar-token-0123"), false, true},
		{"the token as the user name of Basic credentials is refused", basic("the-sidecar-token-0123", "x"), false, false},
		{"Basic credentials that are not base64 are refused", "Basic %%%", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := s.bearer(tc.header); got != tc.bearer {
				t.Errorf("bearer(%q) = %v, want %v", tc.header, got, tc.bearer)
			}
			if got := s.proxy(tc.header); got != tc.proxy {
				t.Errorf("proxy(%q) = %v, want %v", tc.header, got, tc.proxy)
			}
		})
	}
	t.Run("without a token everything is accepted", func(t *testing.T) {
		none := newSecret("")
		if none.required() || !none.bearer("") || !none.proxy("") {
			t.Error("an empty token asked for credentials")
		}
	})
	t.Run("new tokens are long enough and differ", func(t *testing.T) {
		a, b := NewToken(), NewToken()
		if len(a) < MinTokenLength || a == b {
			t.Errorf("NewToken gave %q and %q", a, b)
		}
	})
}

func TestDevToolsEndpointAsksForTheToken(t *testing.T) {
	up, _, received := recordingUpstream(t)
	s, _, srv := proxyFixture(t, wsURLOf(up), StatusOK)
	s.secret = newSecret("the-sidecar-token-0123")
	ws := "ws" + strings.TrimPrefix(srv.URL, "http") + "/devtools/browser"

	tests := []struct {
		name     string
		header   http.Header
		wantCode int
	}{
		{"a WebSocket without the token is refused with 401", nil, http.StatusUnauthorized},
		{"a WebSocket with another token is refused with 401", http.Header{"Authorization": {"Bearer wrong-token-0123456789"}}, http.StatusUnauthorized},
		{"a WebSocket with the token as a query parameter is refused with 401", http.Header{"X-Token": {"the-sidecar-token-0123"}}, http.StatusUnauthorized},
		{"a WebSocket with the token is upgraded", http.Header{"Authorization": {"Bearer the-sidecar-token-0123"}}, http.StatusSwitchingProtocols},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := s.AuthRefusals()
			c, resp, err := websocket.DefaultDialer.Dial(ws, tc.header)
			if c != nil {
				defer c.Close()
			}
			if resp == nil {
				t.Fatalf("no answer: %v", err)
			}
			if resp.StatusCode != tc.wantCode {
				t.Fatalf("the handshake got %d, want %d", resp.StatusCode, tc.wantCode)
			}
			if tc.wantCode != http.StatusUnauthorized {
				return
			}
			if resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("a 401 without WWW-Authenticate")
			}
			if s.AuthRefusals() != before+1 {
				t.Errorf("auth refusals went from %d to %d, want one more", before, s.AuthRefusals())
			}
		})
	}
	t.Run("a refused client sends nothing to Chromium", func(t *testing.T) {
		select {
		case msg := <-received:
			t.Fatalf("Chromium received %q", msg)
		default:
		}
	})
	t.Run("the version endpoint asks for the token and health does not", func(t *testing.T) {
		// A starting sidecar: health answers 503 by itself, not 401.
		starting, _, startingSrv := proxyFixture(t, wsURLOf(up), StatusStarting)
		starting.secret = newSecret("the-sidecar-token-0123")
		for path, want := range map[string]int{"/json/version": http.StatusUnauthorized, "/healthz": http.StatusServiceUnavailable} {
			resp, err := http.Get(startingSrv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("GET %s = %d, want %d", path, resp.StatusCode, want)
			}
		}
	})
}

func TestProxyOnTheSidecarPortAsksForTheToken(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Authorization") != "" {
			http.Error(w, "the token was passed on", http.StatusTeapot)
			return
		}
		io.WriteString(w, "reached")
	}))
	defer target.Close()
	srv, front := serveFront(t, RunConfig{
		Sidecar:      Config{ChromePath: writeScript(t, "exit 1"), Logger: testLogger(t), Token: "the-sidecar-token-0123"},
		AllowTargets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
	})
	host := strings.TrimPrefix(target.URL, "http://")

	tests := []struct {
		name     string
		request  string
		wantCode int
	}{
		{"a CONNECT without the token is refused with 407",
			"CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n", http.StatusProxyAuthRequired},
		{"a CONNECT with a wrong token is refused with 407",
			"CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\nProxy-Authorization: Bearer wrong-token-0123456789\r\n\r\n", http.StatusProxyAuthRequired},
		{"a CONNECT with the token as Authorization, not Proxy-Authorization, is refused",
			"CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer the-sidecar-token-0123\r\n\r\n", http.StatusProxyAuthRequired},
		{"a CONNECT with the token is tunnelled",
			"CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\nProxy-Authorization: Bearer the-sidecar-token-0123\r\n\r\n", http.StatusOK},
		{"a plain proxy request without the token is refused with 407",
			"GET " + target.URL + "/ HTTP/1.1\r\nHost: " + host + "\r\n\r\n", http.StatusProxyAuthRequired},
		{"a plain proxy request with the token as a Basic password is forwarded without it",
			"GET " + target.URL + "/ HTTP/1.1\r\nHost: " + host + "\r\nProxy-Authorization: Basic " +
				base64.StdEncoding.EncodeToString([]byte("glimpse:the-sidecar-token-0123")) + "\r\n\r\n", http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(front.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.WriteString(conn, tc.request); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.wantCode {
				t.Fatalf("got %d, want %d", resp.StatusCode, tc.wantCode)
			}
			switch {
			case tc.wantCode == http.StatusProxyAuthRequired && resp.Header.Get("Proxy-Authenticate") == "":
				t.Error("a 407 without Proxy-Authenticate")
			case strings.HasPrefix(tc.request, "CONNECT") && tc.wantCode == http.StatusOK:
				// Through the tunnel to the target.
				io.WriteString(conn, "GET / HTTP/1.1\r\nHost: "+host+"\r\n\r\n")
				inner, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(inner.Body)
				if string(body) != "reached" {
					t.Errorf("through the tunnel: %d %q", inner.StatusCode, body)
				}
			case tc.wantCode == http.StatusOK:
				body, _ := io.ReadAll(resp.Body)
				if string(body) != "reached" {
					t.Errorf("got %q, want the target's answer without the token", body)
				}
			}
		})
	}
	if n := srv.Stats().AuthRefusals; n != 4 {
		t.Errorf("the sidecar counted %d refusals, want 4", n)
	}
}
