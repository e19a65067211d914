package guard

import (
	"net/netip"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// ParseHostIP recognises every numeric spelling of a host that the WHATWG
// URL parser, and so a browser, turns into an address: bracketed or bare
// IPv6 (including mixed notation such as ::ffff:127.0.0.1 and a %zone),
// and IPv4 with one to four parts, each decimal, octal (leading 0) or hex
// (0x), with an optional trailing dot, percent-encoded or written in
// full-width digits. It reports false for a name that must be resolved, and
// also for a host that looks numeric but is not a valid address (such as
// 256.1.1.1.1); Resolve refuses to look those up.
func ParseHostIP(host string) (netip.Addr, bool) {
	a, numeric := parseHost(host)
	return a, numeric && a.IsValid()
}

// parseHost returns the address of a numeric host. numeric is true when the
// host is an IP literal by its form; a zero address then means the literal is
// malformed and must not be handed to a resolver, which may read it
// differently (inet_aton accepts some spellings that URLs do not).
func parseHost(host string) (a netip.Addr, numeric bool) {
	if host == "" {
		return netip.Addr{}, false
	}
	if host[0] == '[' {
		if len(host) < 2 || host[len(host)-1] != ']' {
			return netip.Addr{}, true
		}
		// Brackets hold IPv6 only; "[127.0.0.1]" is not a valid URL host.
		if a := parseIPv6(host[1 : len(host)-1]); a.Is6() {
			return a, true
		}
		return netip.Addr{}, true
	}
	if strings.Contains(host, ":") {
		// A domain never contains a colon; this is IPv6 without brackets,
		// as net.SplitHostPort leaves it.
		return parseIPv6(host), true
	}
	return parseIPv4(domainForm(host))
}

// domainForm applies the steps the URL parser runs before it decides whether
// a host is an IPv4 address: percent-decoding, then UTS #46 mapping (which
// turns full-width digits and ideographic full stops into ASCII), then lower
// case. A host that fails mapping is kept as written.
func domainForm(host string) string {
	if strings.Contains(host, "%") {
		if dec, err := url.PathUnescape(host); err == nil {
			host = dec
		}
	}
	if !isASCII(host) {
		if mapped, err := uts46.ToASCII(host); err == nil {
			host = mapped
		}
	}
	return strings.ToLower(host)
}

var uts46 = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false))

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func parseIPv6(s string) netip.Addr {
	if i := strings.IndexByte(s, '%'); i >= 0 {
		s = s[:i] // zone, written as %25 inside URLs; it does not change the range
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.WithZone("")
}

// parseIPv4 follows the WHATWG "ends in a number" and IPv4 parser steps.
func parseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return netip.Addr{}, false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last == "" {
		return netip.Addr{}, false
	}
	if _, ok := parseIPv4Number(last); !ok && !allDigits(last) {
		return netip.Addr{}, false
	}
	// From here on the host is numeric: a failure makes it invalid, not a name.
	if len(parts) > 4 {
		return netip.Addr{}, true
	}
	nums := make([]uint64, len(parts))
	for i, part := range parts {
		n, ok := parseIPv4Number(part)
		if !ok {
			return netip.Addr{}, true
		}
		if i < len(parts)-1 && n > 255 {
			return netip.Addr{}, true
		}
		nums[i] = n
	}
	if nums[len(nums)-1] >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, true
	}
	v := nums[len(nums)-1]
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// parseIPv4Number parses one part: 0x/0X for hex, a leading 0 for octal,
// else decimal; "0x" alone is zero. Values beyond 2^32 saturate, since they
// are out of range anyway and the part may have any length.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) >= 2 && s[0] == '0':
		base, s = 8, s[1:]
	}
	const ceiling = 1 << 33
	var n uint64
	for i := 0; i < len(s); i++ {
		d, ok := digitValue(s[i])
		if !ok || d >= base {
			return 0, false
		}
		n = min(n*base+d, ceiling)
	}
	return n, true
}

func digitValue(c byte) (uint64, bool) {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0'), true
	case 'a' <= c && c <= 'f':
		return uint64(c-'a') + 10, true
	case 'A' <= c && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
