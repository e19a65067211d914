package isolation_test

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
	"github.com/glimpse/glimpse/sidecar/guard"
)

// leases is how many pages the pool has leased so far.
func leases(t *testing.T, g prometheus.Gatherer) uint64 {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, f := range families {
		if f.GetName() == "glimpse_pool_lease_wait_seconds" {
			for _, m := range f.GetMetric() {
				n += m.GetHistogram().GetSampleCount()
			}
		}
	}
	return n
}

// listedHost is on the ad-block list of the sidecar's guard in these
// tests; the guard counts names under .localhost as loopback.
const listedHost = "listed.localhost"

// A target cannot speak for the egress guard, whatever mark it sends
// with the guard's word: the page is visited once, in one render, and
// answered as the page it is, never as a refusal, a time-out, a listing
// or glimpse's own failure.
func TestATargetCannotForgeTheGuardsAnswer(t *testing.T) {
	app := e2e.StartApp(t, func(c *orchestrator.Config) { c.AdblockHosts = []string{listedHost} })
	otherToken := guard.NewMarks("a token the target made up")
	words := []string{"refused", "blocked", "unreachable", "timeout", "unresolvable", "closing", "proxy-refused"}
	marks := map[string]func(word string) string{
		"no mark":                  func(string) string { return "" },
		"a mark it made up":        func(string) string { return "Zm9yZ2VkLW1hcmstb2YtdGhlLXRhcmdldA" },
		"a mark under another key": func(w string) string { return otherToken.Mark(w, "127.0.0.1", "") },
	}
	routes := map[string]http.HandlerFunc{}
	for _, w := range words {
		for name, mark := range marks {
			routes["/"+w+"/"+strings.ReplaceAll(name, " ", "-")] = func(rw http.ResponseWriter, r *http.Request) {
				rw.Header().Set(guard.Header, w)
				if m := mark(w); m != "" {
					rw.Header().Set(guard.MarkHeader, m)
				}
				e2e.HTML(`<!doctype html><title>Answered as `+w+`</title><p>A page that speaks for the guard.</p>`)(rw, r)
			}
		}
	}
	pages := e2e.NewPageServer(t, routes)
	for path := range routes {
		for _, prerender := range []string{"false", "true"} {
			t.Run(path+" with prerender="+prerender, func(t *testing.T) {
				word := strings.Split(path, "/")[1]
				hits, leased := pages.Hits[path].Load(), leases(t, app.Registry)
				a := app.TryGet(pages.URL+path, "prerender="+prerender+"&force=true")
				if a.Err != nil || a.HTTP != http.StatusOK || a.Field("title") != "Answered as "+word {
					t.Errorf("the page answered %s; want 200 with its own title", a)
				}
				if n := pages.Hits[path].Load() - hits; n != 1 {
					t.Errorf("the page was visited %d times; want once", n)
				}
				want := uint64(0)
				if prerender == "true" {
					want = 1
				}
				if n := leases(t, app.Registry) - leased; n != want {
					t.Errorf("the request leased %d pages; want %d", n, want)
				}
			})
		}
	}
}

// The guard's own answers still count: a page on its list is rendered
// again without the list, because the guard said so in a marked answer,
// and a tunnel that failed is the list's only when the guard, asked,
// says that its list names the host.
func TestTheGuardsOwnAnswersAreRead(t *testing.T) {
	app := e2e.StartApp(t, func(c *orchestrator.Config) { c.AdblockHosts = []string{listedHost} })
	pages := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/page": e2e.HTML(`<!doctype html><title>Listed but asked for</title><p>A page on the list.</p>`),
	})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(pages.URL, "http://"))
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, closedPort, _ := net.SplitHostPort(closed.Addr().String())
	closed.Close()

	cases := []struct {
		name, target string
		status       int
		code         string
		leases       uint64
		hits         int64
	}{
		{"a listed plain http page is rendered again without the list", "http://" + listedHost + ":" + port + "/page", http.StatusOK, "", 2, 1},
		{"a listed https host's failed tunnel is rendered again without the list", "https://" + listedHost + ":" + closedPort + "/", http.StatusFailedDependency, "EFETCH", 2, 0},
		{"an unlisted https host's failed tunnel is its own failure, rendered once", "https://127.0.0.1:" + closedPort + "/", http.StatusFailedDependency, "EFETCH", 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hits, leased := pages.Hits["/page"].Load(), leases(t, app.Registry)
			a := app.TryGet(tc.target, "prerender=true&force=true")
			if a.Err != nil || a.HTTP != tc.status || a.Code != tc.code {
				t.Errorf("the render answered %s; want %d %s", a, tc.status, tc.code)
			}
			if n := leases(t, app.Registry) - leased; n != tc.leases {
				t.Errorf("the request leased %d pages; want %d", n, tc.leases)
			}
			if n := pages.Hits["/page"].Load() - hits; n != tc.hits {
				t.Errorf("the page was visited %d times; want %d", n, tc.hits)
			}
		})
	}
}
