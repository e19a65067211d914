package quota

import (
	"net/netip"
	"strings"
)

// AnonymousID names an anonymous caller by its network: an IPv4 address
// alone, an IPv6 address by its /64, the smallest network a provider
// hands one subscriber. One subscriber holds 2^64 addresses, so counting
// them one by one would give it as many quotas, and as many windows to
// keep. An IPv4 address mapped into IPv6 counts as the IPv4 address.
// A value that is no address is named by itself, cut to a bounded length.
func AnonymousID(addr string) string {
	a, err := netip.ParseAddr(strings.TrimSpace(addr))
	if err != nil {
		const maxShown = 64
		if len(addr) > maxShown {
			addr = addr[:maxShown]
		}
		return "ip:" + addr
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return "ip:" + a.String()
	}
	p, _ := a.Prefix(64)
	return "ip:" + p.String()
}
