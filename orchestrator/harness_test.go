package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/cdp"
)

// testApp is a whole glimpse, embedded sidecar included, on loopback.
type testApp struct {
	*App
	t *testing.T
}

// startApp starts the embedded default with loopback targets allowed and
// generous quotas; mutate adjusts the configuration.
func startApp(t *testing.T, mutate func(*Config)) *testApp {
	t.Helper()
	level := slog.LevelWarn
	if os.Getenv("GLIMPSE_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	return &testApp{App: launchApp(t, log, "anonymous: {name: test, limit: 1000000, window: 1h}\n", mutate), t: t}
}

// launchApp is the one way tests and benchmarks start a whole glimpse: the
// embedded sidecar, loopback targets allowed, storage in a temporary
// directory, the given plans file and logger, then mutate. It is shut down
// when the test ends.
func launchApp(tb testing.TB, log *slog.Logger, plans string, mutate func(*Config)) *App {
	tb.Helper()
	if testing.Short() {
		tb.Skip("integration test with a real Chromium; skipped with -short")
	}
	dir := tb.TempDir()
	plansFile := filepath.Join(dir, "plans.yaml")
	if err := os.WriteFile(plansFile, []byte(plans), 0o600); err != nil {
		tb.Fatal(err)
	}
	cfg, err := LoadConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Addr = "127.0.0.1:0"
	cfg.AllowTargets = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	cfg.StorageDir = filepath.Join(dir, "data")
	cfg.PlansFile = plansFile
	cfg.Warm = 1
	if mutate != nil {
		mutate(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	a, err := Start(ctx, cfg, log)
	if err != nil {
		tb.Fatalf("starting glimpse: %v", err)
	}
	tb.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = a.Shutdown(sctx)
	})
	if err := a.Pool.WaitReady(ctx); err != nil {
		tb.Fatal(err)
	}
	return a
}

// answer is a decoded API answer.
type answer struct {
	HTTP    int
	Header  http.Header
	Status  string          `json:"status"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
	Raw     []byte
}

func (a answer) field(name string) any {
	var m map[string]any
	_ = json.Unmarshal(a.Data, &m)
	return m[name]
}

func (a answer) has(name string) bool {
	var m map[string]any
	_ = json.Unmarshal(a.Data, &m)
	_, ok := m[name]
	return ok
}

// get calls the API with a target and extra query.
func (ta *testApp) get(target string, extra string, hdr ...string) answer {
	ta.t.Helper()
	q := "url=" + url.QueryEscape(target)
	if target == "" {
		q = ""
	}
	if extra != "" {
		if q != "" {
			q += "&"
		}
		q += extra
	}
	return ta.do(q, hdr...)
}

func (ta *testApp) do(rawQuery string, hdr ...string) answer {
	ta.t.Helper()
	req, err := http.NewRequest(http.MethodGet, ta.URL()+"/?"+rawQuery, nil)
	if err != nil {
		ta.t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ta.t.Fatalf("GET /?%s: %v", rawQuery, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a := answer{HTTP: resp.StatusCode, Header: resp.Header, Raw: body}
	if resp.Header.Get("content-type") != "" && json.Valid(body) {
		_ = json.Unmarshal(body, &a)
	}
	return a
}

// browserCounts opens its own DevTools connection to the embedded sidecar
// and counts page targets and browser contexts.
func (ta *testApp) browserCounts() (pages, contexts int) {
	ta.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	snap := ta.Pool.Snapshot()
	if len(snap.Sidecars) == 0 {
		ta.t.Fatal("no sidecar in the pool")
	}
	c, err := cdp.Dial(ctx, "ws://"+snap.Sidecars[0].Addr+"/devtools/browser",
		cdp.WithHeader(http.Header{"Authorization": {"Bearer " + ta.SidecarToken()}}))
	if err != nil {
		ta.t.Fatalf("dialing the sidecar: %v", err)
	}
	defer c.Close()
	ts, err := cdp.Execute(ctx, c.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		ta.t.Fatal(err)
	}
	for _, ti := range ts.TargetInfos {
		if ti.Type == "page" {
			pages++
		}
	}
	bcs, err := cdp.Execute(ctx, c.Browser(), target.GetBrowserContexts, cdpEmpty)
	if err != nil {
		ta.t.Fatal(err)
	}
	return pages, len(bcs.BrowserContextIDs)
}

// settled waits until no lease is out and the warm pages are back, and
// returns the browser's counts then.
func (ta *testApp) settled(wantPages, wantContexts int) (pages, contexts int) {
	ta.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pages, contexts = ta.browserCounts()
		if (pages == wantPages && contexts == wantContexts) || time.Now().After(deadline) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// pageServer serves test pages on loopback and counts hits per path.
type pageServer struct {
	*httptest.Server
	hits map[string]*atomic.Int64
}

func newPageServer(t *testing.T, routes map[string]http.HandlerFunc) *pageServer {
	t.Helper()
	ps := &pageServer{hits: map[string]*atomic.Int64{}}
	mux := http.NewServeMux()
	for p, h := range routes {
		n := &atomic.Int64{}
		ps.hits[p] = n
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) { n.Add(1); h(w, r) })
	}
	ps.Server = httptest.NewServer(mux)
	t.Cleanup(ps.Close)
	return ps
}

func html(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
}

func newMuxServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// quietPages waits until the sidecar has created no page for half a
// second (warm contexts refilled) and returns how many it has created.
func (ta *testApp) quietPages() int64 {
	ta.t.Helper()
	last := ta.Sidecar.Health().PagesCreated
	for range 40 {
		time.Sleep(500 * time.Millisecond)
		now := ta.Sidecar.Health().PagesCreated
		if now == last {
			return now
		}
		last = now
	}
	ta.t.Fatal("the sidecar kept creating pages for 20 s")
	return 0
}
