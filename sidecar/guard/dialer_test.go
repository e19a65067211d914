package guard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sequenceResolver answers each lookup of any name with the next answer in
// its list (repeating the last), the way a rebinding DNS server does.
type sequenceResolver struct {
	answers [][]netip.Addr
	calls   atomic.Int64
}

func (r *sequenceResolver) LookupNetIP(_ context.Context, _, _ string) ([]netip.Addr, error) {
	n := int(r.calls.Add(1)) - 1
	return r.answers[min(n, len(r.answers)-1)], nil
}

func addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

type refusalLog struct {
	mu    sync.Mutex
	hosts []string
}

func (l *refusalLog) record(host string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hosts = append(l.hosts, host)
}

func (l *refusalLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.hosts)
}

func TestDialerDefeatsRebinding(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	serveRaw(t, ln, func(net.Conn) {})
	_, port, _ := net.SplitHostPort(ln.Addr().String())

	t.Run("a name that was public at check time and loopback at dial time is refused", func(t *testing.T) {
		r := &sequenceResolver{answers: [][]netip.Addr{addrs("93.184.215.14"), addrs("127.0.0.1")}}
		policy := NewPolicy(nil)
		// The orchestrator's pre-check sees the public answer...
		if _, err := policy.Resolve(context.Background(), r, "rebind.example"); err != nil {
			t.Fatalf("the pre-check refused the public answer: %v", err)
		}
		// ...and the connection itself resolves again and is refused.
		var refusals refusalLog
		d := &Dialer{Policy: policy, Resolver: r, OnRefuse: refusals.record}
		conn, err := d.DialContext(context.Background(), "tcp", net.JoinHostPort("rebind.example", port))
		if err == nil {
			conn.Close()
			t.Fatal("the dialer connected to a name that rebound to loopback")
		}
		var refused *RefusedError
		if !errors.As(err, &refused) || refused.Reason != "loopback" || refused.Host != "rebind.example" {
			t.Fatalf("DialContext = %v; want a loopback refusal naming rebind.example", err)
		}
		if refusals.count() != 1 {
			t.Errorf("OnRefuse was called %d times; want 1", refusals.count())
		}
		ln.assertNoConnection(t)
	})
}

func TestDialerRefusesMixedAnswers(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	serveRaw(t, ln, func(net.Conn) {})
	_, port, _ := net.SplitHostPort(ln.Addr().String())

	r := &sequenceResolver{answers: [][]netip.Addr{addrs("93.184.215.14", "127.0.0.1")}}
	d := &Dialer{Policy: NewPolicy(nil), Resolver: r}
	conn, err := d.DialContext(context.Background(), "tcp", net.JoinHostPort("mixed.example", port))
	if err == nil {
		conn.Close()
		t.Fatal("the dialer connected although one answer was loopback")
	}
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("DialContext = %v; want a refusal", err)
	}
	ln.assertNoConnection(t)
}

func TestDialerConnectsToTheCheckedAddress(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	serveRaw(t, ln, func(c net.Conn) { io.WriteString(c, "hello\n") })
	_, port, _ := net.SplitHostPort(ln.Addr().String())

	// Later answers point elsewhere; a dialer that looked up twice would go there.
	r := &sequenceResolver{answers: [][]netip.Addr{addrs("127.0.0.1"), addrs("10.9.9.9")}}
	d := &Dialer{Policy: NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}), Resolver: r}
	conn, err := d.DialContext(context.Background(), "tcp", net.JoinHostPort("dev.example", port))
	if err != nil {
		t.Fatalf("DialContext to an allow-listed loopback address failed: %v", err)
	}
	defer conn.Close()
	if got := conn.RemoteAddr().String(); got != ln.Addr().String() {
		t.Errorf("connected to %s; want %s", got, ln.Addr())
	}
	line := make([]byte, 6)
	if _, err := io.ReadFull(conn, line); err != nil || string(line) != "hello\n" {
		t.Errorf("read %q, %v; want the listener's greeting", line, err)
	}
	if n := r.calls.Load(); n != 1 {
		t.Errorf("the dialer looked the name up %d times; want exactly 1", n)
	}
}

func TestDialerTriesEachCheckedAddress(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	serveRaw(t, ln, func(net.Conn) {})
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	allowLoopback := NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})

	t.Run("a dead first address falls through to a live second one", func(t *testing.T) {
		d := &Dialer{Policy: allowLoopback, Resolver: &sequenceResolver{answers: [][]netip.Addr{addrs("127.0.0.2", "127.0.0.1")}}}
		conn, err := d.DialContext(context.Background(), "tcp", net.JoinHostPort("two.example", port))
		if err != nil {
			t.Fatalf("DialContext = %v; want the second address to answer", err)
		}
		conn.Close()
	})
	t.Run("when every address is dead the error says how many were tried", func(t *testing.T) {
		dead := listen(t, "127.0.0.1:0")
		_, deadPort, _ := net.SplitHostPort(dead.Addr().String())
		dead.Close()
		d := &Dialer{Policy: allowLoopback, Resolver: &sequenceResolver{answers: [][]netip.Addr{addrs("127.0.0.2", "127.0.0.3")}}}
		_, err := d.DialContext(context.Background(), "tcp", net.JoinHostPort("dead.example", deadPort))
		if err == nil || !strings.Contains(err.Error(), "any of its 2 addresses") || errors.Is(err, ErrRefused) {
			t.Fatalf("DialContext = %v; want a connection failure across 2 addresses", err)
		}
	})
}

func TestDialerFailures(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	serveRaw(t, ln, func(net.Conn) {})
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	dead := listen(t, "127.0.0.1:0")
	deadAddr := dead.Addr().String()
	dead.Close()

	allow := NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		policy  *Policy
		ctx     context.Context
		network string
		address string
		refused bool
		want    string
	}{
		{"a unix socket is not a network the dialer serves", allow, context.Background(), "unix", "/run/x.sock", false, "tcp and udp only"},
		{"an address without a port is refused", allow, context.Background(), "tcp", "127.0.0.1", false, "not host:port"},
		{"a named port is refused", allow, context.Background(), "tcp", "127.0.0.1:http", false, "port must be a number"},
		{"port zero is refused", allow, context.Background(), "tcp", "127.0.0.1:0", false, "port must be a number"},
		{"a port above 65535 is refused", allow, context.Background(), "tcp", "127.0.0.1:70000", false, "port must be a number"},
		{"tcp6 to an IPv4-only host fails", allow, context.Background(), "tcp6", "127.0.0.1:" + port, false, "no IPv6 address"},
		{"tcp4 to an IPv6-only host fails", NewPolicy(nil), context.Background(), "tcp4", "[2606:4700::1111]:443", false, "no IPv4 address"},
		{"a closed port fails as a connection error", allow, context.Background(), "tcp", deadAddr, false, "refused"},
		{"a cancelled context stops the dial", allow, cancelled, "tcp", "127.0.0.1:" + port, false, "canceled"},
		{"bracketed ::1 is refused", NewPolicy(nil), context.Background(), "tcp", "[::1]:" + port, true, "loopback"},
		{"a decimal spelling of loopback is refused", NewPolicy(nil), context.Background(), "tcp", "2130706433:" + port, true, "loopback"},
		{"a UDP dial to loopback is refused", NewPolicy(nil), context.Background(), "udp", "127.0.0.1:53", true, "loopback"},
		{"a nil policy is the strict rule", nil, context.Background(), "tcp", "127.0.0.1:" + port, true, "loopback"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var refusals refusalLog
			d := &Dialer{Policy: tc.policy, Resolver: staticResolver(nil), OnRefuse: refusals.record}
			conn, err := d.DialContext(tc.ctx, tc.network, tc.address)
			if err == nil {
				conn.Close()
				t.Fatalf("DialContext(%s, %s) succeeded; want an error mentioning %q", tc.network, tc.address, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("DialContext(%s, %s) = %v; want it to mention %q", tc.network, tc.address, err, tc.want)
			}
			if errors.Is(err, ErrRefused) != tc.refused {
				t.Errorf("errors.Is(err, ErrRefused) = %v; want %v", !tc.refused, tc.refused)
			}
			if want := map[bool]int{true: 1, false: 0}[tc.refused]; refusals.count() != want {
				t.Errorf("OnRefuse was called %d times; want %d", refusals.count(), want)
			}
		})
	}
	if got := ln.accepted(); len(got) != 0 {
		t.Errorf("the listener accepted %v; no case should have connected", got)
	}
}

func TestDialerAllowsWhatThePolicyAllows(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	serveRaw(t, ln, func(net.Conn) {})
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	allow := NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})

	for _, tc := range []struct{ name, network, address string }{
		{"a numeric allow-listed address connects over tcp", "tcp", "127.0.0.1:" + port},
		{"a numeric allow-listed address connects over tcp4", "tcp4", "127.0.0.1:" + port},
		{"an odd spelling of an allow-listed address connects to it", "tcp", "0x7f.1:" + port},
		{"localhost connects without a lookup when loopback is allowed", "tcp", "localhost:" + port},
		{"a UDP socket to an allow-listed address opens", "udp", "127.0.0.1:" + port},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &Dialer{Policy: allow, Resolver: staticResolver(nil)}
			conn, err := d.DialContext(context.Background(), tc.network, tc.address)
			if err != nil {
				t.Fatalf("DialContext(%s, %s) = %v", tc.network, tc.address, err)
			}
			conn.Close()
		})
	}
}

// TestDialerControlHook checks the second line of defence on its own: the
// hook judges the address handed to connect(2), whatever the lookup said.
func TestDialerControlHook(t *testing.T) {
	var refusals refusalLog
	d := &Dialer{Policy: NewPolicy(nil), OnRefuse: refusals.record}
	tests := []struct {
		name, address, reason string
	}{
		{"a loopback socket address is refused", "127.0.0.1:80", "loopback"},
		{"an IPv4-mapped metadata socket address is refused", "[::ffff:169.254.169.254]:80", "IPv4-mapped link-local (cloud metadata)"},
		{"an unparsable socket address is refused", "nonsense", "unparsable"},
		{"a public socket address passes", "8.8.8.8:443", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := d.control("target.example")("tcp4", tc.address, nil)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("control(%s) = %v; want nil", tc.address, err)
				}
				return
			}
			var refused *RefusedError
			if !errors.As(err, &refused) || refused.Reason != tc.reason || refused.Host != "target.example" {
				t.Fatalf("control(%s) = %v; want a %q refusal naming target.example", tc.address, err, tc.reason)
			}
		})
	}
	if refusals.count() != 3 {
		t.Errorf("OnRefuse was called %d times; want 3", refusals.count())
	}
}

func TestDialerDefaults(t *testing.T) {
	d := &Dialer{}
	if d.resolver() != Resolver(net.DefaultResolver) {
		t.Error("a Dialer without a Resolver should use net.DefaultResolver")
	}
	if d.timeout() != DefaultDialTimeout || d.budget() != DefaultDialBudget {
		t.Errorf("timeout() = %v; want %v", d.timeout(), DefaultDialTimeout)
	}
	d.Timeout = time.Second
	if d.timeout() != time.Second {
		t.Errorf("timeout() = %v; want the configured 1s", d.timeout())
	}
}

func TestDialerRacesTheCheckedAddresses(t *testing.T) {
	ln := listen(t, "127.0.0.1:0")
	serveRaw(t, ln, func(net.Conn) {})
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	allowLoopback := NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})

	// blackHole makes every attempt to the named IPs hang until its
	// context ends, as an address that drops packets does, and records
	// every address the dialer was asked to connect to.
	type dialLog struct {
		mu    sync.Mutex
		addrs []string
	}
	blackHole := func(log *dialLog, ips ...string) func(context.Context, *net.Dialer, string, string) (net.Conn, error) {
		return func(ctx context.Context, nd *net.Dialer, network, address string) (net.Conn, error) {
			log.mu.Lock()
			log.addrs = append(log.addrs, address)
			log.mu.Unlock()
			host, _, _ := net.SplitHostPort(address)
			if slices.Contains(ips, host) {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return nd.DialContext(ctx, network, address)
		}
	}

	tests := []struct {
		name     string
		answer   []string
		hang     []string
		timeout  time.Duration
		within   time.Duration
		wantFail bool
	}{
		{name: "a black-holed first address does not hold up a working second one",
			answer: []string{"127.0.0.2", "127.0.0.1"}, hang: []string{"127.0.0.2"}, timeout: 10 * time.Second, within: time.Second},
		{name: "two black-holed addresses cost one delay each before a working third",
			answer: []string{"127.0.0.2", "127.0.0.3", "127.0.0.1"}, hang: []string{"127.0.0.2", "127.0.0.3"}, timeout: 10 * time.Second, within: time.Second},
		// Nothing listens on 127.0.0.4 at that port: it refuses at once.
		{name: "a refusing first address is passed over without waiting its turn",
			answer: []string{"127.0.0.4", "127.0.0.1"}, timeout: 10 * time.Second, within: 200 * time.Millisecond},
		{name: "when every address is black-holed the attempt timeout ends the dial",
			answer: []string{"127.0.0.2", "127.0.0.3"}, hang: []string{"127.0.0.2", "127.0.0.3"}, timeout: 300 * time.Millisecond, within: 2 * time.Second, wantFail: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &dialLog{}
			d := &Dialer{
				Policy:   allowLoopback,
				Resolver: &sequenceResolver{answers: [][]netip.Addr{addrs(tt.answer...), addrs("10.9.9.9")}},
				Timeout:  tt.timeout,
				connect:  blackHole(log, tt.hang...),
			}
			start := time.Now()
			conn, err := d.DialContext(context.Background(), "tcp", net.JoinHostPort("many.example", port))
			took := time.Since(start)
			if tt.wantFail {
				if err == nil {
					conn.Close()
					t.Fatal("DialContext connected; every address hangs")
				}
			} else {
				if err != nil {
					t.Fatalf("DialContext = %v; want the working address to answer", err)
				}
				if got := conn.RemoteAddr().String(); got != ln.Addr().String() {
					t.Errorf("connected to %s; want %s", got, ln.Addr())
				}
				conn.Close()
			}
			if took > tt.within {
				t.Errorf("DialContext took %v; want under %v", took, tt.within)
			}
			t.Logf("took %v", took.Round(time.Millisecond))
			log.mu.Lock()
			defer log.mu.Unlock()
			for _, a := range log.addrs {
				host, _, _ := net.SplitHostPort(a)
				if !slices.Contains(tt.answer, host) {
					t.Errorf("dialed %s, which is not among the checked addresses %v", a, tt.answer)
				}
			}
		})
	}
}
