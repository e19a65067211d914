package guard

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// proxyFixture is a running proxy whose allow-list holds only 127.0.0.1, so
// servers on 127.0.0.2 stand for internal services.
type proxyFixture struct {
	proxy *Proxy
	addr  string
	url   *url.URL
}

func startProxy(t *testing.T, configure func(*Proxy)) *proxyFixture {
	t.Helper()
	return startProxyWith(t, configure, nil)
}

// startProxyWith is startProxy behind a Filter of blocks, when it is set.
func startProxyWith(t *testing.T, configure func(*Proxy), blocks func(host string) bool) *proxyFixture {
	t.Helper()
	d := &Dialer{
		Policy: NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}),
		Resolver: staticResolver(map[string][]string{
			"allowed.test":   {"127.0.0.1"},
			"internal.test":  {"127.0.0.2"},
			"ads.test":       {"127.0.0.1"},
			"pixel.ads.test": {"127.0.0.1"},
		}),
	}
	p := NewProxy(d, slog.New(slog.DiscardHandler))
	if configure != nil {
		configure(p)
	}
	ln := listen(t, "127.0.0.1:0")
	srv := p.NewServer()
	if blocks != nil {
		srv = p.ServerFor(p.Filter(blocks))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	t.Cleanup(func() {
		p.Close()
		srv.Close()
		<-done
	})
	u := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	return &proxyFixture{proxy: p, addr: ln.Addr().String(), url: u}
}

// client returns an http.Client that sends everything through the proxy and
// never follows redirects, so the test sees what the browser would.
func (f *proxyFixture) client(t *testing.T, ts *trackedServer) *http.Client {
	t.Helper()
	tr := &http.Transport{Proxy: http.ProxyURL(f.url), DisableCompression: true}
	if ts != nil && ts.TLS != nil {
		tr.TLSClientConfig = ts.tlsConfig()
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{
		Transport:     tr,
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// raw sends a hand-written request to the proxy and reads one response.
func (f *proxyFixture) raw(t *testing.T, request string) (*http.Response, string, net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", f.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the proxy's answer to %q: %v", strings.SplitN(request, "\r\n", 2)[0], err)
	}
	body := ""
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusSwitchingProtocols {
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
	}
	return resp, body, conn, br
}

func hello(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "hello from %s%s", r.Host, r.URL.RequestURI())
}

func TestProxyForwardsToAllowedServers(t *testing.T) {
	f := startProxy(t, nil)
	plain := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(hello))
	secure := newTrackedServer(t, "127.0.0.1", true, http.HandlerFunc(hello))

	tests := []struct {
		name   string
		server *trackedServer
		url    string
	}{
		{"a plain HTTP request to an allowed address is forwarded", plain, plain.URL + "/page?q=1"},
		{"a plain HTTP request to an allowed name is forwarded", plain, "http://allowed.test:" + plain.port() + "/named"},
		{"an HTTPS request is tunnelled with CONNECT", secure, secure.URL + "/secret?x=y"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := f.client(t, tc.server).Get(tc.url)
			if err != nil {
				t.Fatalf("GET %s through the proxy: %v", tc.url, err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			u, _ := url.Parse(tc.url)
			want := "hello from " + u.Host + u.RequestURI()
			if resp.StatusCode != http.StatusOK || string(body) != want {
				t.Fatalf("got %d %q; want 200 %q", resp.StatusCode, body, want)
			}
		})
	}
	if f.proxy.Refused() != 0 {
		t.Errorf("Refused() = %d; want 0", f.proxy.Refused())
	}
}

func TestProxyRefusesInternalServers(t *testing.T) {
	f := startProxy(t, nil)
	internal := newTrackedServer(t, "127.0.0.2", false, http.HandlerFunc(hello))
	port := internal.port()

	tests := []struct {
		name    string
		request string
		reason  string
	}{
		{"a plain request to a refused address answers 403",
			"GET http://127.0.0.2:" + port + "/ HTTP/1.1\r\nHost: 127.0.0.2:" + port + "\r\n\r\n", "127.0.0.2 is a loopback address"},
		{"a plain request to a name of a refused address answers 403",
			"GET http://internal.test:" + port + "/ HTTP/1.1\r\nHost: internal.test\r\n\r\n", "internal.test resolves to 127.0.0.2, a loopback address"},
		{"a decimal spelling of a refused address answers 403",
			"GET http://2130706434:" + port + "/ HTTP/1.1\r\nHost: x\r\n\r\n", "2130706434 resolves to 127.0.0.2"},
		{"a CONNECT to a refused address answers 403",
			"CONNECT 127.0.0.2:" + port + " HTTP/1.1\r\nHost: 127.0.0.2:" + port + "\r\n\r\n", "127.0.0.2 is a loopback address"},
		{"a CONNECT to an IPv4-mapped refused address answers 403",
			"CONNECT [::ffff:127.0.0.2]:" + port + " HTTP/1.1\r\nHost: x\r\n\r\n", "an IPv4-mapped loopback address"},
		{"a WebSocket upgrade to a refused address answers 403",
			"GET ws://127.0.0.2:" + port + "/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", "loopback"},
		{"an https request in absolute form to a refused address answers 403",
			"GET https://127.0.0.2:" + port + "/ HTTP/1.1\r\nHost: x\r\n\r\n", "loopback"},
		{"an ftp URL is refused for its scheme",
			"GET ftp://127.0.0.1:" + port + "/file HTTP/1.1\r\nHost: x\r\n\r\n", "ftp: is refused"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body, _, _ := f.raw(t, tc.request)
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get(Header) != "refused" {
				t.Fatalf("got %d with %s=%q; want 403 with %s=refused", resp.StatusCode, Header, resp.Header.Get(Header), Header)
			}
			if !strings.Contains(body, tc.reason) {
				t.Errorf("body %q does not name the reason %q", body, tc.reason)
			}
			if got := f.proxy.Refused(); got != int64(i+1) {
				t.Errorf("Refused() = %d; want %d", got, i+1)
			}
		})
	}
	if n := internal.requests.Load(); n != 0 {
		t.Errorf("the internal server logged %d requests; want none", n)
	}
	internal.ln.assertNoConnection(t)
}

func TestProxyReportsUnreachableHosts(t *testing.T) {
	f := startProxy(t, func(p *Proxy) { p.IdleTimeout = 300 * time.Millisecond })
	dead := listen(t, "127.0.0.1:0")
	deadAddr := dead.Addr().String()
	dead.Close()
	slow := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))

	tests := []struct {
		name, request string
		status        int
		kind          string
	}{
		{"an unresolvable name answers 502 unresolvable",
			"GET http://nowhere.test/ HTTP/1.1\r\nHost: nowhere.test\r\n\r\n", 502, "unresolvable"},
		{"a CONNECT to an unresolvable name answers 502 unresolvable",
			"CONNECT nowhere.test:443 HTTP/1.1\r\nHost: nowhere.test:443\r\n\r\n", 502, "unresolvable"},
		{"a malformed numeric host answers 502 unresolvable",
			"GET http://1.2.3.4.5/ HTTP/1.1\r\nHost: x\r\n\r\n", 502, "unresolvable"},
		{"a closed port answers 502 unreachable",
			"GET http://" + deadAddr + "/ HTTP/1.1\r\nHost: x\r\n\r\n", 502, "unreachable"},
		{"a CONNECT to a closed port answers 502 unreachable",
			"CONNECT " + deadAddr + " HTTP/1.1\r\nHost: x\r\n\r\n", 502, "unreachable"},
		{"a server that never answers gets 504 timeout",
			"GET " + slow.URL + "/ HTTP/1.1\r\nHost: x\r\n\r\n", 504, "timeout"},
		{"an origin-form request answers 400",
			"GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n", 400, "bad-request"},
		{"a CONNECT without a port answers 400",
			"CONNECT allowed.test HTTP/1.1\r\nHost: allowed.test\r\n\r\n", 400, "bad-request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body, _, _ := f.raw(t, tc.request)
			if resp.StatusCode != tc.status || resp.Header.Get(Header) != tc.kind {
				t.Fatalf("got %d with %s=%q (%q); want %d with %q", resp.StatusCode, Header, resp.Header.Get(Header), body, tc.status, tc.kind)
			}
			if strings.TrimSpace(body) == "" {
				t.Error("the answer has no body explaining it")
			}
		})
	}
	if f.proxy.Refused() != 0 {
		t.Errorf("Refused() = %d; failures that are not refusals must not count", f.proxy.Refused())
	}
}

func TestProxyPassesRedirectsThrough(t *testing.T) {
	f := startProxy(t, nil)
	internal := newTrackedServer(t, "127.0.0.2", false, http.HandlerFunc(hello))
	target := internal.URL + "/secret?token=1"
	origin := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusFound)
	}))

	resp, err := f.client(t, nil).Get(origin.URL + "/go")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != target {
		t.Fatalf("got %d Location=%q; want 302 to %q untouched", resp.StatusCode, resp.Header.Get("Location"), target)
	}
	if f.proxy.Refused() != 0 || internal.requests.Load() != 0 {
		t.Fatalf("the proxy followed the redirect itself (refused=%d, internal requests=%d)", f.proxy.Refused(), internal.requests.Load())
	}
}

func TestProxyStreamsBodies(t *testing.T) {
	f := startProxy(t, nil)
	const first, rest = 256 << 10, 8 << 20
	release := make(chan struct{})
	origin := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("a"), first))
		w.(http.Flusher).Flush()
		// The rest only comes once the client has the first part, which it
		// can only have if the proxy did not wait for the whole body.
		select {
		case <-release:
		case <-time.After(10 * time.Second):
			return
		}
		chunk := bytes.Repeat([]byte("b"), 64<<10)
		for sent := 0; sent < rest; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))

	resp, err := f.client(t, nil).Get(origin.URL + "/big")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := make(chan error, 1)
	go func() {
		_, err := io.ReadFull(resp.Body, make([]byte, first))
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("reading the first part: %v", err)
		}
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatal("the first part did not arrive before the rest was sent: the proxy buffers bodies")
	}
	close(release)
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n != rest {
		t.Fatalf("read %d bytes of the rest, %v; want %d", n, err, rest)
	}
}

func TestProxyHandlesHopByHopHeaders(t *testing.T) {
	f := startProxy(t, nil)
	seen := make(chan http.Header, 1)
	origin := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		w.Header().Set("Connection", "X-Upstream-Hop")
		w.Header().Set("X-Upstream-Hop", "1")
		w.Header().Set("X-Upstream-End", "1")
		w.Header().Set("Content-Encoding", "gzip")
		io.WriteString(w, "not really gzip")
	}))

	req, _ := http.NewRequest(http.MethodGet, origin.URL+"/h", nil)
	req.Header.Set("Connection", "X-Client-Hop")
	req.Header.Set("X-Client-Hop", "secret")
	req.Header.Set("Proxy-Authorization", "Basic c2VjcmV0")
	req.Header.Set("Proxy-Connection", "keep-alive")
	req.Header.Set("Keep-Alive", "timeout=5")
	req.Header.Set("X-End-To-End", "kept")
	req.Header.Set("Accept-Encoding", "br")
	resp, err := f.client(t, nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	got := <-seen

	t.Run("hop-by-hop request headers do not reach the target", func(t *testing.T) {
		for _, h := range []string{"X-Client-Hop", "Proxy-Authorization", "Proxy-Connection", "Keep-Alive"} {
			if v := got.Get(h); v != "" {
				t.Errorf("the target received %s: %q", h, v)
			}
		}
	})
	t.Run("end-to-end request headers reach the target untouched", func(t *testing.T) {
		if got.Get("X-End-To-End") != "kept" || got.Get("Accept-Encoding") != "br" {
			t.Errorf("the target received X-End-To-End=%q Accept-Encoding=%q", got.Get("X-End-To-End"), got.Get("Accept-Encoding"))
		}
	})
	t.Run("the proxy adds no forwarding headers that would reveal the sidecar", func(t *testing.T) {
		for _, h := range []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "Forwarded", "Via"} {
			if v := got.Get(h); v != "" {
				t.Errorf("the target received %s: %q", h, v)
			}
		}
	})
	t.Run("hop-by-hop response headers do not reach the browser", func(t *testing.T) {
		if resp.Header.Get("X-Upstream-Hop") != "" || resp.Header.Get("X-Upstream-End") != "1" {
			t.Errorf("the browser received X-Upstream-Hop=%q X-Upstream-End=%q", resp.Header.Get("X-Upstream-Hop"), resp.Header.Get("X-Upstream-End"))
		}
	})
	t.Run("an encoded body passes without being decoded", func(t *testing.T) {
		if resp.Header.Get("Content-Encoding") != "gzip" || string(body) != "not really gzip" {
			t.Errorf("got Content-Encoding=%q body=%q", resp.Header.Get("Content-Encoding"), body)
		}
	})
}

func TestProxyForwardsRequestBodies(t *testing.T) {
	f := startProxy(t, nil)
	origin := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "%s %d", r.Method, n)
	}))
	resp, err := f.client(t, nil).Post(origin.URL+"/upload", "application/octet-stream", bytes.NewReader(make([]byte, 3<<20)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if string(body) != fmt.Sprintf("POST %d", 3<<20) {
		t.Fatalf("the target saw %q; want the whole 3 MiB body", body)
	}
}

func TestProxyWebSockets(t *testing.T) {
	f := startProxy(t, nil)
	upgrader := websocket.Upgrader{}
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			kind, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			c.WriteMessage(kind, append([]byte("echo: "), msg...))
		}
	})
	allowed := newTrackedServer(t, "127.0.0.1", false, echo)
	internal := newTrackedServer(t, "127.0.0.2", false, echo)
	dialer := websocket.Dialer{Proxy: http.ProxyURL(f.url), HandshakeTimeout: 5 * time.Second}

	t.Run("a WebSocket to an allowed server works through a CONNECT tunnel", func(t *testing.T) {
		c, _, err := dialer.Dial("ws://"+allowed.hostPort()+"/ws", nil)
		if err != nil {
			t.Fatalf("dialing the WebSocket through the proxy: %v", err)
		}
		defer c.Close()
		for _, msg := range []string{"one", "two"} {
			if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
				t.Fatal(err)
			}
			_, got, err := c.ReadMessage()
			if err != nil || string(got) != "echo: "+msg {
				t.Fatalf("read %q, %v; want %q", got, err, "echo: "+msg)
			}
		}
	})
	t.Run("a WebSocket to a refused server fails and the server sees nothing", func(t *testing.T) {
		c, _, err := dialer.Dial("ws://"+internal.hostPort()+"/ws", nil)
		if err == nil {
			c.Close()
			t.Fatal("the WebSocket to a refused server opened")
		}
		if f.proxy.Refused() != 1 {
			t.Errorf("Refused() = %d; want 1", f.proxy.Refused())
		}
		internal.ln.assertNoConnection(t)
	})
}

// echoUpgrade answers "Upgrade: echo" by switching protocols and echoing.
func echoUpgrade(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Upgrade") != "echo" {
		http.Error(w, "want Upgrade: echo", http.StatusBadRequest)
		return
	}
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
	io.Copy(conn, brw)
}

func TestProxyUpgradesInAbsoluteForm(t *testing.T) {
	f := startProxy(t, nil)
	origin := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(echoUpgrade))
	for _, scheme := range []string{"http", "ws"} {
		t.Run("an Upgrade request to a "+scheme+" URL switches protocols end to end", func(t *testing.T) {
			resp, _, conn, br := f.raw(t, "GET "+scheme+"://"+origin.hostPort()+"/up HTTP/1.1\r\nHost: "+origin.hostPort()+
				"\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
			if resp.StatusCode != http.StatusSwitchingProtocols {
				t.Fatalf("got %d; want 101", resp.StatusCode)
			}
			io.WriteString(conn, "ping")
			got := make([]byte, 4)
			if _, err := io.ReadFull(br, got); err != nil || string(got) != "ping" {
				t.Fatalf("read %q, %v; want the echo", got, err)
			}
		})
	}
}

func TestProxyTunnels(t *testing.T) {
	t.Run("bytes sent right behind CONNECT reach the target", func(t *testing.T) {
		f := startProxy(t, nil)
		ln := listen(t, "127.0.0.1:0")
		got := make(chan string, 1)
		serveRaw(t, ln, func(c net.Conn) {
			b := make([]byte, 5)
			io.ReadFull(c, b)
			got <- string(b)
		})
		f.raw(t, "CONNECT "+ln.Addr().String()+" HTTP/1.1\r\nHost: x\r\n\r\nEARLY")
		select {
		case s := <-got:
			if s != "EARLY" {
				t.Fatalf("the target read %q; want EARLY", s)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the early bytes never reached the target")
		}
	})
	t.Run("a half-closed tunnel still carries the answer back", func(t *testing.T) {
		f := startProxy(t, nil)
		ln := listen(t, "127.0.0.1:0")
		serveRaw(t, ln, func(c net.Conn) {
			n, _ := io.Copy(io.Discard, c)
			fmt.Fprintf(c, "got %d bytes", n)
		})
		_, _, conn, br := f.raw(t, "CONNECT "+ln.Addr().String()+" HTTP/1.1\r\nHost: x\r\n\r\n")
		io.WriteString(conn, "twelve bytes")
		conn.(*net.TCPConn).CloseWrite()
		answer, err := io.ReadAll(br)
		if err != nil || string(answer) != "got 12 bytes" {
			t.Fatalf("read %q, %v; want %q", answer, err, "got 12 bytes")
		}
	})
	t.Run("a silent tunnel is closed after the idle timeout", func(t *testing.T) {
		f := startProxy(t, func(p *Proxy) { p.IdleTimeout = 300 * time.Millisecond })
		ln := listen(t, "127.0.0.1:0")
		serveRaw(t, ln, func(c net.Conn) { io.Copy(io.Discard, c) })
		_, _, conn, br := f.raw(t, "CONNECT "+ln.Addr().String()+" HTTP/1.1\r\nHost: x\r\n\r\n")
		start := time.Now()
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := br.ReadByte(); err != io.EOF {
			t.Fatalf("reading a silent tunnel gave %v; want EOF when the proxy closes it", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("the silent tunnel was closed after %v; want about 300ms", d)
		}
	})
	t.Run("traffic in one direction keeps the tunnel open", func(t *testing.T) {
		f := startProxy(t, func(p *Proxy) { p.IdleTimeout = 300 * time.Millisecond })
		ln := listen(t, "127.0.0.1:0")
		serveRaw(t, ln, func(c net.Conn) {
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if line == "now\n" {
					io.WriteString(c, "pong")
					return
				}
			}
		})
		_, _, conn, br := f.raw(t, "CONNECT "+ln.Addr().String()+" HTTP/1.1\r\nHost: x\r\n\r\n")
		for range 10 { // a second of upload only, over three idle timeouts
			if _, err := io.WriteString(conn, "tick\n"); err != nil {
				t.Fatalf("the tunnel closed while the client was sending: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		io.WriteString(conn, "now\n")
		got := make([]byte, 4)
		if _, err := io.ReadFull(br, got); err != nil || string(got) != "pong" {
			t.Fatalf("read %q, %v; want pong after a second of one-way traffic", got, err)
		}
	})
	t.Run("Close ends open tunnels and refuses new requests", func(t *testing.T) {
		f := startProxy(t, nil)
		ln := listen(t, "127.0.0.1:0")
		serveRaw(t, ln, func(c net.Conn) { io.Copy(io.Discard, c) })
		_, _, conn, br := f.raw(t, "CONNECT "+ln.Addr().String()+" HTTP/1.1\r\nHost: x\r\n\r\n")
		f.proxy.Close()
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := br.ReadByte(); err != io.EOF {
			t.Fatalf("reading a tunnel after Close gave %v; want EOF", err)
		}
		resp, _, _, _ := f.raw(t, "GET http://"+ln.Addr().String()+"/ HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get(Header) != "closing" {
			t.Fatalf("after Close got %d %s=%q; want 503 closing", resp.StatusCode, Header, resp.Header.Get(Header))
		}
	})
}

func TestProxyCancelledRequest(t *testing.T) {
	f := startProxy(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	f.proxy.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, "GET", "http://allowed.test:1/", nil))
	if rec.Header().Get(Header) != "" || rec.Body.Len() != 0 {
		t.Fatalf("a request the browser cancelled was answered with %s=%q %q", Header, rec.Header().Get(Header), rec.Body)
	}
}

func TestNewProxyDefaults(t *testing.T) {
	t.Run("a proxy without a dialer or logger applies the strict rule", func(t *testing.T) {
		p := NewProxy(nil, nil)
		defer p.Close()
		rec := httptest.NewRecorder()
		p.ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1:9/", nil))
		if rec.Code != http.StatusForbidden {
			t.Fatalf("got %d; want 403", rec.Code)
		}
	})
	t.Run("an allow-list is announced with a warning", func(t *testing.T) {
		var buf bytes.Buffer
		d := &Dialer{Policy: NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})}
		NewProxy(d, slog.New(slog.NewTextHandler(&buf, nil))).Close()
		if !strings.Contains(buf.String(), "level=WARN") || !strings.Contains(buf.String(), "127.0.0.0/8") {
			t.Fatalf("log %q; want a warning naming the allow-list", buf.String())
		}
	})
	t.Run("the server bounds header reading and idle keep-alive", func(t *testing.T) {
		p := NewProxy(nil, nil)
		defer p.Close()
		srv := p.NewServer()
		if srv.ReadHeaderTimeout <= 0 || srv.IdleTimeout != DefaultIdleTimeout || srv.Handler != p {
			t.Fatalf("NewServer() = ReadHeaderTimeout %v IdleTimeout %v", srv.ReadHeaderTimeout, srv.IdleTimeout)
		}
	})
}

func TestChromeFlags(t *testing.T) {
	flags := ChromeFlags("127.0.0.1:8118")
	for _, want := range []string{
		"--proxy-server=http://127.0.0.1:8118",
		"--proxy-bypass-list=<-loopback>",
		"--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
		"--webrtc-ip-handling-policy=disable_non_proxied_udp",
	} {
		if !slices.Contains(flags, want) {
			t.Errorf("ChromeFlags lacks %s: %v", want, flags)
		}
	}
	for _, f := range flags {
		if strings.HasPrefix(f, "--host-resolver-rules") {
			t.Errorf("ChromeFlags sets %s; name resolution belongs to the proxy", f)
		}
	}
}

func TestFilterBlocksListedHostsBeforeDialling(t *testing.T) {
	blocks := func(host string) bool { return host == "ads.test" || strings.HasSuffix(host, ".ads.test") }
	f := startProxyWith(t, nil, blocks)
	p := f.proxy
	target := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(hello))
	port := target.port()

	blocked := []struct{ name, request string }{
		{"a plain request to a listed host", "GET http://ads.test:" + port + "/ad.gif HTTP/1.1\r\nHost: ads.test\r\n\r\n"},
		{"a plain request to a subdomain of a listed host", "GET http://pixel.ads.test:" + port + "/p HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"a CONNECT to a listed host", "CONNECT pixel.ads.test:" + port + " HTTP/1.1\r\nHost: pixel.ads.test:" + port + "\r\n\r\n"},
	}
	for i, tc := range blocked {
		t.Run(tc.name+" answers 403 blocked", func(t *testing.T) {
			resp, body, _, _ := f.raw(t, tc.request)
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get(Header) != "blocked" {
				t.Fatalf("got %d with %s=%q; want 403 with %s=blocked", resp.StatusCode, Header, resp.Header.Get(Header), Header)
			}
			if !strings.Contains(body, "ad-block list") {
				t.Errorf("body %q does not say why", body)
			}
			if got := p.Blocked(); got != int64(i+1) {
				t.Errorf("Blocked() = %d; want %d", got, i+1)
			}
		})
	}
	if n := target.requests.Load(); n != 0 {
		t.Errorf("the target served %d requests for listed hosts; want none", n)
	}
	target.ln.assertNoConnection(t)

	t.Run("a host that is not listed passes", func(t *testing.T) {
		resp, err := f.client(t, target).Get("http://allowed.test:" + port + "/page")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || string(body) != "hello from allowed.test:"+port+"/page" {
			t.Fatalf("got %d %q", resp.StatusCode, body)
		}
	})
	t.Run("the address rule still applies behind the filter", func(t *testing.T) {
		resp, _, _, _ := f.raw(t, "GET http://127.0.0.2:"+port+"/ HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get(Header) != "refused" {
			t.Fatalf("got %d with %s=%q; want 403 refused", resp.StatusCode, Header, resp.Header.Get(Header))
		}
	})
}

// A target cannot speak for the guard: its own X-Glimpse-Guard header does
// not pass the proxy, whatever the status it comes with.
func TestProxyDropsTheGuardHeaderATargetSends(t *testing.T) {
	f := startProxy(t, nil)
	for _, tc := range []struct {
		name   string
		status int
		value  string
	}{
		{"a refusal", http.StatusForbidden, "refused"},
		{"a failure", http.StatusBadGateway, "unreachable"},
		{"a listing", http.StatusOK, "blocked"},
		{"a time-out", http.StatusGatewayTimeout, "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set(Header, tc.value)
				w.Header().Add(Header, "second")
				w.WriteHeader(tc.status)
				io.WriteString(w, "the target's own page")
			}))
			resp, err := f.client(t, target).Get(target.URL + "/p")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if got := resp.Header.Values(Header); len(got) != 0 || resp.StatusCode != tc.status || string(body) != "the target's own page" {
				t.Errorf("the answer came as %d %q with %s: %q", resp.StatusCode, body, Header, got)
			}
		})
	}
}
