package guard

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// ReasonControlPort is the Reason of a refusal to connect to a port that
// Protect reserved: the sidecar's own endpoints and Chromium's DevTools port.
const ReasonControlPort = "control port"

// Protect makes the rule refuse port on every address of this machine
// (loopback, the unspecified address, and the addresses of its network
// interfaces), whatever the allow-list says: a development allow-list such
// as 127.0.0.0/8 must not hand a page the sidecar's DevTools endpoint, its
// egress proxy, or Chromium's own DevTools port. Calls nest; release undoes
// one call and may be called more than once. Protect needs a Policy from
// NewPolicy, not a nil one.
func (p *Policy) Protect(port uint16) (release func()) {
	if port == 0 {
		return func() {}
	}
	p.portsMu.Lock()
	if p.ports == nil {
		p.ports = map[uint16]int{}
	}
	p.ports[port]++
	p.portsMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.portsMu.Lock()
			defer p.portsMu.Unlock()
			if p.ports[port]--; p.ports[port] <= 0 {
				delete(p.ports, port)
			}
		})
	}
}

// CheckAddrPort is CheckAddr for a connection to ap: it also refuses a
// port reserved with Protect on an address of this machine.
func (p *Policy) CheckAddrPort(ap netip.AddrPort) error {
	return p.checkAddrPort("", ap)
}

// checkAddrPort is CheckAddrPort with the host name recorded in the refusal.
// The reserved ports come first, so the allow-list cannot exempt them.
func (p *Policy) checkAddrPort(host string, ap netip.AddrPort) error {
	a := ap.Addr().WithZone("").Unmap()
	if p.protects(ap.Port()) && isOwnAddr(a) {
		if host == "" {
			host = a.String()
		}
		return &RefusedError{Host: host, Addr: a, Port: ap.Port(), Reason: ReasonControlPort}
	}
	return p.check(host, ap.Addr())
}

func (p *Policy) protects(port uint16) bool {
	if p == nil {
		return false
	}
	p.portsMu.RLock()
	defer p.portsMu.RUnlock()
	return p.ports[port] > 0
}

// isOwnAddr reports whether a connection to a reaches this machine without
// leaving it. a is unmapped and zone-free.
func isOwnAddr(a netip.Addr) bool {
	if a.IsLoopback() || a.IsUnspecified() {
		return true
	}
	return ownAddrs.has(a)
}

// ownAddrs caches the addresses of this machine's interfaces; they change
// rarely, and a dial should not cost a netlink round trip each time.
var ownAddrs = &addrCache{ttl: 10 * time.Second, list: interfaceAddrs}

type addrCache struct {
	ttl  time.Duration
	list func() []netip.Addr

	mu    sync.Mutex
	at    time.Time
	addrs map[netip.Addr]bool
}

func (c *addrCache) has(a netip.Addr) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.addrs == nil || time.Since(c.at) > c.ttl {
		c.addrs = map[netip.Addr]bool{}
		for _, x := range c.list() {
			c.addrs[x.WithZone("").Unmap()] = true
		}
		c.at = time.Now()
	}
	return c.addrs[a]
}

func interfaceAddrs() []netip.Addr {
	ifaddrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	out := make([]netip.Addr, 0, len(ifaddrs))
	for _, ia := range ifaddrs {
		if n, ok := ia.(*net.IPNet); ok {
			if a, ok := netip.AddrFromSlice(n.IP); ok {
				out = append(out, a)
			}
		}
	}
	return out
}
