package query

import (
	"encoding/json"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/sidecar/guard"
)

func TestParseProxyReadsAnUpstreamProxyAndRefusesWhatIsNotOne(t *testing.T) {
	cases := []struct {
		name, proxy string
		noProxy     bool
		want        string // the proxy as kept; "" for an error
	}{
		{"an http proxy with credentials is kept whole", "http://user:pa%40ss@Proxy.Example:8080", false, "http://user:pa%40ss@proxy.example:8080"},
		{"an https proxy without a port gets its scheme's", "https://proxy.example", false, "https://proxy.example:443"},
		{"an http proxy without a port gets 80", "http://proxy.example/", false, "http://proxy.example:80"},
		{"an IPv6 proxy keeps its brackets", "http://[2001:db8::1]:3128", false, "http://[2001:db8::1]:3128"},
		{"a SOCKS proxy is refused", "socks5://u:s3cret@proxy.example:1080", false, ""},
		{"a bare host is refused", "corp-proxy.internal:8080", false, ""},
		{"an empty value is refused", "", false, ""},
		{"a path is refused", "http://u:s3cret@proxy.example:8080/route", false, ""},
		{"a query is refused", "http://proxy.example:8080?x=1", false, ""},
		{"a port out of range is refused", "http://proxy.example:70000", false, ""},
		{"a proxy is refused when the operator turned them off", "http://user:s3cret@proxy.example:8080", true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := "url=https://example.com/&proxy=" + url.QueryEscape(c.proxy)
			req, err := Parse(raw, Limits{NoProxy: c.noProxy})
			if c.want == "" {
				e := apierr.From(err)
				if err == nil || e.Code != apierr.CodeInvalidQuery || e.Param != "proxy" {
					t.Fatalf("Parse = %v, %v; want EINVALQUERY for proxy", req, err)
				}
				body, _ := json.Marshal(e.Envelope("", "/docs"))
				if strings.Contains(string(body), "s3cret") || (c.proxy != "" && strings.Contains(string(body), c.proxy)) {
					t.Errorf("the error repeats the proxy's credentials: %s", body)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.Proxy == nil || req.Proxy.String() != c.want {
				t.Errorf("Proxy = %v, want %s", req.Proxy, c.want)
			}
			if len(req.Ignored) != 0 {
				t.Errorf("proxy is reported as ignored: %v", req.Ignored)
			}
		})
	}
}

func TestCacheKeysOfProxiedRequestsDifferByProxyAndHoldNoCredentials(t *testing.T) {
	key := func(extra string) string {
		req, err := Parse("url=https://example.com/"+extra, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return Key(req)
	}
	plain := key("")
	a := key("&proxy=" + url.QueryEscape("http://alice:secret@proxy.example:8080"))
	b := key("&proxy=" + url.QueryEscape("http://bob:secret@proxy.example:8080"))
	c := key("&proxy=" + url.QueryEscape("http://alice:secret@other.example:8080"))
	if plain == a || a == b || a == c {
		t.Errorf("keys do not tell the proxies apart: %s %s %s %s", plain, a, b, c)
	}
	if a != key("&proxy="+url.QueryEscape("http://alice:secret@proxy.example:8080")) {
		t.Error("one proxy gives two keys")
	}
	if strings.Contains(a, "secret") || strings.Contains(a, "alice") {
		t.Errorf("the key %s holds the credentials", a)
	}
}

func TestTheMemoNeverKeepsAProxiedRequest(t *testing.T) {
	var m Memo
	raw := "url=https://example.com/&proxy=" + url.QueryEscape("http://alice:secret@proxy.example:8080")
	if _, _, err := m.Parse(raw, Limits{}); err != nil {
		t.Fatal(err)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if len(m.m) != 0 {
		t.Errorf("the memo kept %d proxied requests, with their credentials", len(m.m))
	}
}

func TestCheckProxyRefusesInternalAndUnresolvableProxies(t *testing.T) {
	policy := guard.NewPolicy(nil)
	resolver := &testResolver{
		answers: map[string][]netip.Addr{"public.test": {netip.MustParseAddr("93.184.215.14")}, "internal.test": {netip.MustParseAddr("10.0.0.7")}},
		errs:    map[string]error{"nowhere.test": &net.DNSError{Err: "no such host", Name: "nowhere.test", IsNotFound: true}},
	}
	for _, c := range []struct {
		proxy, code string
	}{
		{"http://alice:s3cret@public.test:8080", ""},
		{"http://alice:s3cret@internal.test:8080", apierr.CodeForbiddenURL},
		{"http://alice:s3cret@127.0.0.1:3128", apierr.CodeForbiddenURL},
		{"http://alice:s3cret@[::ffff:169.254.169.254]:80", apierr.CodeForbiddenURL},
		{"http://alice:s3cret@nowhere.test:8080", apierr.CodeInvalidQuery},
	} {
		u, _ := url.Parse(c.proxy)
		err := CheckProxy(t.Context(), policy, resolver, u)
		if c.code == "" {
			if err != nil {
				t.Errorf("%s: %v", c.proxy, err)
			}
			continue
		}
		e := apierr.From(err)
		if err == nil || e.Code != c.code || e.Param != "proxy" {
			t.Errorf("%s: %v, want %s about proxy", c.proxy, err, c.code)
			continue
		}
		body, _ := json.Marshal(e.Envelope("", "/docs"))
		if strings.Contains(string(body), "s3cret") {
			t.Errorf("%s: the answer repeats the credentials: %s", c.proxy, body)
		}
	}
}
