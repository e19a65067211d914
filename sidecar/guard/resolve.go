package guard

import (
	"context"
	"errors"
	"net/netip"
	"strings"
)

// Resolver looks names up; *net.Resolver satisfies it. Tests and the
// orchestrator may supply their own.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

var loopbackV4 = netip.AddrFrom4([4]byte{127, 0, 0, 1})

// Resolve turns host into the addresses a connection may use. A numeric host
// is taken as is; a name is looked up once with r. Every address is checked
// and any refused one refuses the whole host, because the caller cannot know
// which of them the other end of a later connection would pick. The returned
// addresses are unmapped and zone-free, ready to dial.
//
// "localhost" and names under ".localhost" count as 127.0.0.1 without a
// lookup (RFC 6761), as browsers treat them.
func (p *Policy) Resolve(ctx context.Context, r Resolver, host string) ([]netip.Addr, error) {
	if a, numeric := parseHost(host); numeric {
		if !a.IsValid() {
			return nil, &LookupError{Host: host, Err: errors.New("it looks like a numeric address but is not a valid IPv4 or IPv6 address")}
		}
		if err := p.check(host, a); err != nil {
			return nil, err
		}
		return []netip.Addr{a.Unmap()}, nil
	}

	name := strings.TrimSuffix(domainForm(host), ".")
	if name == "" {
		return nil, &LookupError{Host: host, Err: errors.New("the host name is empty")}
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		if err := p.check(host, loopbackV4); err != nil {
			return nil, err
		}
		return []netip.Addr{loopbackV4}, nil
	}
	if r == nil {
		return nil, &LookupError{Host: host, Err: errors.New("no resolver is configured")}
	}

	addrs, err := r.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return nil, &LookupError{Host: host, Err: err}
	}
	if len(addrs) == 0 {
		return nil, &LookupError{Host: host, Err: errors.New("the name has no addresses")}
	}
	out := make([]netip.Addr, 0, len(addrs))
	seen := make(map[netip.Addr]bool, len(addrs))
	for _, a := range addrs {
		if err := p.check(host, a); err != nil {
			return nil, err
		}
		a = a.WithZone("").Unmap()
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out, nil
}

// check is CheckAddr with the host name recorded in the refusal.
func (p *Policy) check(host string, a netip.Addr) error {
	err := p.CheckAddr(a)
	var refused *RefusedError
	if errors.As(err, &refused) {
		refused.Host = host
	}
	return err
}
