package pages

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/sidecar/guard"
	"github.com/glimpse/glimpse/sidecar/guard/adblock"
)

func startWeb(t *testing.T, seed uint64) *Web {
	t.Helper()
	w, err := StartWeb(seed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	return w
}

// client reaches the stand-in hosts by name, as the sidecar's guard does
// with GLIMPSE_DEV_HOSTS, with a fresh connection for every request.
func client(w *Web) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			_, port, _ := net.SplitHostPort(addr)
			return (&net.Dialer{}).DialContext(ctx, network, "127.0.0.1:"+port)
		},
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true},
		DisableKeepAlives: true,
		ForceAttemptHTTP2: true,
	}}
}

func TestTheSameSeedPlacesTheHostsAlike(t *testing.T) {
	a, b, c := startWeb(t, 1), startWeb(t, 1), startWeb(t, 2)
	differ := false
	for i := range a.hosts {
		if a.hosts[i].rtt != b.hosts[i].rtt || a.hosts[i].bandwidth != b.hosts[i].bandwidth {
			t.Errorf("%s: seed 1 gave %v and %v", a.hosts[i].name, a.hosts[i].rtt, b.hosts[i].rtt)
		}
		if a.hosts[i].rtt < minRTT || a.hosts[i].rtt >= maxRTT || a.hosts[i].bandwidth < minBandwidth || a.hosts[i].bandwidth >= maxBandwidth {
			t.Errorf("%s: %v and %d B/s are outside the model's ranges", a.hosts[i].name, a.hosts[i].rtt, a.hosts[i].bandwidth)
		}
		differ = differ || a.hosts[i].rtt != c.hosts[i].rtt
	}
	if !differ {
		t.Error("seeds 1 and 2 gave every host the same round trip")
	}
	if a.Describe() != b.Describe() {
		t.Errorf("the same seed made different pages:\n%s\n%s", a.Describe(), b.Describe())
	}
}

func TestHostsIsAValidDevHostsValueForEveryStandIn(t *testing.T) {
	w := startWeb(t, 1)
	table, err := guard.ParseHosts(w.Hosts())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range hostNames {
		if table[name].String() != "127.0.0.1" {
			t.Errorf("%s is not sent to loopback: %v", name, table)
		}
	}
}

// The model is only worth measuring if the ad-block list meets it as it
// would meet the web: ads, analytics, consent and the tag manager
// listed, fonts, the social pixel, the script and image CDNs not.
func TestTheAdBlockListKnowsTheAdHostsAndNotTheOthers(t *testing.T) {
	listed := map[string]bool{
		"www.googletagmanager.com": true, "www.google-analytics.com": true, "static.hotjar.com": true, "securepubads.g.doubleclick.net": true,
		"pagead2.googlesyndication.com": true, "tpc.googlesyndication.com": true, "cdn.cookielaw.org": true,
	}
	for _, name := range hostNames {
		if got := adblock.Default().Blocks(name); got != listed[name] {
			t.Errorf("the ad-block list blocks %s: %v, want %v", name, got, listed[name])
		}
	}
}

func TestAStandInHostIsAsFarAwayAsItsRoundTripSays(t *testing.T) {
	w := startWeb(t, 3)
	c := client(w)
	for _, tc := range []struct{ host, path string }{
		{"www.googletagmanager.com", "/gtm.js"},
		{"img.newsroom-cdn.example", "/hero.jpg"},
	} {
		t.Run(tc.host, func(t *testing.T) {
			h := w.byName[tc.host]
			size := len(h.files[tc.path].body)
			start := time.Now()
			resp, err := c.Get(w.url(tc.host, tc.path))
			if err != nil {
				t.Fatal(err)
			}
			n, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			took := time.Since(start)
			if err != nil || int(n) != size || resp.StatusCode != http.StatusOK {
				t.Fatalf("got %d of %d bytes, HTTP %d, %v", n, size, resp.StatusCode, err)
			}
			// Two round trips to connect, one for the request, and the
			// bytes at the host's bandwidth.
			least := 3*h.rtt + time.Duration(size)*time.Second/time.Duration(h.bandwidth) - chunk*time.Second/time.Duration(h.bandwidth)
			if took < least || took > least+time.Second {
				t.Errorf("%d bytes took %v; want about %v (round trip %v, %d B/s)", size, took, least, h.rtt, h.bandwidth)
			}
		})
	}
	t.Run("an unknown path is not found", func(t *testing.T) {
		resp, err := c.Get(w.url("fonts.gstatic.com", "/nothing"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("HTTP %d", resp.StatusCode)
		}
	})
}

func TestWebPagesCarryTheThirdPartiesAndTheirPolicy(t *testing.T) {
	w := startWeb(t, 1)
	s, err := StartWith("", w)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if len(s.WebPages()) != len(s.Pages()) {
		t.Fatalf("%d web pages for %d pages", len(s.WebPages()), len(s.Pages()))
	}
	for _, p := range s.WebPages() {
		resp, err := http.Get(s.URL(p, 1))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		csp := resp.Header.Get("Content-Security-Policy")
		for _, name := range []string{"fonts.googleapis.com", "cdn.jsdelivr.net", "www.googletagmanager.com", "cdn.cookielaw.org", "securepubads.g.doubleclick.net", "img.newsroom-cdn.example"} {
			origin := "https://" + name + ":" + strconv.Itoa(w.byName[name].port)
			if !strings.Contains(string(body), origin) {
				t.Errorf("%s does not ask %s", p.Path, origin)
			}
			if !strings.Contains(csp, origin) {
				t.Errorf("the policy of %s does not allow %s: %s", p.Path, origin, csp)
			}
		}
		if !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "https:") && !strings.Contains(csp, "https://") {
			t.Errorf("the policy of %s lets pages reach the internet: %s", p.Path, csp)
		}
		if i, j := strings.Index(string(body), "gtm.js"), strings.Index(strings.ToLower(string(body)), "<body"); i < 0 || j < 0 || i > j {
			t.Errorf("the tags of %s are not in its head", p.Path)
		}
	}
	t.Logf("%s", w.Describe())
}

func TestInsertAt(t *testing.T) {
	tests := []struct {
		name, page, open, s string
		after               bool
		want                string
	}{
		{"after an opening tag with attributes", `<HTML><Head lang="en"><title>x</title>`, "<head", "+", true, `<HTML><Head lang="en">+<title>x</title>`},
		{"before a closing tag", `<body><p>x</p></BODY></html>`, "</body", "+", false, `<body><p>x</p>+</BODY></html>`},
		{"at the start without the tag", `<p>x</p>`, "<head", "+", true, `+<p>x</p>`},
		{"at the end without the tag", `<p>x</p>`, "</body", "+", false, `<p>x</p>+`},
		{"at the end of a tag cut short", `<p>x</p><body class="a`, "<body", "+", true, `<p>x</p><body class="a+`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(insertAt([]byte(tt.page), tt.open, tt.s, tt.after)); got != tt.want {
				t.Errorf("insertAt = %q, want %q", got, tt.want)
			}
		})
	}
}
