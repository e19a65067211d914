package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/pages"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/rawcdp"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
	"github.com/glimpse/glimpse/sidecar"
)

// The short version of `make bench`, as Go benchmarks on the embedded
// default. Each render benchmark runs the raw DevTools baseline on the same
// Chromium beside glimpse, so the ratio of the two sub-benchmarks' ns/op in
// one run is the figure to read, not either one alone:
//
//	go test -run '^$' -bench 'Metadata|PDF' -benchtime 20x -benchmem ./orchestrator/e2e/api
//	go test -run '^$' -bench 'OverLoopback' -benchtime 3s -benchmem ./orchestrator/e2e/api

// benchApp is a whole glimpse, the benchmark's page server and the
// baseline's own connection to the same Chromium.
type benchApp struct {
	*orchestrator.App
	site   *pages.Site
	raw    *rawcdp.Browser
	client *http.Client
	seq    atomic.Int64
}

func startBenchApp(b *testing.B) *benchApp {
	b.Helper()
	if _, err := sidecar.FindChrome(); err != nil {
		b.Fatalf("this benchmark needs Chromium: %v", err)
	}
	a := e2e.Launch(b, slog.New(slog.NewTextHandler(io.Discard, nil)),
		"anonymous: {name: bench, limit: 1000000000, window: 24h}\n",
		func(c *orchestrator.Config) {
			c.Warm = 2
			c.RecycleAfter = 0 // a restart would cut the baseline's connection
		})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	site, err := pages.Start("")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { site.Close() })
	raw, err := rawcdp.Dial(ctx, "ws://"+a.Pool.Snapshot().Sidecars[0].Addr+"/devtools/browser", a.SidecarToken())
	if err != nil {
		b.Fatalf("the baseline could not reach the embedded sidecar: %v", err)
	}
	b.Cleanup(func() { raw.Close() })
	return &benchApp{App: a, site: site, raw: raw, client: &http.Client{Timeout: 40 * time.Second}}
}

func (ba *benchApp) page(b *testing.B, name string) pages.Page {
	for _, p := range ba.site.Pages() {
		if p.Name == name {
			return p
		}
	}
	b.Fatalf("the page server has no page %q", name)
	return pages.Page{}
}

// baseline visits p with raw DevTools once per iteration.
func (ba *benchApp) baseline(b *testing.B, p pages.Page, pdf *rawcdp.PDF) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := ba.raw.Visit(ctx, ba.site.URL(p, int(ba.seq.Add(1))), pdf, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// glimpse asks the API for p with extra once per iteration and wants a
// successful answer.
func (ba *benchApp) glimpse(b *testing.B, p pages.Page, extra string) {
	for b.Loop() {
		target := ba.site.URL(p, int(ba.seq.Add(1)))
		if err := ba.call("url="+url.QueryEscape(target)+"&"+extra, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// call asks the API and wants a successful answer, and the cache status
// wantCache unless it is empty.
func (ba *benchApp) call(rawQuery, wantCache string) error {
	resp, err := ba.client.Get(ba.URL() + "/?" + rawQuery)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	var env struct {
		Status string `json:"status"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &env) != nil || env.Status != "success" {
		return fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, body)
	}
	if got := resp.Header.Get("x-cache-status"); wantCache != "" && got != wantCache {
		return fmt.Errorf("x-cache-status = %q, want %s", got, wantCache)
	}
	return nil
}

// BenchmarkMetadata is a browser render of a news article: glimpse with
// the same work as the baseline (prerender=true, ping=false), and with a
// caller's defaults (a plain fetch when the page allows it, assets probed).
func BenchmarkMetadata(b *testing.B) {
	ba := startBenchApp(b)
	article := ba.page(b, "article")
	b.Run("baseline", func(b *testing.B) { ba.baseline(b, article, nil) })
	b.Run("glimpse", func(b *testing.B) { ba.glimpse(b, article, "force=true&ping=false&prerender=true") })
	b.Run("glimpse-defaults", func(b *testing.B) { ba.glimpse(b, article, "force=true") })
}

// BenchmarkPDF prints the news article with glimpse's default paper.
func BenchmarkPDF(b *testing.B) {
	ba := startBenchApp(b)
	article := ba.page(b, "article")
	b.Run("baseline", func(b *testing.B) { ba.baseline(b, article, &rawcdp.DefaultPDF) })
	b.Run("glimpse", func(b *testing.B) { ba.glimpse(b, article, "meta=false&pdf=true&force=true") })
}

// BenchmarkCacheHitOverLoopback is a cache hit as a caller sees it: a real
// TCP connection, the whole server and the client, from parallel callers.
func BenchmarkCacheHitOverLoopback(b *testing.B) {
	ba := startBenchApp(b)
	target := ba.site.URL(ba.page(b, "article"), 0)
	q := "url=" + url.QueryEscape(target) + "&ping=false"
	if err := ba.call(q, ""); err != nil {
		b.Fatal(err)
	}
	if err := ba.call(q, "HIT"); err != nil {
		b.Fatal(err)
	}
	ba.client.Transport = &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := ba.call(q, "HIT"); err != nil {
				b.Error(err) // Fatal is for the benchmark's own goroutine
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
