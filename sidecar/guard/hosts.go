package guard

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/glimpse/glimpse/sidecar/guard/adblock"
)

// Hosts is a Resolver that answers some names from a fixed table and asks
// Next for the others. It stands third-party hosts in on this machine for
// tests and the benchmark, under their real names, so that everything the
// guard decides by name (the ad-block list) is decided as it would be.
// The addresses it gives still pass the Policy like any lookup's: mapping a
// name to loopback does nothing unless AllowTargets exempts loopback.
type Hosts struct {
	Table map[string]netip.Addr // lower-case name without a trailing dot → address
	Next  Resolver              // nil means the system resolver
}

// LookupNetIP answers a name of the table with its address, of the family
// network asks for, and any other name with Next.
func (h *Hosts) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, ok := h.Table[strings.TrimSuffix(strings.ToLower(host), ".")]; ok {
		if (network == "ip4" && !a.Is4()) || (network == "ip6" && !a.Is6()) {
			return nil, nil
		}
		return []netip.Addr{a}, nil
	}
	next := h.Next
	if next == nil {
		next = net.DefaultResolver
	}
	return next.LookupNetIP(ctx, network, host)
}

// ParseHosts reads name=address pairs separated by commas or spaces, such
// as "www.googletagmanager.com=127.0.0.1,fonts.gstatic.com=127.0.0.1".
func ParseHosts(s string) (map[string]netip.Addr, error) {
	table := map[string]netip.Addr{}
	for pair := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		name, addr, ok := strings.Cut(pair, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not name=address", pair)
		}
		name = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
		if !adblock.IsHost(name) {
			return nil, fmt.Errorf("%q is not a host name of two labels or more", name)
		}
		a, err := netip.ParseAddr(strings.TrimSpace(addr))
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("%q is not an IPv4 or IPv6 address", addr)
		}
		table[name] = a.Unmap()
	}
	return table, nil
}
