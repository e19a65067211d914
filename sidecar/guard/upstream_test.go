package guard

import (
	"github.com/glimpse/glimpse/sidecar/guard/guardtest"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// recordingProxy is guardtest's recording proxy as these tests read it:
// each request as "CONNECT host:port auth" or "GET http://… auth".
type recordingProxy struct {
	*guardtest.RecordingProxy
	ln *countingListener
}

func newRecordingProxy(t *testing.T, ip, wantAuth string) recordingProxy {
	t.Helper()
	ln := listen(t, net.JoinHostPort(ip, "0"))
	return recordingProxy{guardtest.NewRecordingProxy(t, ln, wantAuth), ln}
}

func (rp recordingProxy) url(user string) string { return rp.URL(user) }

func (rp recordingProxy) requests() []string {
	var out []string
	for _, r := range rp.Requests() {
		out = append(out, r.Line+" "+r.Auth)
	}
	return out
}

// startVia serves the fixture's proxy through up on a port of its own.
func startVia(t *testing.T, f *proxyFixture, up *Upstream) *url.URL {
	t.Helper()
	ln := listen(t, "127.0.0.1:0")
	srv := f.proxy.ServerFor(f.proxy.Via(up))
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return &url.URL{Scheme: "http", Host: ln.Addr().String()}
}

func viaClient(t *testing.T, proxy *url.URL, ts *trackedServer) *http.Client {
	tr := &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true}
	if ts != nil && ts.TLS != nil {
		tr.TLSClientConfig = ts.tlsConfig()
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// basicAlice is the Proxy-Authorization of alice:s3cret.
const basicAlice = "Basic YWxpY2U6czNjcmV0"

func TestViaSendsEachTargetThroughTheCallersProxyWithItsCredentials(t *testing.T) {
	f := startProxy(t, nil)
	rp := newRecordingProxy(t, "127.0.0.1", basicAlice)
	up, err := ParseUpstream(rp.url("alice:s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	via := startVia(t, f, up)

	t.Run("a plain http request goes to the proxy in absolute form", func(t *testing.T) {
		ts := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(hello))
		res, err := viaClient(t, via, nil).Get("http://127.0.0.1:" + ts.port() + "/page")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("X-Through") != "recording-proxy" || ts.requests.Load() != 1 {
			t.Fatalf("HTTP %d %q through %q, %d requests at the target", res.StatusCode, body, res.Header.Get("X-Through"), ts.requests.Load())
		}
		want := "GET http://127.0.0.1:" + ts.port() + "/page " + basicAlice
		if got := rp.requests(); len(got) != 1 || got[0] != want {
			t.Errorf("the proxy saw %q, want [%q]", got, want)
		}
	})
	t.Run("an https request is tunnelled through the proxy's CONNECT", func(t *testing.T) {
		before := len(rp.requests())
		ts := newTrackedServer(t, "127.0.0.1", true, http.HandlerFunc(hello))
		res, err := viaClient(t, via, ts).Get("https://127.0.0.1:" + ts.port() + "/secure")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 || ts.requests.Load() != 1 {
			t.Fatalf("HTTP %d, %d requests at the target", res.StatusCode, ts.requests.Load())
		}
		want := "CONNECT 127.0.0.1:" + ts.port() + " " + basicAlice
		if got := rp.requests()[before:]; len(got) != 1 || got[0] != want {
			t.Errorf("the proxy saw %q, want [%q]", got, want)
		}
	})
	t.Run("a target the rule refuses never reaches the proxy", func(t *testing.T) {
		before := len(rp.requests())
		internal := newTrackedServer(t, "127.0.0.2", false, http.HandlerFunc(hello))
		res, err := viaClient(t, via, nil).Get("http://internal.test:" + internal.port() + "/")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden || res.Header.Get(Header) != "refused" {
			t.Errorf("HTTP %d %s=%q, want 403 refused", res.StatusCode, Header, res.Header.Get(Header))
		}
		if got := rp.requests()[before:]; len(got) != 0 || internal.requests.Load() != 0 {
			t.Errorf("the refused target reached the proxy (%q) or the server (%d)", got, internal.requests.Load())
		}
	})
}

func TestViaRefusesAProxyOnAnAddressTheRuleRefuses(t *testing.T) {
	f := startProxy(t, nil) // allows 127.0.0.1 only
	rp := newRecordingProxy(t, "127.0.0.2", "")
	up, err := ParseUpstream(rp.url("alice:s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	via := startVia(t, f, up)
	ts := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(hello))
	tls := newTrackedServer(t, "127.0.0.1", true, http.HandlerFunc(hello))
	for _, target := range []string{"http://allowed.test:" + ts.port() + "/", "https://127.0.0.1:" + tls.port() + "/"} {
		res, err := viaClient(t, via, tls).Get(target)
		if err == nil {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusForbidden || res.Header.Get(Header) != "proxy-refused" {
				t.Errorf("%s: HTTP %d %s=%q, want 403 proxy-refused", target, res.StatusCode, Header, res.Header.Get(Header))
			}
			if strings.Contains(string(body), "s3cret") {
				t.Errorf("the refusal repeats the credentials: %s", body)
			}
		} else if !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("%s: %v, want the tunnel refused with 403", target, err)
		}
	}
	rp.ln.assertNoConnection(t)
	if ts.requests.Load()+tls.requests.Load() != 0 {
		t.Error("the target was reached around the refused proxy")
	}
}

func TestViaSaysWhenTheCallersProxyRefusesATunnel(t *testing.T) {
	f := startProxy(t, nil)
	rp := newRecordingProxy(t, "127.0.0.1", basicAlice)
	up, err := ParseUpstream(rp.url("alice:wrong"))
	if err != nil {
		t.Fatal(err)
	}
	via := startVia(t, f, up)
	ts := newTrackedServer(t, "127.0.0.1", true, http.HandlerFunc(hello))
	conn, err := net.Dial("tcp", via.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "CONNECT 127.0.0.1:"+ts.port()+" HTTP/1.1\r\nHost: 127.0.0.1:"+ts.port()+"\r\n\r\n")
	buf := make([]byte, 4096)
	n, _ := conn.Read(buf)
	got := string(buf[:n])
	if !strings.HasPrefix(got, "HTTP/1.1 502") || !strings.Contains(got, "proxy-failed") || !strings.Contains(got, "407") {
		t.Errorf("answer %q, want 502 proxy-failed naming the proxy's 407", got)
	}
	if strings.Contains(got, "wrong") {
		t.Errorf("the answer repeats the credentials: %q", got)
	}
}

func TestParseUpstreamKeepsCredentialsOutOfItsWords(t *testing.T) {
	for _, bad := range []string{"socks5://u:s3cret@h:1080", "http://u:s3cret@h:99999", "http://u:s3cret@h:80/path", "u:s3cret@h:80", ""} {
		if _, err := ParseUpstream(bad); err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseUpstream(%q) = %v", bad, err)
		}
	}
	a, _ := ParseUpstream("http://alice:s3cret@proxy.test:8080")
	b, _ := ParseUpstream("http://bob:s3cret@proxy.test:8080")
	c, _ := ParseUpstream("https://proxy.test")
	if a.String() != "http://proxy.test:8080" || c.String() != "https://proxy.test:443" {
		t.Errorf("String = %q, %q", a, c)
	}
	if a.Key() == b.Key() || strings.Contains(a.Key(), "s3cret") {
		t.Errorf("keys %q and %q", a.Key(), b.Key())
	}
}

func TestViaSaysWhenTheCallersProxyRefusesAPlainRequest(t *testing.T) {
	f := startProxy(t, nil)
	rp := newRecordingProxy(t, "127.0.0.1", basicAlice)
	up, err := ParseUpstream(rp.url("alice:wrong"))
	if err != nil {
		t.Fatal(err)
	}
	via := startVia(t, f, up)
	ts := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(hello))
	res, err := viaClient(t, via, nil).Get("http://127.0.0.1:" + ts.port() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadGateway || res.Header.Get(Header) != "proxy-unreachable" || !strings.Contains(string(body), "407") {
		t.Errorf("HTTP %d %s=%q %q, want 502 naming the proxy's 407", res.StatusCode, Header, res.Header.Get(Header), body)
	}
	if strings.Contains(string(body), "wrong") || ts.requests.Load() != 0 {
		t.Errorf("the answer repeats the credentials, or the target was reached: %q", body)
	}
}
