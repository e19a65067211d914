package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/orchestrator"
)

// App is a whole glimpse, embedded sidecar included, on loopback, seen
// from one test: its helpers fail that test.
type App struct {
	*orchestrator.App
	t *testing.T
}

// Wrap binds a started glimpse to a test.
func Wrap(t *testing.T, a *orchestrator.App) *App { return &App{App: a, t: t} }

// T is the test the App reports to.
func (ta *App) T() *testing.T { return ta.t }

// DefaultPlans is the plans file of StartApp: one anonymous plan with a
// limit no test reaches.
const DefaultPlans = "anonymous: {name: test, limit: 1000000, window: 1h}\n"

// Logger is the apps' logger: warnings only, unless GLIMPSE_TEST_LOG is
// set.
func Logger() *slog.Logger {
	level := slog.LevelWarn
	if os.Getenv("GLIMPSE_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// StartApp starts a glimpse of this test's own, with generous quotas;
// mutate adjusts the configuration. A test that needs only the defaults
// and counts nothing in the browser uses Shared instead.
func StartApp(t *testing.T, mutate func(*orchestrator.Config)) *App {
	t.Helper()
	return Wrap(t, Launch(t, Logger(), DefaultPlans, mutate))
}

// StartAppLogging is StartApp with a logger and plans of the test's own.
func StartAppLogging(t *testing.T, log *slog.Logger, plans string, mutate func(*orchestrator.Config)) *App {
	t.Helper()
	return Wrap(t, Launch(t, log, plans, mutate))
}

// Launch is the one way tests and benchmarks start a whole glimpse: the
// embedded sidecar, loopback targets allowed, storage in a temporary
// directory, the given plans file and logger, then mutate. It is shut
// down when the test ends. Under -short it skips the test.
func Launch(tb testing.TB, log *slog.Logger, plans string, mutate func(*orchestrator.Config)) *orchestrator.App {
	tb.Helper()
	SkipIfShort(tb)
	a, stop, err := launch(tb.TempDir(), log, plans, mutate)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(stop)
	return a
}

// SkipIfShort skips a test that needs a real Chromium under -short.
func SkipIfShort(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("integration test with a real Chromium; skipped with -short")
	}
}

func launch(dir string, log *slog.Logger, plans string, mutate func(*orchestrator.Config)) (*orchestrator.App, func(), error) {
	plansFile := filepath.Join(dir, "plans.yaml")
	if err := os.WriteFile(plansFile, []byte(plans), 0o600); err != nil {
		return nil, nil, err
	}
	cfg, err := orchestrator.LoadConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		return nil, nil, err
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
	a, err := orchestrator.Start(ctx, cfg, log)
	if err != nil {
		return nil, nil, fmt.Errorf("starting glimpse: %w", err)
	}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = a.Shutdown(sctx)
		warmTargets.Delete(a)
	}
	if err := a.Pool.WaitReady(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("waiting for the embedded sidecar: %w", err)
	}
	warmTargets.Store(a, max(cfg.Warm, 0))
	return a, stop, nil
}

// warmTargets holds each launched app's warm contexts per sidecar, which
// Settled waits for when it reads a baseline.
var warmTargets sync.Map // *orchestrator.App → int

// Answer is a decoded API answer.
type Answer struct {
	HTTP    int
	Header  http.Header
	Status  string          `json:"status"`
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
	Raw     []byte
}

// Field is one member of data, decoded.
func (a Answer) Field(name string) any {
	var m map[string]any
	_ = json.Unmarshal(a.Data, &m)
	return m[name]
}

// Has says whether data has the member, null or not.
func (a Answer) Has(name string) bool {
	var m map[string]any
	_ = json.Unmarshal(a.Data, &m)
	_, ok := m[name]
	return ok
}

// Get calls the API with a target and extra query, and header pairs.
func (ta *App) Get(target string, extra string, hdr ...string) Answer {
	ta.t.Helper()
	return ta.Do(Query(target, extra), hdr...)
}

// Query is the raw query of Get.
func Query(target, extra string) string {
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
	return q
}

// Do calls the API with a raw query and header pairs.
func (ta *App) Do(rawQuery string, hdr ...string) Answer {
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
	a := Answer{HTTP: resp.StatusCode, Header: resp.Header, Raw: body}
	if resp.Header.Get("content-type") != "" && json.Valid(body) {
		_ = json.Unmarshal(body, &a)
	}
	return a
}

// BrowserCounts opens its own DevTools connection to the embedded sidecar
// and counts page targets and browser contexts. Only a test with an app
// of its own can read them: a shared app's other tests change them.
func (ta *App) BrowserCounts() (pages, contexts int) {
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
	bcs, err := cdp.Execute(ctx, c.Browser(), target.GetBrowserContexts, cdproto.Empty{})
	if err != nil {
		ta.t.Fatal(err)
	}
	return pages, len(bcs.BrowserContextIDs)
}

// Settled waits until no lease is out and the warm pages are back, and
// returns the browser's counts then: once they are wantPages and
// wantContexts, or after 10 s whatever they are. With wantPages < 0 it
// reads a baseline: the counts once no lease is out and they have held
// still for half a second, each page in a context of its own.
func (ta *App) Settled(wantPages, wantContexts int) (pages, contexts int) {
	ta.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var steadySince time.Time
	lastPages, lastContexts := -1, -1
	for {
		pages, contexts = ta.BrowserCounts()
		if wantPages >= 0 && pages == wantPages && contexts == wantContexts {
			return
		}
		if wantPages < 0 {
			if pages != lastPages || contexts != lastContexts || pages != contexts || !ta.poolAtRest() {
				steadySince = time.Time{}
			} else if steadySince.IsZero() {
				steadySince = time.Now()
			} else if time.Since(steadySince) >= 500*time.Millisecond {
				return
			}
			lastPages, lastContexts = pages, contexts
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// poolAtRest reports whether no sidecar of the pool has a lease out and
// every healthy one holds its warm contexts.
func (ta *App) poolAtRest() bool {
	warm, _ := warmTargets.Load(ta.App)
	want, _ := warm.(int)
	for _, s := range ta.Pool.Snapshot().Sidecars {
		if s.InUse > 0 || (s.State == "healthy" && s.Warm != min(want, s.Capacity)) {
			return false
		}
	}
	return true
}

// QuietPages waits until the sidecar has created no page for half a
// second (warm contexts refilled) and returns how many it has created.
func (ta *App) QuietPages() int64 {
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
