package rawcdp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/cmd/bench/pages"
	"github.com/glimpse/glimpse/sidecar"
)

// startBrowser runs a whole sidecar (real Chromium behind its egress guard,
// loopback allowed) in this process and dials it as the benchmark does.
func startBrowser(t *testing.T) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real Chromium; skipped under -short")
	}
	chrome, err := sidecar.FindChrome()
	if err != nil {
		t.Fatalf("this test needs Chromium: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := sidecar.DefaultConfig()
	cfg.ChromePath = chrome
	cfg.RecycleAfter = 0
	cfg.Token = sidecar.NewToken()
	srv, err := sidecar.NewServer(sidecar.RunConfig{Sidecar: cfg, Listener: ln,
		AllowTargets: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the sidecar stopped with an error: %v", err)
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for srv.Sidecar().Health().Status != sidecar.StatusOK {
		if time.Now().After(deadline) {
			t.Fatalf("Chromium did not become ready in a minute: %+v", srv.Sidecar().Health())
		}
		time.Sleep(50 * time.Millisecond)
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	b, err := Dial(dctx, "ws://"+ln.Addr().String()+"/devtools/browser", cfg.Token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestVisit(t *testing.T) {
	b := startBrowser(t)
	site, err := pages.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	byName := map[string]pages.Page{}
	for _, p := range site.Pages() {
		byName[p.Name] = p
	}
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(hang.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	before, err := b.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("reading a page gives its whole document and where the time went", func(t *testing.T) {
		ready := 0
		res, err := b.Visit(ctx, site.URL(byName["article"], 1), nil, func() { ready++ })
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.HTML, `"@type":"NewsArticle"`) || res.HTMLBytes != len(res.HTML) || res.PDFBytes != 0 {
			t.Errorf("document of %d bytes without its JSON-LD", res.HTMLBytes)
		}
		if res.Open <= 0 || res.Load <= 0 || res.Read <= 0 || res.Print != 0 {
			t.Errorf("phases open %s load %s read %s print %s", res.Open, res.Load, res.Read, res.Print)
		}
		if ready != 1 {
			t.Errorf("ready was called %d times, want once", ready)
		}
	})
	t.Run("a page that names itself after its load event is read once it has", func(t *testing.T) {
		res, err := b.Visit(ctx, site.URL(byName["app"], 2), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.HTML, "<title>Dashboards that load themselves") {
			t.Errorf("the document has no title yet: %.300s", res.HTML)
		}
	})
	t.Run("a visit without pixels loads no picture", func(t *testing.T) {
		var pictures atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/p.png" {
				pictures.Add(1)
				w.Header().Set("Content-Type", "image/png")
				return
			}
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(`<title>p</title><img src="/p.png">`))
		}))
		defer srv.Close()
		if _, err := b.VisitWithout(ctx, srv.URL+"/", PixelTypes, nil); err != nil {
			t.Fatal(err)
		}
		if n := pictures.Load(); n != 0 {
			t.Errorf("the picture was asked for %d times", n)
		}
		if _, err := b.Visit(ctx, srv.URL+"/?full", nil, nil); err != nil {
			t.Fatal(err)
		}
		if pictures.Load() == 0 {
			t.Error("a full visit did not ask for the picture either, so the test shows nothing")
		}
	})
	t.Run("printing a page gives a PDF", func(t *testing.T) {
		res, err := b.Visit(ctx, site.URL(byName["article"], 3), &DefaultPDF, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.PDFBytes < 1000 || res.HTML != "" || res.Print <= 0 {
			t.Errorf("PDF of %d bytes, print %s", res.PDFBytes, res.Print)
		}
	})
	t.Run("a target that refuses connections is an error naming the target", func(t *testing.T) {
		_, err := b.Visit(ctx, "http://127.0.0.1:1/", nil, nil)
		if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("a target that never answers ends with the caller's context", func(t *testing.T) {
		vctx, vcancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer vcancel()
		_, err := b.Visit(vctx, hang.URL, nil, nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want the deadline", err)
		}
	})
	t.Run("visits cut short at any moment leave no browser context behind", func(t *testing.T) {
		for i := range 20 {
			vctx, vcancel := context.WithTimeout(ctx, time.Duration(i)*time.Millisecond)
			_, err := b.Visit(vctx, site.URL(byName["article"], 100+i), nil, nil)
			vcancel()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("visit %d: %v", i, err)
			}
		}
	})
	t.Run("every visit disposed of its browser context and page", func(t *testing.T) {
		after, err := b.Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !after.Settled(before) || after.Leaked(before) {
			t.Errorf("counts went from %+v to %+v", before, after)
		}
	})
}

func TestCountsCompareWhatRequestsCreate(t *testing.T) {
	before := Counts{Targets: 4, Pages: 2, Contexts: 2, Own: 2}
	for _, tt := range []struct {
		name            string
		after           Counts
		leaked, settled bool
	}{
		{"the same counts neither leak nor differ", before, false, true},
		{"Chromium's own targets coming and going change nothing", Counts{Targets: 4, Pages: 2, Contexts: 2, Own: 5}, false, true},
		{"a page left open is a leak", Counts{Targets: 5, Pages: 3, Contexts: 2}, true, false},
		{"a browser context left open is a leak", Counts{Targets: 4, Pages: 2, Contexts: 3}, true, false},
		{"a warm context not yet refilled is not a leak but not settled", Counts{Targets: 2, Pages: 1, Contexts: 1}, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.after.Leaked(before); got != tt.leaked {
				t.Errorf("Leaked = %v", got)
			}
			if got := tt.after.Settled(before); got != tt.settled {
				t.Errorf("Settled = %v", got)
			}
		})
	}
}
