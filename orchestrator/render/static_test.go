package render

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestAFailedWayOutIsTheServicesNotTheTargets(t *testing.T) {
	// A stand-in for a sidecar's egress proxy: a plain HTTP proxy request
	// is a GET with the absolute URL, answered here as the guard would.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodConnect {
			// An https URL's tunnel: the host's first label is the
			// guard's answer.
			reason, _, _ := strings.Cut(r.Host, ".")
			switch reason {
			case "noheader":
			case "unmarked":
				w.Header().Set("X-Glimpse-Guard", "refused")
			default:
				markAnswer(w, r, reason)
			}
			w.WriteHeader(http.StatusForbidden)
			return
		}
		switch r.URL.Path {
		case "/missing.png":
			http.NotFound(w, r)
		case "/unmarked.png":
			w.Header().Set("X-Glimpse-Guard", "refused")
			w.WriteHeader(http.StatusForbidden)
		default:
			markAnswer(w, r, r.URL.Query().Get("guard"))
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL, _ := url.Parse("http://" + closed.Addr().String())
	closed.Close()

	cases := []struct {
		name   string
		proxy  *url.URL // nil: no healthy sidecar
		target string
		egress bool
		kind   Kind // for a typed render error; 0 for none
	}{
		{"no healthy sidecar is the service's", nil, "http://site.test/a.png", true, 0},
		{"a sidecar that does not answer is the service's", deadURL, "http://site.test/a.png", true, 0},
		{"a guard failure it does not name is the service's", proxyURL, "http://site.test/a.png?guard=confused", true, 0},
		{"the target's refusal by the address rule is the target's", proxyURL, "http://site.test/a.png?guard=refused", false, Forbidden},
		{"a target that drops the connection is the target's", proxyURL, "http://site.test/a.png?guard=unreachable", false, Unreadable},
		{"an error status is the target's", proxyURL, "http://site.test/missing.png", false, 0},
		{"an https tunnel refused by the address rule is the target's", proxyURL, "https://refused.test/a.png", false, Forbidden},
		{"an https tunnel to a host that does not resolve is the target's", proxyURL, "https://unresolvable.test/a.png", false, Unresolvable},
		{"an https tunnel to a target that drops it is the target's", proxyURL, "https://unreachable.test/a.png", false, Unreadable},
		{"an https tunnel the guard refuses without a reason is the service's", proxyURL, "https://noheader.test/a.png", true, 0},
		{"an https tunnel refused with a word but no mark is the service's", proxyURL, "https://unmarked.test/a.png", true, 0},
		{"a plain answer with a word but no mark is the target's error status", proxyURL, "http://site.test/unmarked.png", false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newStaticFetcher(func() (*url.URL, bool) { return tc.proxy, tc.proxy != nil }, testMarks)
			_, _, err := httpSource{f: f}.Open(t.Context(), tc.target)
			if err == nil {
				t.Fatal("the fetch succeeded")
			}
			if got := errors.Is(err, ErrEgress); got != tc.egress {
				t.Errorf("%v: ErrEgress is %t, want %t", err, got, tc.egress)
			}
			var re *Error
			if tc.kind != 0 && (!errors.As(err, &re) || re.Kind != tc.kind) {
				t.Errorf("%v: want a render error of kind %d", err, tc.kind)
			}
			if re != nil && tc.kind == Forbidden && strings.HasPrefix(tc.target, "https:") && re.URL != "https://refused.test" {
				t.Errorf("the refusal names %q, want the refused address", re.URL)
			}
		})
	}
}
