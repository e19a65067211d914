package render

import (
	"net/url"
	"testing"
)

func TestForwardedHeadersGoToTheTargetsSiteOnly(t *testing.T) {
	cases := []struct {
		name, target, to string
		want             bool
	}{
		{"the target itself", "https://www.example.com/a", "https://www.example.com/b", true},
		{"another host of the same registrable domain", "https://www.example.com/", "https://api.example.com/x", true},
		{"an http target redirected to https on its site", "http://example.com/", "https://www.example.com/", true},
		{"never down from https to http", "https://example.com/", "http://example.com/", false},
		{"a third party", "https://example.com/", "https://tracker.example.net/p.gif", false},
		{"a sibling under a public suffix", "https://alice.github.io/", "https://bob.github.io/", false},
		{"an address is its own site", "http://127.0.0.1:8080/", "http://127.0.0.1:9090/", true},
		{"another address is not", "http://127.0.0.1/", "http://127.0.0.2/", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			target, _ := url.Parse(tc.target)
			to, _ := url.Parse(tc.to)
			if got := siteOf(target).holds(to); got != tc.want {
				t.Errorf("headers for %s to %s: %t, want %t", tc.target, tc.to, got, tc.want)
			}
		})
	}
}
