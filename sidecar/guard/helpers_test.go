package guard

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// resolverFunc adapts a function to Resolver.
type resolverFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

func (f resolverFunc) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	return f(ctx, network, host)
}

// staticResolver answers from a fixed table and reports names it does not
// know as not found, the way a real resolver does for NXDOMAIN.
func staticResolver(table map[string][]string) resolverFunc {
	return func(ctx context.Context, _, host string) ([]netip.Addr, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		addrs, ok := table[host]
		if !ok {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		out := make([]netip.Addr, len(addrs))
		for i, a := range addrs {
			out[i] = netip.MustParseAddr(a)
		}
		return out, nil
	}
}

// countingListener records the peer of every connection it accepts, so a
// test can prove that the guard never connected.
type countingListener struct {
	net.Listener
	mu    sync.Mutex
	peers []string
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		l.peers = append(l.peers, c.RemoteAddr().String())
		l.mu.Unlock()
	}
	return c, err
}

func (l *countingListener) accepted() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.peers...)
}

// assertNoConnection proves that nothing but a sentinel connected: the
// kernel queues connections in order, so if the code under test had
// connected before, its connection would be accepted before the sentinel.
func (l *countingListener) assertNoConnection(t *testing.T) {
	t.Helper()
	sentinel, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatalf("the sentinel could not connect to %s: %v", l.Addr(), err)
	}
	defer sentinel.Close()
	deadline := time.Now().Add(5 * time.Second)
	for len(l.accepted()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	got := l.accepted()
	if len(got) != 1 || got[0] != sentinel.LocalAddr().String() {
		t.Fatalf("the refused listener accepted %v; want only the sentinel %s", got, sentinel.LocalAddr())
	}
}

func listen(t *testing.T, addr string) *countingListener {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("cannot listen on %s: %v", addr, err)
	}
	return &countingListener{Listener: ln}
}

// serveRaw accepts connections and hands each to handle until the test ends.
func serveRaw(t *testing.T, ln *countingListener, handle func(net.Conn)) {
	t.Helper()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
}

// trackedServer is an httptest server on a chosen loopback address that
// counts requests and connections.
type trackedServer struct {
	*httptest.Server
	ln       *countingListener
	requests atomic.Int64
}

func newTrackedServer(t *testing.T, ip string, useTLS bool, h http.Handler) *trackedServer {
	t.Helper()
	ts := &trackedServer{ln: listen(t, net.JoinHostPort(ip, "0"))}
	ts.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	ts.Server.Listener.Close()
	ts.Server.Listener = ts.ln
	if useTLS {
		ts.StartTLS()
	} else {
		ts.Start()
	}
	t.Cleanup(ts.Close)
	return ts
}

func (ts *trackedServer) hostPort() string { return ts.ln.Addr().String() }

func (ts *trackedServer) port() string {
	_, port, _ := net.SplitHostPort(ts.hostPort())
	return port
}

func (ts *trackedServer) tlsConfig() *tls.Config {
	return ts.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
}
