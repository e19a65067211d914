// Package guardtest holds what tests of the egress guard and of the
// services behind it share: a caller's forward proxy on loopback that
// records what passes through it.
package guardtest

import (
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
)

// Request is one request a RecordingProxy saw: its line ("CONNECT
// host:port", or the method and absolute URL of a plain http request) and
// the Proxy-Authorization it carried.
type Request struct{ Line, Auth string }

// RecordingProxy is a caller's forward proxy: it tunnels CONNECT, forwards
// absolute-form requests (telling the target so with a Via header, and the
// client with X-Through), and records each request with its credentials.
// With wantAuth set it answers 407 to requests without them.
type RecordingProxy struct {
	addr     string
	wantAuth string
	mu       sync.Mutex
	seen     []Request
}

// NewRecordingProxy serves a RecordingProxy on ln until the test ends.
func NewRecordingProxy(t testing.TB, ln net.Listener, wantAuth string) *RecordingProxy {
	t.Helper()
	rp := &RecordingProxy{addr: ln.Addr().String(), wantAuth: wantAuth}
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Proxy-Authorization")
		line := r.Method + " " + r.URL.String()
		if r.Method == http.MethodConnect {
			line = "CONNECT " + r.Host
		}
		rp.mu.Lock()
		rp.seen = append(rp.seen, Request{line, auth})
		rp.mu.Unlock()
		if rp.wantAuth != "" && auth != rp.wantAuth {
			w.Header().Set("Proxy-Authenticate", `Basic realm="test"`)
			http.Error(w, "credentials, please", http.StatusProxyAuthRequired)
			return
		}
		if r.Method == http.MethodConnect {
			tunnel(w, r)
			return
		}
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.Header.Del("Proxy-Authorization")
		out.Header.Set("Via", "1.1 upstream-test-proxy")
		res, err := tr.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		for k, vs := range res.Header {
			w.Header()[k] = vs
		}
		w.Header().Set("X-Through", "recording-proxy")
		w.WriteHeader(res.StatusCode)
		io.Copy(w, res.Body)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return rp
}

// tunnel splices the client with the host its CONNECT names.
func tunnel(w http.ResponseWriter, r *http.Request) {
	up, err := net.Dial("tcp", r.Host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	client, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		up.Close()
		return
	}
	io.WriteString(client, "HTTP/1.1 200 OK\r\n\r\n")
	go func() { io.Copy(up, client); up.Close() }()
	io.Copy(client, up)
	client.Close()
}

// URL is the proxy's address as a `proxy` value, with userinfo ("user:pass")
// unless it is empty.
func (rp *RecordingProxy) URL(userinfo string) string {
	if userinfo == "" {
		return "http://" + rp.addr
	}
	return "http://" + userinfo + "@" + rp.addr
}

// Requests is what the proxy has seen so far, in order.
func (rp *RecordingProxy) Requests() []Request {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return append([]Request(nil), rp.seen...)
}
