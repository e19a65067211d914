package pool

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testResolver answers lookups from a table the test changes while the
// pool runs, as the DNS of a headless Service does when it scales.
type testResolver struct {
	mu      sync.Mutex
	answers map[string][]netip.Addr
	err     error
	lookups int
}

func newTestResolver() *testResolver { return &testResolver{answers: map[string][]netip.Addr{}} }

func (r *testResolver) LookupNetIP(_ context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups++
	if network != "ip" {
		return nil, errors.New("the pool asked for network " + network + ", want ip")
	}
	if r.err != nil {
		return nil, r.err
	}
	a, ok := r.answers[host]
	if !ok || len(a) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return slices.Clone(a), nil
}

func (r *testResolver) set(host string, ips ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	addrs := make([]netip.Addr, len(ips))
	for i, ip := range ips {
		addrs[i] = netip.MustParseAddr(ip)
	}
	r.answers[host] = addrs
	r.err = nil
}

func (r *testResolver) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.err = err
}

func (r *testResolver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lookups
}

func TestParseSidecars(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []endpoint
		err  string
	}{
		{"one address", "127.0.0.1:9230", []endpoint{{"127.0.0.1", 9230}}, ""},
		{"a DNS name stands for all its addresses", "sidecar.glimpse.svc:9230", []endpoint{{"sidecar.glimpse.svc", 9230}}, ""},
		{"spaces and empty entries are ignored", " a:1 , ,b:2,", []endpoint{{"a", 1}, {"b", 2}}, ""},
		{"an IPv6 address is bracketed", "[::1]:9230", []endpoint{{"::1", 9230}}, ""},
		{"nothing at all is refused", "", nil, "no sidecars"},
		{"only commas is refused", ", ,", nil, "no sidecars"},
		{"a host without a port is refused", "sidecar", nil, "not host:port"},
		{"a port that is not a number is refused", "sidecar:http", nil, "port"},
		{"port zero is refused", "sidecar:0", nil, "1 to 65535"},
		{"a port above 65535 is refused", "sidecar:65536", nil, "1 to 65535"},
		{"a port without a host is refused", ":9230", nil, "no host"},
		{"one bad entry spoils the list", "a:1,b", nil, `"b"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseSidecars(c.in)
			if c.err != "" {
				if err == nil {
					t.Fatalf("ParseSidecars(%q) = %v, want an error mentioning %q", c.in, got, c.err)
				}
				if !strings.Contains(err.Error(), c.err) {
					t.Fatalf("ParseSidecars(%q) error %q does not mention %q", c.in, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSidecars(%q): %v", c.in, err)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("ParseSidecars(%q) = %v, want %v", c.in, got, c.want)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	r := newTestResolver()
	r.set("two.test", "10.0.0.2", "10.0.0.1")
	r.set("dual.test", "10.0.0.3", "fd00::3")
	r.set("v6.test", "fd00::4")
	r.set("mapped.test", "::ffff:10.0.0.5")
	r.set("again.test", "10.0.0.1")
	cases := []struct {
		name string
		in   string
		want []string
		err  string
	}{
		{"an address is used as it is, without a lookup", "10.1.2.3:9230", []string{"10.1.2.3:9230"}, ""},
		{"a name gives one sidecar per address, sorted", "two.test:9230", []string{"10.0.0.1:9230", "10.0.0.2:9230"}, ""},
		{"IPv6 answers are left out when IPv4 ones exist", "dual.test:9230", []string{"10.0.0.3:9230"}, ""},
		{"a name with only IPv6 answers keeps them", "v6.test:9230", []string{"[fd00::4]:9230"}, ""},
		{"an IPv4-mapped answer is written as IPv4", "mapped.test:1", []string{"10.0.0.5:1"}, ""},
		{"the same sidecar named twice counts once", "two.test:9230,again.test:9230,10.0.0.1:9230", []string{"10.0.0.1:9230", "10.0.0.2:9230"}, ""},
		{"a name that does not resolve fails the whole lookup", "two.test:9230,missing.test:9230", nil, "missing.test"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eps, err := ParseSidecars(c.in)
			if err != nil {
				t.Fatal(err)
			}
			before := r.count()
			got, err := resolve(context.Background(), r, eps)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("resolve(%q) = %v, %v; want an error naming %q", c.in, got, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("resolve(%q): %v", c.in, err)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("resolve(%q) = %v, want %v", c.in, got, c.want)
			}
			if !strings.Contains(c.in, ".test") && r.count() != before {
				t.Fatalf("resolve(%q) looked up a literal address", c.in)
			}
		})
	}
}

func TestDiscoveryKeepsKnownSidecarsWhenALookupFails(t *testing.T) {
	// The addresses need no sidecar behind them: discovery lists what the
	// resolver names, healthy or not.
	r := newTestResolver()
	r.set("sidecars.test", "127.0.0.11", "127.0.0.12")
	p := newTestPool(t, Config{Sidecars: "sidecars.test:9", Resolver: r, HealthInterval: 100 * time.Millisecond})
	listed := func() []string {
		var out []string
		for _, s := range p.Snapshot().Sidecars {
			out = append(out, s.Addr)
		}
		return out
	}
	if got := listed(); !slices.Equal(got, []string{"127.0.0.11:9", "127.0.0.12:9"}) {
		t.Fatalf("after Start the pool lists %v", got)
	}

	t.Run("a failed lookup drains nothing", func(t *testing.T) {
		r.fail(errors.New("the DNS server timed out"))
		n := r.count()
		waitFor(t, 5*time.Second, "three more lookups", func() bool { return r.count() >= n+3 })
		if got := listed(); len(got) != 2 {
			t.Fatalf("after failed lookups the pool lists %v; it must keep what it knew", got)
		}
	})
	t.Run("a changed answer drains the sidecar that left and adds the new one", func(t *testing.T) {
		r.set("sidecars.test", "127.0.0.12", "127.0.0.13")
		waitFor(t, 5*time.Second, "the pool to follow the new answer", func() bool {
			return slices.Equal(listed(), []string{"127.0.0.12:9", "127.0.0.13:9"})
		})
	})
	t.Run("a name that stops resolving drains nothing", func(t *testing.T) {
		r.set("sidecars.test")
		n := r.count()
		waitFor(t, 5*time.Second, "three more lookups", func() bool { return r.count() >= n+3 })
		if got := listed(); len(got) != 2 {
			t.Fatalf("after NXDOMAIN answers the pool lists %v; it must keep what it knew", got)
		}
	})
}

// listenSamePort opens one listener per loopback address, all on one port,
// as the pods behind a headless Service share their port.
func listenSamePort(t *testing.T, ips ...string) ([]net.Listener, int) {
	t.Helper()
	for range 20 {
		first, err := net.Listen("tcp", ips[0]+":0")
		if err != nil {
			t.Fatal(err)
		}
		port := first.Addr().(*net.TCPAddr).Port
		lns := []net.Listener{first}
		for _, ip := range ips[1:] {
			ln, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
			if err != nil {
				break
			}
			lns = append(lns, ln)
		}
		if len(lns) == len(ips) {
			return lns, port
		}
		for _, ln := range lns {
			ln.Close()
		}
	}
	t.Fatalf("found no port free on all of %v", ips)
	return nil, 0
}

func TestDiscoveryAddsAndDrainsSidecarsWhileRequestsKeepSucceeding(t *testing.T) {
	requireChromium(t)
	lns, port := listenSamePort(t, "127.0.0.1", "127.0.0.2")
	scs := startSidecars(t, lns, nil)
	one, two := scs[0], scs[1]
	r := newTestResolver()
	r.set("sidecars.test", "127.0.0.1")
	p := newTestPool(t, Config{Sidecars: "sidecars.test:" + strconv.Itoa(port), Resolver: r, PerSidecar: 2, QueueSize: 16, Warm: 1, HealthInterval: time.Second})
	if err := p.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}

	// Callers lease, use and release pages the whole time.
	var ok, failed atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	stopCallers := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopCallers()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				l, err := p.Lease(ctx)
				if err == nil {
					err = ping(ctx, l)
					l.Release()
				}
				cancel()
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
				} else {
					ok.Add(1)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	// leaseOn leases until a lease lands on addr, and returns it with the
	// leases that landed elsewhere, still held.
	leaseOn := func(t *testing.T, addr string) (*Lease, []*Lease) {
		t.Helper()
		var others []*Lease
		for range 8 {
			l := mustLease(t, p, 20*time.Second)
			if l.Sidecar == addr {
				return l, others
			}
			others = append(others, l)
		}
		for _, l := range others {
			l.Release()
		}
		t.Fatalf("eight leases and none on %s; the pool shows %+v", addr, p.Snapshot())
		return nil, nil
	}

	t.Run("a sidecar that appears in the answer is added and used", func(t *testing.T) {
		r.set("sidecars.test", "127.0.0.1", "127.0.0.2")
		waitFor(t, 20*time.Second, "the new sidecar to be healthy in the pool", func() bool {
			s, ok := stateOf(p, two.addr)
			return ok && s.State == "healthy"
		})
		l, others := leaseOn(t, two.addr)
		l.Release()
		for _, o := range others {
			o.Release()
		}
	})

	t.Run("a sidecar that leaves the answer is drained: no new leases, the held one finishes", func(t *testing.T) {
		held, others := leaseOn(t, one.addr)
		for _, o := range others {
			o.Release()
		}
		r.set("sidecars.test", "127.0.0.2")
		waitFor(t, 5*time.Second, "the removed sidecar to be draining", func() bool {
			s, ok := stateOf(p, one.addr)
			return ok && s.State == "draining" && s.InUse >= 1
		})
		for range 4 {
			l := mustLease(t, p, 20*time.Second)
			addr := l.Sidecar
			l.Release()
			if addr != two.addr {
				t.Fatalf("a lease went to %s after it left discovery", addr)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ping(ctx, held); err != nil {
			t.Fatalf("a lease held on a draining sidecar stopped working: %v", err)
		}
		held.Release()
		waitFor(t, 10*time.Second, "the drained sidecar to be forgotten", func() bool {
			_, listed := stateOf(p, one.addr)
			return !listed
		})
		waitFor(t, 10*time.Second, "the pool's connection to the drained sidecar to close", func() bool {
			return one.devtoolsConns() == 0
		})
		waitFor(t, 10*time.Second, "the drained sidecar's pages, warm ones included, to close", func() bool {
			pages, contexts := one.browserCounts(t)
			return pages == 0 && contexts == 0
		})
	})

	t.Run("a sidecar that comes back is used again", func(t *testing.T) {
		r.set("sidecars.test", "127.0.0.1", "127.0.0.2")
		waitFor(t, 20*time.Second, "the returning sidecar to be healthy in the pool", func() bool {
			s, ok := stateOf(p, one.addr)
			return ok && s.State == "healthy"
		})
		l, others := leaseOn(t, one.addr)
		l.Release()
		for _, o := range others {
			o.Release()
		}
	})

	stopCallers()
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d of %d leases failed while sidecars came and went; the first: %v", n, n+ok.Load(), firstErr.Load())
	}
	if ok.Load() < 3 {
		t.Fatalf("only %d leases succeeded in the background; the test did not exercise the pool", ok.Load())
	}
	t.Logf("%d leases succeeded while sidecars were added and drained", ok.Load())
}
