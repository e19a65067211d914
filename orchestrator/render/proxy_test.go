package render

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/query"
)

func TestFailuresOfTheCallersProxyAreToldApartFromTheTargets(t *testing.T) {
	proxy, _ := url.Parse("http://alice:s3cret@proxy.test:8080")
	with := &query.Request{Proxy: proxy}
	without := &query.Request{}
	cases := []struct {
		name string
		err  error
		kind Kind // 0: not the proxy's failure
	}{
		{"the guard refusing the proxy's address is the caller's bad proxy", proxyGuardError(with, "proxy-refused"), BadInput},
		{"a proxy that does not answer is a failed fetch", proxyGuardError(with, "proxy-unreachable"), Unreadable},
		{"a proxy that refuses the tunnel is a failed fetch", proxyGuardError(with, "proxy-failed"), Unreadable},
		{"the guard's other words are not the proxy's", proxyGuardError(with, "refused"), 0},
		{"a refused tunnel through the proxy is the proxy's", proxyNavigationError(with, "net::ERR_TUNNEL_CONNECTION_FAILED"), Unreadable},
		{"a refused tunnel without a proxy is the target's", proxyNavigationError(without, "net::ERR_TUNNEL_CONNECTION_FAILED"), 0},
		{"another net error through the proxy is the target's", proxyNavigationError(with, "net::ERR_CONNECTION_REFUSED"), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e *Error
			if c.kind == 0 {
				if c.err != nil {
					t.Errorf("got %v, want none", c.err)
				}
				return
			}
			if !errors.As(c.err, &e) || e.Kind != c.kind || e.Param != "proxy" {
				t.Fatalf("got %#v, want kind %d about proxy", c.err, c.kind)
			}
			if strings.Contains(e.Message, "s3cret") || !strings.Contains(e.Message, "http://proxy.test:8080") {
				t.Errorf("the message %q must name the proxy without its credentials", e.Message)
			}
		})
	}
}
