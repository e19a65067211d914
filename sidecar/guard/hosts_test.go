package guard

import (
	"context"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

// nameless is a Resolver that knows no name, so a test sees which lookups
// reached it.
type nameless struct{ asked []string }

func (n *nameless) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n.asked = append(n.asked, host)
	return nil, errors.New("no such host")
}

func TestParseHosts(t *testing.T) {
	lo := netip.MustParseAddr("127.0.0.1")
	tests := []struct {
		name    string
		in      string
		want    map[string]netip.Addr
		wantErr string
	}{
		{name: "pairs separated by commas are read", in: "www.googletagmanager.com=127.0.0.1,fonts.gstatic.com=::1",
			want: map[string]netip.Addr{"www.googletagmanager.com": lo, "fonts.gstatic.com": netip.MustParseAddr("::1")}},
		{name: "spaces separate too, and case and a trailing dot do not matter", in: " CDN.Example.org.=127.0.0.1  ",
			want: map[string]netip.Addr{"cdn.example.org": lo}},
		{name: "an IPv4-mapped address is unmapped", in: "a.example=::ffff:127.0.0.1", want: map[string]netip.Addr{"a.example": lo}},
		{name: "nothing is an empty table", in: "", want: map[string]netip.Addr{}},
		{name: "a pair without an address is refused", in: "a.example", wantErr: "is not name=address"},
		{name: "a name of one label is refused", in: "intranet=127.0.0.1", wantErr: "two labels or more"},
		{name: "a name with a port is refused", in: "a.example:80=127.0.0.1", wantErr: "two labels or more"},
		{name: "an address that is not one is refused", in: "a.example=127.0.0.256", wantErr: "not an IPv4 or IPv6 address"},
		{name: "an address with a zone is refused", in: "a.example=fe80::1%eth0", wantErr: "not an IPv4 or IPv6 address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHosts(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseHosts(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseHosts(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestHostsAnswersItsNamesAndPassesTheOthersOn(t *testing.T) {
	next := &nameless{}
	h := &Hosts{Table: map[string]netip.Addr{"ads.example.com": netip.MustParseAddr("127.0.0.1")}, Next: next}
	ctx := context.Background()
	tests := []struct {
		name, network, host string
		want                []netip.Addr
		asksNext            bool
	}{
		{name: "a listed name gets its address", network: "ip", host: "ads.example.com", want: []netip.Addr{netip.MustParseAddr("127.0.0.1")}},
		{name: "case and a trailing dot do not matter", network: "ip", host: "ADS.example.com.", want: []netip.Addr{netip.MustParseAddr("127.0.0.1")}},
		{name: "an IPv6 lookup of an IPv4 entry finds nothing and asks no one", network: "ip6", host: "ads.example.com"},
		{name: "a name under a listed one is not listed", network: "ip", host: "x.ads.example.com", asksNext: true},
		{name: "another name goes to the next resolver", network: "ip", host: "example.org", asksNext: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next.asked = nil
			got, _ := h.LookupNetIP(ctx, tt.network, tt.host)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("LookupNetIP(%q) = %v, want %v", tt.host, got, tt.want)
			}
			if asked := len(next.asked) > 0; asked != tt.asksNext {
				t.Errorf("the next resolver was asked %v; want asked=%v", next.asked, tt.asksNext)
			}
		})
	}
}

func TestAListedNameStillPassesThePolicy(t *testing.T) {
	h := &Hosts{Table: map[string]netip.Addr{"tags.example.com": netip.MustParseAddr("127.0.0.1")}, Next: &nameless{}}
	if _, err := NewPolicy(nil).Resolve(context.Background(), h, "tags.example.com"); err == nil {
		t.Error("a name mapped to loopback was allowed without AllowTargets")
	}
	got, err := NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}).Resolve(context.Background(), h, "tags.example.com")
	if err != nil || len(got) != 1 || got[0] != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("with loopback allowed: %v, %v", got, err)
	}
}
