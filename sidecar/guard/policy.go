package guard

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"
)

// Policy is the address rule: public unicast only, plus the allow-list,
// which exists for development and tests. A nil *Policy is the rule with an
// empty allow-list.
//
// Addresses that embed an IPv4 address are judged by what they embed, because
// the network may translate them to it: IPv4-mapped and NAT64 (64:ff9b::/96)
// forms are allowed exactly when the embedded address is, so IPv6-only
// clusters behind NAT64 keep working. IPv4-compatible (::/96), 6to4
// (2002::/16), Teredo (2001::/32) and local-use NAT64 (64:ff9b:1::/48) forms
// are always refused: they are deprecated or site-specific, and where they
// lead is decided by relays outside the rule's view. Their reason still names
// the embedded range when that range is refused on its own.
type Policy struct {
	allow []netip.Prefix

	portsMu sync.RWMutex
	ports   map[uint16]int // reserved by Protect, with the number of holders
}

// NewPolicy returns the rule with the given allow-list. Addresses inside any
// of its prefixes are allowed whatever their range.
func NewPolicy(allow []netip.Prefix) *Policy {
	p := &Policy{}
	for _, pfx := range allow {
		if pfx.IsValid() {
			p.allow = append(p.allow, pfx.Masked())
		}
	}
	return p
}

// ParsePrefixes parses a comma-separated allow-list such as
// "127.0.0.0/8, ::1/128"; a bare address stands for itself (/32 or /128).
// Empty items are skipped, so an empty string is an empty list.
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if strings.Contains(item, "/") {
			pfx, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("allow-list item %d (%q) is not a CIDR prefix such as 127.0.0.0/8 or ::1/128: %w", i+1, item, err)
			}
			out = append(out, pfx.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("allow-list item %d (%q) is neither an IP address nor a CIDR prefix such as 127.0.0.0/8: %w", i+1, item, err)
		}
		if a.Zone() != "" {
			return nil, fmt.Errorf("allow-list item %d (%q) carries an IPv6 zone; write the address without %%zone", i+1, item)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// Allowed returns a copy of the allow-list.
func (p *Policy) Allowed() []netip.Prefix {
	if p == nil || len(p.allow) == 0 {
		return nil
	}
	return append([]netip.Prefix(nil), p.allow...)
}

// CheckAddr returns nil for an allowed address, else a *RefusedError whose
// Reason names the range.
func (p *Policy) CheckAddr(a netip.Addr) error {
	a = a.WithZone("")
	if !a.IsValid() {
		return &RefusedError{Reason: "invalid"}
	}
	if p.allows(a) {
		return nil
	}
	if reason, refused := classify(a); refused {
		return &RefusedError{Host: a.String(), Addr: a, Reason: reason}
	}
	return nil
}

// allows compares the unmapped form too, so an allow-list entry of
// 127.0.0.0/8 also admits ::ffff:127.0.0.1, which connects to the same place.
func (p *Policy) allows(a netip.Addr) bool {
	if p == nil {
		return false
	}
	u := a.Unmap()
	for _, pfx := range p.allow {
		if pfx.Contains(a) || pfx.Contains(u) {
			return true
		}
	}
	return false
}

type rangeRule struct {
	prefix netip.Prefix
	reason string
}

func rules(pairs ...string) []rangeRule {
	out := make([]rangeRule, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, rangeRule{netip.MustParsePrefix(pairs[i]), pairs[i+1]})
	}
	return out
}

// The first matching rule wins, so a narrower range comes before the wider
// one that contains it.
var v4Rules = rules(
	"0.0.0.0/32", "unspecified",
	"0.0.0.0/8", "current-network (0.0.0.0/8)",
	"10.0.0.0/8", "private (RFC 1918)",
	"100.64.0.0/10", "carrier-grade NAT",
	"127.0.0.0/8", "loopback",
	"169.254.169.254/32", "link-local (cloud metadata)",
	"169.254.0.0/16", "link-local",
	"172.16.0.0/12", "private (RFC 1918)",
	"192.0.0.0/24", "IETF protocol assignments",
	"192.0.2.0/24", "documentation",
	"192.88.99.0/24", "6to4 relay anycast",
	"192.168.0.0/16", "private (RFC 1918)",
	"198.18.0.0/15", "benchmarking",
	"198.51.100.0/24", "documentation",
	"203.0.113.0/24", "documentation",
	"224.0.0.0/4", "multicast",
	"255.255.255.255/32", "broadcast",
	"240.0.0.0/4", "reserved",
)

var v6Rules = rules(
	"::/128", "unspecified",
	"::1/128", "loopback",
	"100::/64", "discard-only",
	"2001:2::/48", "benchmarking",
	"2001:10::/28", "ORCHID",
	"2001:20::/28", "ORCHIDv2",
	"2001:db8::/32", "documentation",
	"3fff::/20", "documentation",
	"fc00::/7", "unique local",
	"fe80::/10", "link-local",
	"fec0::/10", "site-local",
	"ff00::/8", "multicast",
)

var (
	mappedPrefix      = netip.MustParsePrefix("::ffff:0:0/96")
	compatiblePrefix  = netip.MustParsePrefix("::/96")
	nat64Prefix       = netip.MustParsePrefix("64:ff9b::/96")
	nat64LocalPrefix  = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFourPrefix   = netip.MustParsePrefix("2002::/16")
	teredoPrefix      = netip.MustParsePrefix("2001::/32")
	globalUnicastV6   = netip.MustParsePrefix("2000::/3")
	globalUnicastNote = "reserved (outside global unicast 2000::/3)"
)

// classify judges an address against the fixed ranges, ignoring the
// allow-list: the allow-list exempts the address being connected to, not an
// IPv4 address hidden inside an IPv6 one.
func classify(a netip.Addr) (reason string, refused bool) {
	if a.Is4() {
		return match(v4Rules, a)
	}
	if reason, refused := match(v6Rules, a); refused {
		return reason, true
	}
	b := a.As16()
	switch {
	case mappedPrefix.Contains(a):
		if inner, refused := classify(a.Unmap()); refused {
			return "IPv4-mapped " + inner, true
		}
		return "", false
	case compatiblePrefix.Contains(a):
		return embedded("IPv4-compatible ", v4At(b, 12), "IPv4-compatible (deprecated)")
	case nat64Prefix.Contains(a):
		if inner, refused := classify(v4At(b, 12)); refused {
			return "NAT64 of " + inner, true
		}
		return "", false
	case nat64LocalPrefix.Contains(a):
		// The operator decides where the IPv4 address sits; the /96 layout
		// is the common one and gives the better message.
		return embedded("local-use NAT64 of ", v4At(b, 12), "local-use NAT64")
	case sixToFourPrefix.Contains(a):
		return embedded("6to4 of ", v4At(b, 2), "6to4 (deprecated relay)")
	case teredoPrefix.Contains(a):
		// The client address is stored inverted (RFC 4380).
		client := netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
		return embedded("Teredo of ", client, "Teredo")
	case !globalUnicastV6.Contains(a):
		return globalUnicastNote, true
	}
	return "", false
}

// embedded refuses an always-refused translation form, naming the embedded
// range when that range is refused on its own.
func embedded(prefix string, v4 netip.Addr, plain string) (string, bool) {
	if inner, refused := classify(v4); refused {
		return prefix + inner, true
	}
	return plain, true
}

func v4At(b [16]byte, i int) netip.Addr {
	return netip.AddrFrom4([4]byte{b[i], b[i+1], b[i+2], b[i+3]})
}

func match(rs []rangeRule, a netip.Addr) (string, bool) {
	for _, r := range rs {
		if r.prefix.Contains(a) {
			return r.reason, true
		}
	}
	return "", false
}
