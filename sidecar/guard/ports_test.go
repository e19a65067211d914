package guard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"testing"
	"time"
)

// withOwnAddrs makes the listed addresses count as this machine's own for
// the length of the test.
func withOwnAddrs(t *testing.T, addrs ...string) {
	t.Helper()
	saved := ownAddrs
	ownAddrs = &addrCache{ttl: time.Hour, list: func() []netip.Addr { return parseAddrs(addrs) }}
	t.Cleanup(func() { ownAddrs = saved })
}

func parseAddrs(ss []string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

func TestProtectedPortsAreRefusedWhateverTheAllowList(t *testing.T) {
	withOwnAddrs(t, "10.1.2.3", "fd00::7")
	everything := NewPolicy([]netip.Prefix{netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("::/0")})
	release := everything.Protect(9230)
	defer release()

	tests := []struct {
		name    string
		addr    string
		refused bool
	}{
		{"loopback on a protected port is refused though the allow-list admits it", "127.0.0.1:9230", true},
		{"any address of 127/8 on a protected port is refused", "127.8.9.10:9230", true},
		{"IPv6 loopback on a protected port is refused", "[::1]:9230", true},
		{"the IPv4-mapped form of loopback on a protected port is refused", "[::ffff:127.0.0.1]:9230", true},
		{"the unspecified address, which reaches this machine, is refused on a protected port", "0.0.0.0:9230", true},
		{"the IPv6 unspecified address is refused on a protected port", "[::]:9230", true},
		{"an address of this machine's interfaces is refused on a protected port", "10.1.2.3:9230", true},
		{"an IPv6 address of this machine is refused on a protected port", "[fd00::7]:9230", true},
		{"loopback on another port follows the allow-list", "127.0.0.1:9231", false},
		{"another machine on the protected port follows the allow-list", "10.1.2.4:9230", false},
		{"a public address on the protected port is allowed", "8.8.8.8:9230", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := everything.CheckAddrPort(netip.MustParseAddrPort(tc.addr))
			if !tc.refused {
				if err != nil {
					t.Fatalf("CheckAddrPort(%s) = %v; want allowed", tc.addr, err)
				}
				return
			}
			var refused *RefusedError
			if !errors.As(err, &refused) || refused.Reason != ReasonControlPort || refused.Port != 9230 {
				t.Fatalf("CheckAddrPort(%s) = %v; want a control-port refusal", tc.addr, err)
			}
		})
	}

	t.Run("the refusal says it is a control port and that the allow-list does not matter", func(t *testing.T) {
		err := everything.CheckAddrPort(netip.MustParseAddrPort("127.0.0.1:9230"))
		want := "127.0.0.1:9230 is a control port of the glimpse sidecar on this machine, which glimpse never connects to, whatever the allow-list says"
		if err == nil || err.Error() != want {
			t.Fatalf("Error() = %v\nwant       %s", err, want)
		}
	})
	t.Run("without a protected port the rule is the address rule alone", func(t *testing.T) {
		var refused *RefusedError
		if err := NewPolicy(nil).CheckAddrPort(netip.MustParseAddrPort("127.0.0.1:9230")); !errors.As(err, &refused) || refused.Reason != "loopback" {
			t.Fatalf("CheckAddrPort = %v; want the loopback refusal", err)
		}
		if err := (*Policy)(nil).CheckAddrPort(netip.MustParseAddrPort("8.8.8.8:9230")); err != nil {
			t.Fatalf("a nil policy refused a public address: %v", err)
		}
	})
}

func TestProtectNestsAndReleases(t *testing.T) {
	p := NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	ap := netip.MustParseAddrPort("127.0.0.1:4000")
	first := p.Protect(4000)
	second := p.Protect(4000)

	first()
	first() // a second call of the same release does nothing
	if p.CheckAddrPort(ap) == nil {
		t.Fatal("the port was allowed while one holder still protected it")
	}
	second()
	if err := p.CheckAddrPort(ap); err != nil {
		t.Fatalf("the port stayed refused after every holder released it: %v", err)
	}
	p.Protect(0)() // port 0 is no port and protects nothing
}

func TestDialerRefusesProtectedPorts(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	serveRaw(t, ln, func(net.Conn) {})
	port := uint16(ln.Addr().(*net.TCPAddr).Port)
	policy := NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")})
	defer policy.Protect(port)()
	var refusals refusalLog
	d := &Dialer{Policy: policy, Resolver: staticResolver(map[string][]string{"sidecar.test": {"127.0.0.1"}}), OnRefuse: refusals.record}
	p := strconv.Itoa(int(port))

	for _, tc := range []struct{ name, address string }{
		{"the numeric address is refused", "127.0.0.1:" + p},
		{"an odd spelling of it is refused", "0x7f.1:" + p},
		{"localhost is refused", "localhost:" + p},
		{"a name that resolves to it is refused", "sidecar.test:" + p},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := d.DialContext(context.Background(), "tcp", tc.address)
			if err == nil {
				conn.Close()
				t.Fatalf("DialContext(%s) connected to a protected port", tc.address)
			}
			var refused *RefusedError
			if !errors.As(err, &refused) || refused.Reason != ReasonControlPort {
				t.Fatalf("DialContext(%s) = %v; want a control-port refusal", tc.address, err)
			}
		})
	}
	ln.assertNoConnection(t)
	if refusals.count() != 4 {
		t.Errorf("OnRefuse was called %d times; want 4", refusals.count())
	}
	t.Run("the control hook refuses it too", func(t *testing.T) {
		err := d.control("x")("tcp4", "127.0.0.1:"+p, nil)
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("control = %v; want a refusal", err)
		}
	})
}

func TestProxyRefusesProtectedPorts(t *testing.T) {
	ts := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(hello))
	port, _ := strconv.Atoi(ts.port())
	f := startProxy(t, nil)
	defer f.proxy.dialer.Policy.Protect(uint16(port))()

	t.Run("a CONNECT to a protected port on an allowed address is refused", func(t *testing.T) {
		resp, body, _, _ := f.raw(t, "CONNECT "+ts.hostPort()+" HTTP/1.1\r\nHost: "+ts.hostPort()+"\r\n\r\n")
		if resp.StatusCode != 403 || resp.Header.Get(Header) != "refused" {
			t.Fatalf("CONNECT = %d %q (%s); want 403 refused", resp.StatusCode, body, resp.Header.Get(Header))
		}
	})
	t.Run("a plain request to a protected port on an allowed address is refused", func(t *testing.T) {
		resp, err := f.client(t, nil).Get("http://" + ts.hostPort() + "/json/version")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 || resp.Header.Get(Header) != "refused" {
			t.Fatalf("GET = %d (%s); want 403 refused", resp.StatusCode, resp.Header.Get(Header))
		}
	})
	ts.ln.assertNoConnection(t)
}
