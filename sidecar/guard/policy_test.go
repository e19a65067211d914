package guard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// TestAddressRule walks every spelling the rule must see through: numeric
// IPv4 forms a URL parser accepts, IPv6 with and without brackets, mixed
// notation, and the translation forms that embed an IPv4 address.
func TestAddressRule(t *testing.T) {
	names := staticResolver(map[string][]string{
		"example.com":        {"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
		"127.0.0.1.nip.io":   {"127.0.0.1"},
		"metadata.internal":  {"169.254.169.254"},
		"mapped.example":     {"::ffff:8.8.4.4"},
		"mixed.example":      {"8.8.8.8", "10.1.2.3"},
		"rebind.example":     {"::ffff:127.0.0.1"},
		"nat64-meta.example": {"64:ff9b::a9fe:a9fe"},
	})
	tests := []struct {
		name   string
		host   string
		addr   string // the address judged
		reason string // empty when allowed
	}{
		// IPv4 loopback in every spelling.
		{"dotted-decimal loopback is refused", "127.0.0.1", "127.0.0.1", "loopback"},
		{"two-part loopback is refused", "127.1", "127.0.0.1", "loopback"},
		{"three-part loopback is refused", "127.0.1", "127.0.0.1", "loopback"},
		{"a single decimal number for loopback is refused", "2130706433", "127.0.0.1", "loopback"},
		{"a single hex number for loopback is refused", "0x7f000001", "127.0.0.1", "loopback"},
		{"an upper-case hex number for loopback is refused", "0X7F000001", "127.0.0.1", "loopback"},
		{"a single octal number for loopback is refused", "017700000001", "127.0.0.1", "loopback"},
		{"hex first part with a short tail is refused", "0x7f.1", "127.0.0.1", "loopback"},
		{"hex first part with dotted tail is refused", "0x7f.0.0.1", "127.0.0.1", "loopback"},
		{"octal first part is refused", "0177.0.0.1", "127.0.0.1", "loopback"},
		{"octal parts with extra zeros are refused", "0177.000.000.001", "127.0.0.1", "loopback"},
		{"a trailing dot is refused", "127.0.0.1.", "127.0.0.1", "loopback"},
		{"a hex short form with a trailing dot is refused", "0x7f.1.", "127.0.0.1", "loopback"},
		{"percent-encoded digits are refused", "%31%32%37.0.0.1", "127.0.0.1", "loopback"},
		{"full-width digits are refused", "１２７.０.０.１", "127.0.0.1", "loopback"},
		{"ideographic full stops are refused", "127。0。0。1", "127.0.0.1", "loopback"},
		{"the top of 127/8 is refused", "127.255.255.254", "127.255.255.254", "loopback"},
		{"localhost is refused without a lookup", "localhost", "127.0.0.1", "loopback"},
		{"upper-case localhost with a trailing dot is refused", "LOCALHOST.", "127.0.0.1", "loopback"},
		{"a name under .localhost is refused", "api.localhost", "127.0.0.1", "loopback"},
		{"a public name that resolves to loopback is refused", "127.0.0.1.nip.io", "127.0.0.1", "loopback"},
		{"a name answering with an IPv4-mapped loopback is refused", "rebind.example", "::ffff:127.0.0.1", "IPv4-mapped loopback"},

		// The rest of IPv4's special ranges.
		{"0.0.0.0 is refused as unspecified", "0.0.0.0", "0.0.0.0", "unspecified"},
		{"a bare 0 is refused as unspecified", "0", "0.0.0.0", "unspecified"},
		{"a bare 0x is refused as unspecified", "0x", "0.0.0.0", "unspecified"},
		{"the rest of 0/8 is refused", "0.1.2.3", "0.1.2.3", "current-network (0.0.0.0/8)"},
		{"10/8 is refused as private", "10.0.0.1", "10.0.0.1", "private (RFC 1918)"},
		{"10/8 in octal is refused as private", "012.0.0.1", "10.0.0.1", "private (RFC 1918)"},
		{"172.16/12 is refused as private", "172.16.0.1", "172.16.0.1", "private (RFC 1918)"},
		{"the top of 172.16/12 is refused", "172.31.255.255", "172.31.255.255", "private (RFC 1918)"},
		{"192.168/16 is refused as private", "192.168.1.1", "192.168.1.1", "private (RFC 1918)"},
		{"192.168.1.1 as one decimal number is refused", "3232235777", "192.168.1.1", "private (RFC 1918)"},
		{"carrier-grade NAT is refused", "100.64.0.1", "100.64.0.1", "carrier-grade NAT"},
		{"the top of carrier-grade NAT is refused", "100.127.255.255", "100.127.255.255", "carrier-grade NAT"},
		{"the metadata address is refused", "169.254.169.254", "169.254.169.254", "link-local (cloud metadata)"},
		{"the metadata address in decimal is refused", "2852039166", "169.254.169.254", "link-local (cloud metadata)"},
		{"the metadata address in hex is refused", "0xa9fea9fe", "169.254.169.254", "link-local (cloud metadata)"},
		{"the metadata address in octal parts is refused", "0251.0376.0251.0376", "169.254.169.254", "link-local (cloud metadata)"},
		{"the metadata address in three parts is refused", "169.254.43518", "169.254.169.254", "link-local (cloud metadata)"},
		{"a name for the metadata address is refused", "metadata.internal", "169.254.169.254", "link-local (cloud metadata)"},
		{"other link-local addresses are refused", "169.254.1.1", "169.254.1.1", "link-local"},
		{"IETF protocol assignments are refused", "192.0.0.8", "192.0.0.8", "IETF protocol assignments"},
		{"TEST-NET-1 is refused", "192.0.2.1", "192.0.2.1", "documentation"},
		{"TEST-NET-2 is refused", "198.51.100.7", "198.51.100.7", "documentation"},
		{"TEST-NET-3 is refused", "203.0.113.9", "203.0.113.9", "documentation"},
		{"benchmarking addresses are refused", "198.19.255.255", "198.19.255.255", "benchmarking"},
		{"the 6to4 relay anycast range is refused", "192.88.99.1", "192.88.99.1", "6to4 relay anycast"},
		{"multicast is refused", "224.0.0.1", "224.0.0.1", "multicast"},
		{"SSDP multicast is refused", "239.255.255.250", "239.255.255.250", "multicast"},
		{"reserved 240/4 is refused", "240.0.0.1", "240.0.0.1", "reserved"},
		{"broadcast is refused", "255.255.255.255", "255.255.255.255", "broadcast"},
		{"broadcast as one number is refused", "4294967295", "255.255.255.255", "broadcast"},
		{"a name with one private answer among public ones is refused", "mixed.example", "10.1.2.3", "private (RFC 1918)"},

		// IPv6.
		{"bracketed ::1 is refused", "[::1]", "::1", "loopback"},
		{"bare ::1 is refused", "::1", "::1", "loopback"},
		{"fully written ::1 is refused", "[0:0:0:0:0:0:0:1]", "::1", "loopback"},
		{"the unspecified IPv6 address is refused", "[::]", "::", "unspecified"},
		{"IPv4-mapped loopback in mixed notation is refused", "[::ffff:127.0.0.1]", "::ffff:127.0.0.1", "IPv4-mapped loopback"},
		{"IPv4-mapped loopback in hex is refused", "[::ffff:7f00:1]", "::ffff:127.0.0.1", "IPv4-mapped loopback"},
		{"IPv4-mapped loopback in upper case is refused", "[::FFFF:7F00:0001]", "::ffff:127.0.0.1", "IPv4-mapped loopback"},
		{"IPv4-mapped loopback written in full is refused", "[0:0:0:0:0:ffff:127.0.0.1]", "::ffff:127.0.0.1", "IPv4-mapped loopback"},
		{"IPv4-mapped metadata is refused", "[::ffff:169.254.169.254]", "::ffff:169.254.169.254", "IPv4-mapped link-local (cloud metadata)"},
		{"IPv4-mapped metadata in hex is refused", "[::ffff:a9fe:a9fe]", "::ffff:169.254.169.254", "IPv4-mapped link-local (cloud metadata)"},
		{"IPv4-mapped private is refused", "[::ffff:10.0.0.1]", "::ffff:10.0.0.1", "IPv4-mapped private (RFC 1918)"},
		{"IPv4-compatible loopback is refused", "[::127.0.0.1]", "::127.0.0.1", "IPv4-compatible loopback"},
		{"IPv4-compatible loopback in hex is refused", "[::7f00:1]", "::127.0.0.1", "IPv4-compatible loopback"},
		{"IPv4-compatible public is refused as deprecated", "[::8.8.8.8]", "::8.8.8.8", "IPv4-compatible (deprecated)"},
		{"NAT64 of loopback is refused", "[64:ff9b::127.0.0.1]", "64:ff9b::7f00:1", "NAT64 of loopback"},
		{"NAT64 of loopback in hex is refused", "[64:ff9b::7f00:1]", "64:ff9b::7f00:1", "NAT64 of loopback"},
		{"NAT64 of metadata is refused", "[64:ff9b::a9fe:a9fe]", "64:ff9b::a9fe:a9fe", "NAT64 of link-local (cloud metadata)"},
		{"a name answering with NAT64 of metadata is refused", "nat64-meta.example", "64:ff9b::a9fe:a9fe", "NAT64 of link-local (cloud metadata)"},
		{"NAT64 of private is refused", "[64:ff9b::10.1.2.3]", "64:ff9b::a01:203", "NAT64 of private (RFC 1918)"},
		{"local-use NAT64 of loopback is refused", "[64:ff9b:1::7f00:1]", "64:ff9b:1::7f00:1", "local-use NAT64 of loopback"},
		{"local-use NAT64 of a public address is refused", "[64:ff9b:1::808:808]", "64:ff9b:1::808:808", "local-use NAT64"},
		{"6to4 of loopback is refused", "[2002:7f00:1::]", "2002:7f00:1::", "6to4 of loopback"},
		{"6to4 of metadata is refused", "[2002:a9fe:a9fe::1]", "2002:a9fe:a9fe::1", "6to4 of link-local (cloud metadata)"},
		{"6to4 of a public address is refused as deprecated", "[2002:808:808::1]", "2002:808:808::1", "6to4 (deprecated relay)"},
		{"Teredo with a loopback client is refused", "[2001:0:4136:e378:8000:63bf:80ff:fffe]", "2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo of loopback"},
		{"Teredo with a public client is refused", "[2001::f7f7:f7f7]", "2001::f7f7:f7f7", "Teredo"},
		{"link-local IPv6 is refused", "[fe80::1]", "fe80::1", "link-local"},
		{"link-local IPv6 with a URL zone is refused", "[fe80::1%25eth0]", "fe80::1", "link-local"},
		{"bare link-local IPv6 with a zone is refused", "fe80::1%eth0", "fe80::1", "link-local"},
		{"the top of fe80::/10 is refused", "[febf::1]", "febf::1", "link-local"},
		{"unique local fc00::/8 is refused", "[fc00::1]", "fc00::1", "unique local"},
		{"the IPv6 metadata address is refused", "[fd00:ec2::254]", "fd00:ec2::254", "unique local"},
		{"site-local is refused", "[fec0::1]", "fec0::1", "site-local"},
		{"IPv6 multicast is refused", "[ff02::1]", "ff02::1", "multicast"},
		{"IPv6 documentation 2001:db8::/32 is refused", "[2001:db8::1]", "2001:db8::1", "documentation"},
		{"IPv6 documentation 3fff::/20 is refused", "[3fff::1]", "3fff::1", "documentation"},
		{"the discard prefix is refused", "[100::1]", "100::1", "discard-only"},
		{"IPv6 benchmarking is refused", "[2001:2::1]", "2001:2::1", "benchmarking"},
		{"ORCHID is refused", "[2001:10::1]", "2001:10::1", "ORCHID"},
		{"an IPv4-translated address is refused as outside global unicast", "[::ffff:0:7f00:1]", "::ffff:0:7f00:1", "reserved (outside global unicast 2000::/3)"},
		{"an address outside 2000::/3 is refused", "[5f00::1]", "5f00::1", "reserved (outside global unicast 2000::/3)"},

		// Public addresses pass.
		{"8.8.8.8 is allowed", "8.8.8.8", "8.8.8.8", ""},
		{"8.8.8.8 as one decimal number is allowed", "134744072", "8.8.8.8", ""},
		{"8.8.8.8 in hex is allowed", "0x08080808", "8.8.8.8", ""},
		{"the address just above 172.16/12 is allowed", "172.32.0.1", "172.32.0.1", ""},
		{"the address just above carrier-grade NAT is allowed", "100.128.0.1", "100.128.0.1", ""},
		{"a public IPv6 address is allowed", "[2606:4700::1111]", "2606:4700::1111", ""},
		{"a bare public IPv6 address is allowed", "2a00:1450:4001:81b::200e", "2a00:1450:4001:81b::200e", ""},
		{"IPv4-mapped public is allowed as its IPv4 form", "[::ffff:8.8.8.8]", "8.8.8.8", ""},
		{"NAT64 of a public address is allowed", "[64:ff9b::8.8.8.8]", "64:ff9b::808:808", ""},
		{"a name answering with an IPv4-mapped public address is allowed", "mapped.example", "8.8.4.4", ""},
		{"a public name is allowed", "example.com", "93.184.215.14", ""},
	}
	if len(tests) < 60 {
		t.Fatalf("the table has %d cases; the rule needs at least 60", len(tests))
	}
	policy := NewPolicy(nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addrs, err := policy.Resolve(context.Background(), names, tc.host)
			want := netip.MustParseAddr(tc.addr)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("Resolve(%q) = %v; want it allowed", tc.host, err)
				}
				if len(addrs) == 0 || addrs[0] != want {
					t.Fatalf("Resolve(%q) = %v; want %v first", tc.host, addrs, want)
				}
				return
			}
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("Resolve(%q) = %v, %v; want a refusal (%s)", tc.host, addrs, err, tc.reason)
			}
			if !errors.Is(err, ErrRefused) {
				t.Errorf("errors.Is(%v, ErrRefused) = false", err)
			}
			if refused.Reason != tc.reason || refused.Addr != want {
				t.Errorf("Resolve(%q) refused %v as %q; want %v as %q", tc.host, refused.Addr, refused.Reason, want, tc.reason)
			}
			if refused.Host != tc.host {
				t.Errorf("the refusal names host %q; want %q", refused.Host, tc.host)
			}
		})
	}
}

func TestParseHostIPRejectsWhatBrowsersReject(t *testing.T) {
	tests := []struct {
		name, host string
		numeric    bool // Resolve must not look the host up
	}{
		{"an empty host is no address", "", false},
		{"a name is no address", "example.com", false},
		{"a name ending in a hex-looking label is no address", "example.0xg", false},
		{"a name whose last label is not a number is no address", "127.0.0.1.example", false},
		{"a lone dot is no address", ".", false},
		{"a part above 255 before the last is invalid", "256.0.0.1", true},
		{"five parts are invalid", "1.2.3.4.5", true},
		{"a last part above its room is invalid", "1.2.3.256", true},
		{"a number above 32 bits is invalid", "4294967296", true},
		{"a huge hex number is invalid", "0x1000000000000000000", true},
		{"an 8 in an octal part is invalid", "08.0.0.1", true},
		{"a last label with a bad hex digit is a name", "1.2.3.0xfg", false},
		{"an empty middle part is invalid", "127..0.1", true},
		{"an unclosed bracket is invalid", "[::1", true},
		{"IPv4 inside brackets is invalid", "[127.0.0.1]", true},
		{"an IPv6 literal with a bad group is invalid", "[::ffff:127.0.0.256]", true},
		{"IPv6 with leading zeros in its IPv4 part is invalid", "[::ffff:127.0.0.01]", true},
		{"too many IPv6 groups are invalid", "1:2:3:4:5:6:7:8:9", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if a, ok := ParseHostIP(tc.host); ok {
				t.Fatalf("ParseHostIP(%q) = %v; want no address", tc.host, a)
			}
			_, numeric := parseHost(tc.host)
			if numeric != tc.numeric {
				t.Fatalf("parseHost(%q) numeric = %v; want %v", tc.host, numeric, tc.numeric)
			}
			looked := false
			r := resolverFunc(func(context.Context, string, string) ([]netip.Addr, error) {
				looked = true
				return nil, &net.DNSError{Err: "no such host", IsNotFound: true}
			})
			_, err := NewPolicy(nil).Resolve(context.Background(), r, tc.host)
			var lookup *LookupError
			if !errors.As(err, &lookup) {
				t.Fatalf("Resolve(%q) = %v; want a *LookupError", tc.host, err)
			}
			if tc.numeric && looked {
				t.Errorf("Resolve(%q) asked the resolver about a malformed numeric host", tc.host)
			}
		})
	}
}

func TestAllowList(t *testing.T) {
	loopback := NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	v6 := NewPolicy([]netip.Prefix{netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("fe80::/10")})
	tests := []struct {
		name    string
		policy  *Policy
		addr    netip.Addr
		allowed bool
	}{
		{"an address inside the allow-list is allowed", loopback, netip.MustParseAddr("127.0.0.2"), true},
		{"the IPv4-mapped form of an allowed address is allowed", loopback, netip.MustParseAddr("::ffff:127.0.0.1"), true},
		{"NAT64 of an allowed address stays refused", loopback, netip.MustParseAddr("64:ff9b::7f00:1"), false},
		{"an address outside the allow-list stays refused", loopback, netip.MustParseAddr("10.0.0.1"), false},
		{"::1 on the allow-list is allowed", v6, netip.MustParseAddr("::1"), true},
		{"a zoned address inside an allowed prefix is allowed", v6, netip.MustParseAddr("fe80::1%eth0"), true},
		{"IPv4 loopback stays refused when only ::1 is allowed", v6, netip.MustParseAddr("127.0.0.1"), false},
		{"a nil policy refuses loopback", nil, netip.MustParseAddr("127.0.0.1"), false},
		{"a nil policy allows a public address", nil, netip.MustParseAddr("1.1.1.1"), true},
		{"the zero address is refused as invalid", loopback, netip.Addr{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.policy.CheckAddr(tc.addr)
			if (err == nil) != tc.allowed {
				t.Fatalf("CheckAddr(%v) = %v; want allowed=%v", tc.addr, err, tc.allowed)
			}
		})
	}
	t.Run("an invalid address is refused with reason invalid", func(t *testing.T) {
		var refused *RefusedError
		if err := NewPolicy(nil).CheckAddr(netip.Addr{}); !errors.As(err, &refused) || refused.Reason != "invalid" {
			t.Fatalf("CheckAddr(zero) = %v; want reason invalid", err)
		}
	})
	t.Run("Allowed returns a copy the caller cannot use to widen the rule", func(t *testing.T) {
		got := loopback.Allowed()
		got[0] = netip.MustParsePrefix("0.0.0.0/0")
		if err := loopback.CheckAddr(netip.MustParseAddr("10.0.0.1")); err == nil {
			t.Fatal("changing the slice from Allowed widened the policy")
		}
		if NewPolicy(nil).Allowed() != nil || (*Policy)(nil).Allowed() != nil {
			t.Fatal("an empty allow-list should read back as nil")
		}
	})
	t.Run("invalid prefixes given to NewPolicy are ignored", func(t *testing.T) {
		p := NewPolicy([]netip.Prefix{{}})
		if len(p.Allowed()) != 0 {
			t.Fatalf("Allowed() = %v; want empty", p.Allowed())
		}
	})
}

func TestParsePrefixes(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string // prefixes joined by spaces
		wantErr string
	}{
		{"an empty string is an empty list", "", "", ""},
		{"a CIDR list with spaces parses", "127.0.0.0/8, ::1/128", "127.0.0.0/8 ::1/128", ""},
		{"a bare IPv4 address is a /32", "127.0.0.2", "127.0.0.2/32", ""},
		{"a bare IPv6 address is a /128", "::1", "::1/128", ""},
		{"a prefix with host bits is masked", "10.1.2.3/8", "10.0.0.0/8", ""},
		{"empty items are skipped", " , 10.0.0.0/8 ,,", "10.0.0.0/8", ""},
		{"a prefix length beyond the family is refused", "127.0.0.0/33", "", `item 1 ("127.0.0.0/33")`},
		{"a word is refused", "nope", "", `item 1 ("nope")`},
		{"the bad item is named by position", "10.0.0.0/8, bogus", "", `item 2 ("bogus")`},
		{"a zoned address is refused", "fe80::1%eth0", "", "zone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePrefixes(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParsePrefixes(%q) error = %v; want it to mention %s", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParsePrefixes(%q) = %v", tc.in, err)
			}
			var parts []string
			for _, p := range got {
				parts = append(parts, p.String())
			}
			if s := strings.Join(parts, " "); s != tc.want {
				t.Fatalf("ParsePrefixes(%q) = %q; want %q", tc.in, s, tc.want)
			}
		})
	}
}

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"a name that resolves to a private address names both",
			&RefusedError{Host: "db.internal", Addr: netip.MustParseAddr("10.0.0.5"), Reason: "private (RFC 1918)"},
			"db.internal resolves to 10.0.0.5, a private (RFC 1918) address, which glimpse does not connect to"},
		{"a numeric host is not repeated",
			&RefusedError{Host: "127.0.0.1", Addr: netip.MustParseAddr("127.0.0.1"), Reason: "loopback"},
			"127.0.0.1 is a loopback address, which glimpse does not connect to"},
		{"a bracketed host is not repeated",
			&RefusedError{Host: "[::1]", Addr: netip.MustParseAddr("::1"), Reason: "loopback"},
			"::1 is a loopback address, which glimpse does not connect to"},
		{"an odd spelling is shown with the address it means",
			&RefusedError{Host: "0x7f.1", Addr: netip.MustParseAddr("127.0.0.1"), Reason: "loopback"},
			"0x7f.1 resolves to 127.0.0.1, a loopback address, which glimpse does not connect to"},
		{"a range starting with a vowel takes an",
			&RefusedError{Host: "x", Addr: netip.MustParseAddr("::ffff:127.0.0.1"), Reason: "IPv4-mapped loopback"},
			"x resolves to ::ffff:127.0.0.1, an IPv4-mapped loopback address, which glimpse does not connect to"},
		{"unique local takes a",
			&RefusedError{Addr: netip.MustParseAddr("fd00::1"), Reason: "unique local"},
			"fd00::1 is a unique local address, which glimpse does not connect to"},
		{"a translation form names both the form and the range it hides",
			&RefusedError{Host: "[64:ff9b::a00:1]", Addr: netip.MustParseAddr("64:ff9b::a00:1"), Reason: "NAT64 of private (RFC 1918)"},
			"64:ff9b::a00:1 is a NAT64 form of a private (RFC 1918) address, which glimpse does not connect to"},
		{"6to4 of loopback reads as a form of loopback",
			&RefusedError{Host: "six.example", Addr: netip.MustParseAddr("2002:7f00:1::"), Reason: "6to4 of loopback"},
			"six.example resolves to 2002:7f00:1::, a 6to4 form of a loopback address, which glimpse does not connect to"},
		{"a refusal without an address says so",
			&RefusedError{Host: "h", Reason: "unparsable"},
			"h has no valid address (unparsable), so glimpse does not connect to it"},
		{"a refusal of the zero address names no host",
			&RefusedError{Reason: "invalid"},
			"the target has no valid address (invalid), so glimpse does not connect to it"},
		{"a lookup failure names the host and the cause",
			&LookupError{Host: "nowhere.example", Err: errors.New("no such host")},
			"glimpse could not resolve nowhere.example: no such host"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Fatalf("Error() = %q\nwant      %q", got, tc.want)
			}
		})
	}
}

func TestResolveFailures(t *testing.T) {
	dnsErr := &net.DNSError{Err: "server misbehaving", Name: "flaky.example", IsTemporary: true}
	r := resolverFunc(func(ctx context.Context, _, host string) ([]netip.Addr, error) {
		switch host {
		case "flaky.example":
			return nil, dnsErr
		case "empty.example":
			return nil, nil
		case "slow.example":
			<-ctx.Done()
			return nil, ctx.Err()
		case "dupes.example":
			return []netip.Addr{netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("::ffff:8.8.8.8"), netip.MustParseAddr("2606:4700::1111")}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		resolver Resolver
		host     string
		check    func(error) bool
	}{
		{"a name that does not exist is a lookup error", context.Background(), r, "nowhere.example", func(err error) bool {
			var dns *net.DNSError
			return errors.As(err, &dns) && dns.IsNotFound
		}},
		{"a resolver failure is a lookup error that keeps the cause", context.Background(), r, "flaky.example", func(err error) bool {
			return errors.Is(err, dnsErr)
		}},
		{"an empty answer is a lookup error", context.Background(), r, "empty.example", func(err error) bool {
			return strings.Contains(err.Error(), "no addresses")
		}},
		{"an empty host is a lookup error", context.Background(), r, "", func(err error) bool {
			return strings.Contains(err.Error(), "empty")
		}},
		{"a missing resolver is a lookup error", context.Background(), nil, "example.com", func(err error) bool {
			return strings.Contains(err.Error(), "no resolver")
		}},
		{"a cancelled lookup keeps the cancellation", cancelled, r, "slow.example", func(err error) bool {
			return errors.Is(err, context.Canceled)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewPolicy(nil).Resolve(tc.ctx, tc.resolver, tc.host)
			var lookup *LookupError
			if !errors.As(err, &lookup) {
				t.Fatalf("Resolve(%q) = %v; want a *LookupError", tc.host, err)
			}
			if !tc.check(err) {
				t.Fatalf("Resolve(%q) = %v; the error does not carry what it should", tc.host, err)
			}
		})
	}
	t.Run("duplicate and mapped answers come back once, unmapped", func(t *testing.T) {
		got, err := NewPolicy(nil).Resolve(context.Background(), r, "dupes.example")
		if err != nil {
			t.Fatal(err)
		}
		want := []netip.Addr{netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("2606:4700::1111")}
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("Resolve = %v; want %v", got, want)
		}
	})
}

func FuzzParseHostIP(f *testing.F) {
	for _, seed := range []string{
		"127.0.0.1", "2130706433", "0x7f.1", "017700000001", "127.1", "0x7f000001",
		"[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "127.0.0.1.", "[fe80::1%25eth0]",
		"%31%32%37.0.0.1", "１２７.０.０.１", "0x", "1.2.3.4.5", "[", "]", ".", "..",
		"example.com", "0x1000000000000000000", "%zz", "[::1", "::", "a:b",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, host string) {
		a, ok := ParseHostIP(host)
		if !ok {
			if a.IsValid() {
				t.Fatalf("ParseHostIP(%q) = %v, false; a refusal must not carry an address", host, a)
			}
			return
		}
		if !a.IsValid() || a.Zone() != "" {
			t.Fatalf("ParseHostIP(%q) = %v; want a valid address without a zone", host, a)
		}
		if back, ok := ParseHostIP(a.String()); !ok || back != a {
			t.Fatalf("ParseHostIP(%q) = %v, but its canonical form parses as %v, %v", host, a, back, ok)
		}
		_ = NewPolicy(nil).CheckAddr(a)
	})
}
