package adblock

import (
	"fmt"
	"reflect"
	"testing"
)

func TestEmbeddedList(t *testing.T) {
	_, bad := Parse(hostsText)
	l := Default()
	t.Run("every line of the embedded list is a host name", func(t *testing.T) {
		if len(bad) > 0 {
			t.Errorf("lines that are not host names: %q", bad)
		}
		if n := l.Len(); n < 500 || n > 5000 {
			t.Errorf("%d hosts; the list should hold hundreds to a few thousand", n)
		}
	})
	cases := []struct {
		host  string
		block bool
	}{
		{"doubleclick.net", true},
		{"securepubads.g.doubleclick.net", true},
		{"www.google-analytics.com", true},
		{"cdn.cookielaw.org", true},
		{"geolocation.onetrust.com", true},
		{"consent.cookiebot.com", true},
		{"app.usercentrics.eu", true},
		{"sdk.privacy-center.org", true},
		{"cmp.quantcast.com", true},
		{"quantcast.mgr.consensu.org", true},
		{"consent.trustarc.com", true},
		{"static.hotjar.com", true},
		{"www.googletagmanager.com", true},
		{"Static.Hotjar.COM.", true},
		{"notdoubleclick.net", false},
		{"doubleclick.net.example.com", false},
		{"www.yahoo.com", false},
		{"www.linkedin.com", false},
		{"example.com", false},
		{"net", false},
		{"", false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%q is blocked: %t", tc.host, tc.block), func(t *testing.T) {
			if got := l.Blocks(tc.host); got != tc.block {
				t.Errorf("Blocks(%q) = %t", tc.host, got)
			}
		})
	}
}

func TestParse(t *testing.T) {
	l, bad := Parse("# comment\n\nads.example\n*.wild.example\nhttp://x.example/\nsingle\n-dash.example\nADS.example\n")
	if want := []string{"*.wild.example", "http://x.example/", "single", "-dash.example"}; !reflect.DeepEqual(bad, want) {
		t.Errorf("bad lines %q, want %q", bad, want)
	}
	if l.Len() != 1 || !l.Blocks("x.ads.example") || l.Blocks("example") {
		t.Errorf("hosts %v", l.hosts)
	}
}
