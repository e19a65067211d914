package pool

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Resolver looks up the addresses behind a name. *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// endpoint is one entry of the configured sidecar list: a host (a name or an
// address) and a port.
type endpoint struct {
	host string
	port int
}

// ParseSidecars reads the GLIMPSE_SIDECARS form: comma-separated host:port
// entries, where a host may be a DNS name that resolves to many sidecars.
func ParseSidecars(s string) ([]endpoint, error) {
	var out []endpoint
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		host, portStr, err := net.SplitHostPort(item)
		if err != nil {
			return nil, fmt.Errorf("sidecar %q is not host:port (for example sidecar.glimpse.svc:9230): %v", item, err)
		}
		port, err := strconv.Atoi(portStr)
		if err != nil || port < 1 || port > 65535 {
			return nil, fmt.Errorf("sidecar %q has port %q; a port is a number from 1 to 65535", item, portStr)
		}
		if host == "" {
			return nil, fmt.Errorf("sidecar %q has no host", item)
		}
		out = append(out, endpoint{host: host, port: port})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no sidecars in %q; give host:port entries separated by commas", s)
	}
	return out, nil
}

// resolve turns the configured entries into the sidecar addresses they stand
// for now. A name is looked up every time, so a headless Service that scales
// up or down is followed. When a name has IPv4 addresses its IPv6 ones are
// left out: "localhost" must not count one sidecar twice.
func resolve(ctx context.Context, r Resolver, eps []endpoint) ([]string, error) {
	var addrs []string
	for _, ep := range eps {
		if ip, err := netip.ParseAddr(ep.host); err == nil {
			addrs = append(addrs, netip.AddrPortFrom(ip, uint16(ep.port)).String())
			continue
		}
		ips, err := r.LookupNetIP(ctx, "ip", ep.host)
		if err != nil {
			// An incomplete answer must not drain the sidecars it missed:
			// the caller keeps the set it has until a lookup succeeds.
			return nil, fmt.Errorf("looking up sidecars at %s: %w", ep.host, err)
		}
		var v4 []netip.Addr
		for _, ip := range ips {
			if ip.Unmap().Is4() {
				v4 = append(v4, ip.Unmap())
			}
		}
		if len(v4) > 0 {
			ips = v4
		}
		for _, ip := range ips {
			addrs = append(addrs, netip.AddrPortFrom(ip, uint16(ep.port)).String())
		}
	}
	slices.Sort(addrs)
	return slices.Compact(addrs), nil
}
